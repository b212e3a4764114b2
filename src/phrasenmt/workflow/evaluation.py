"""The files the evaluation and the main report read, over every model and seed.

The inputs and params of rules/evaluate.smk and rules/report.smk (and of the
multi-word BLEU of rules/continuous.smk, which scores every model): which
hypotheses the all-seed BLEU, the length analysis and the tables read, and the
`NAME=FILE` lists and model orders they pass.
"""

from __future__ import annotations

from phrasenmt.workflow import base as wf
from phrasenmt.workflow import runs


def first_testset(config: dict, dataset: str) -> str:
    """The test set single-table analyses read (the dataset's first)."""
    return wf.testsets(config, dataset)[0]


def model_order(config: dict, dataset: str) -> str:
    """`--order` of a dataset's tables and figures: its models, in config order."""
    return ",".join(wf.models(config, dataset))


def pairs(files: list[tuple[str, str]] | dict[str, str]) -> str:
    """`NAME=FILE ...` of (name, file) pairs or of a {name: file} mapping."""
    items = files.items() if isinstance(files, dict) else files
    return " ".join(f"{name}={path}" for name, path in items)


def summary_paths(config: dict, dataset: str) -> list[tuple[str, str]]:
    """(model, summary.json) of every seed (a checkpoint_of model's: its model's)."""
    return [(m, wf.summary_path(config, dataset, m, s)) for m in wf.models(config, dataset)
            for s in runs.seeds(config, m)]


def summaries(config: dict, dataset: str) -> list[str]:
    return [path for _, path in summary_paths(config, dataset)]


def summary_args(config: dict, dataset: str) -> str:
    return pairs(summary_paths(config, dataset))


def first_hyps(config: dict, dataset: str, testset: str) -> dict[str, str]:
    """Tokenized hypotheses of every model's first seed on one test set."""
    return {m: runs.hyp_file(dataset, m, runs.first_seed(config, m), testset)
            for m in wf.models(config, dataset)}


def testset_hyps(config: dict, dataset: str, testset: str) -> list[str]:
    return list(first_hyps(config, dataset, testset).values())


def length_hyp_args(config: dict, dataset: str, testset: str) -> str:
    return pairs(first_hyps(config, dataset, testset))


def seed_hyps(config: dict, dataset: str, model: str, testset: str,
              ext: str = "txt") -> list[str]:
    """Hypotheses (ext txt or tok) of every seed of the model."""
    return runs.per_seed(config, model,
                         lambda s: runs.hyp_file(dataset, model, s, testset, ext))


def baseline_seed_hyps(config: dict, dataset: str, testset: str) -> list[str]:
    """Detokenized hypotheses of every seed of the dataset's baseline."""
    return seed_hyps(config, dataset, wf.baseline(config, dataset), testset)


def all_seed_hyps(config: dict, dataset: str, testset: str) -> list[tuple[str, str]]:
    """(model, tokenized hypotheses) of every seed of every model on a test set."""
    return [(m, runs.hyp_file(dataset, m, s, testset)) for m in wf.models(config, dataset)
            for s in runs.seeds(config, m)]


def all_hyps(config: dict, dataset: str, testset: str) -> list[str]:
    return [path for _, path in all_seed_hyps(config, dataset, testset)]


def all_hyp_args(config: dict, dataset: str, testset: str) -> str:
    return pairs(all_seed_hyps(config, dataset, testset))


def eval_jsons(config: dict, dataset: str) -> list[str]:
    """All-seed evaluations of every (model, test set), for the tables."""
    return [runs.aggregate_eval(dataset, m, t)
            for m in wf.models(config, dataset) for t in wf.testsets(config, dataset)]


def seed_eval_jsons(config: dict, dataset: str) -> list[str]:
    """Every seed's evaluation of every (model, test set), in seed order."""
    return [runs.seed_eval(dataset, m, s, t) for m in wf.models(config, dataset)
            for t in wf.testsets(config, dataset) for s in runs.seeds(config, m)]
