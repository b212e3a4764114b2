"""Workflow helpers of source phrase representations (Xu et al. 2020).

Which phrase segmentation (n-gram or parse) a model reads as a side input, the
Lingeval97-style agreement analysis and the ablation table (rules/parse.smk,
rules/lingeval.smk, rules/report.smk).
"""

from __future__ import annotations

from phrasenmt.io import InputError
from phrasenmt.workflow import base as wf
from phrasenmt.workflow import corpus, runs

# arch -> default segmentation; mirrors the registered configs (tested) so that
# building the DAG does not import torch.
PHRASE_REPR_ARCHS = {"pr_mean": "ngram", "pr_max": "ngram", "pr_max_attn": "ngram",
                     "pr_max_attn_ta": "ngram", "pr_max_attn_ta_parse": "parse"}


def segmentation(config: dict, model: str) -> str | None:
    """The phrase segmentation a model reads (ngram/parse), None for other archs."""
    m = config["models"][model]
    if m["arch"] not in PHRASE_REPR_ARCHS:
        return None
    return m.get("model", {}).get("segmentation", PHRASE_REPR_ARCHS[m["arch"]])


def side_inputs(config: dict, dataset: str, model: str,
                splits: list[str]) -> dict[str, list[str]]:
    """Side-input files a model reads, per name, one per split (train, dev / test)."""
    seg = segmentation(config, model)
    if seg is None:
        return {}
    return {"phrases": [f"results/{dataset}/parse/{s}.{seg}.phrases" for s in splits]}


def side_args(config: dict, dataset: str, model: str, splits: list[str]) -> str:
    """`--side NAME=FILE[,FILE]` options of train / translate for a model."""
    return " ".join(f"--side {name}={','.join(files)}" for name, files in
                    side_inputs(config, dataset, model, splits).items())


def check_phrase_models(config: dict) -> None:
    """Parse-based phrases need an English source (stanza's English parser)."""
    for model in config["models"]:
        if segmentation(config, model) != "parse":
            continue
        for ds in wf.models_datasets(config, model):
            if wf.langs(config, ds)[0] != "en":
                raise InputError(f"models.{model}: parse-based phrases need an "
                                 f"English source, but dataset {ds} translates from "
                                 f"{wf.langs(config, ds)[0]!r}", "config")



def lingeval_json(config: dict, dataset: str) -> str | None:
    """The Lingeval97-format items of an en->de dataset (None for other pairs,
    and where the dataset's `lingeval: false` turns the agreement analysis off)."""
    if wf.langs(config, dataset) != ("en", "de"):
        return None
    if not config["datasets"][dataset].get("lingeval", True):
        return None
    if wf.source(config, dataset) == "synthetic":
        return f"results/{dataset}/raw/test.lingeval.json"
    return "results/_lingeval97/lingeval97.json"


def lingeval_models(config: dict, dataset: str) -> list[str]:
    """Models scored on the agreement items (models of the default family)."""
    if lingeval_json(config, dataset) is None:
        return []
    return [m for m in wf.models(config, dataset)
            if wf.model_family(config, m) == "default"]


def phrase_targets(config: dict, dataset: str) -> list[str]:
    """Ablation table and agreement analysis of a dataset with models."""
    root = f"results/{dataset}"
    targets = []
    if any(segmentation(config, m) for m in wf.models(config, dataset)):
        targets += [f"{root}/report/ablation.{ext}" for ext in ("md", "tex", "csv")]
    if lingeval_models(config, dataset):
        targets += [f"{root}/report/agreement.{ext}" for ext in ("png", "svg")]
    return targets


def ablation_models(config: dict, dataset: str) -> list[str]:
    """Rows of the ablation table: the default-family models, in config order."""
    return [m for m in wf.models(config, dataset)
            if wf.model_family(config, m) == "default"]


ABLATION_KINDS = ("eval", "seed_eval", "summary", "hyp", "benchmark")


def ablation_files(config: dict, dataset: str) -> dict[str, dict[str, list[str]]]:
    """Per kind, per model: the table's input files on the first test set, the
    aggregate `eval` once and the others once per seed (benchmarks exist once
    the hypotheses do)."""
    t = wf.testsets(config, dataset)[0]
    kinds = {"seed_eval": lambda m, s: runs.seed_eval(dataset, m, s, t),
             "summary": lambda m, s: runs.run_file(dataset, m, s, "summary.json"),
             "hyp": lambda m, s: runs.hyp_file(dataset, m, s, t),
             "benchmark": lambda m, s: runs.benchmark("translate", dataset, m, s, t)}
    rows = ablation_models(config, dataset)
    files = {"eval": {m: [runs.aggregate_eval(dataset, m, t)] for m in rows}}
    for kind, path in kinds.items():
        files[kind] = {m: [path(m, s) for s in runs.seeds(config, m)] for m in rows}
    return files



# -- inputs and params of the rules (train, translate, lingeval, report) --------

def train_side_files(config: dict, dataset: str, model: str) -> list[str]:
    """The side-input files of a model's training job (train and dev)."""
    files = side_inputs(config, dataset, model, ["train", "dev"])
    return [f for paths in files.values() for f in paths]


def train_side_args(config: dict, dataset: str, model: str) -> str:
    return side_args(config, dataset, model, ["train", "dev"])


def test_side_files(config: dict, dataset: str, model: str, testset: str) -> list[str]:
    """The side-input files of a model's decoding of one test set."""
    files = side_inputs(config, dataset, model, [testset])
    return [f for paths in files.values() for f in paths]


def test_side_args(config: dict, dataset: str, model: str, testset: str) -> str:
    return side_args(config, dataset, model, [testset])


def lingeval_prepare_args(config: dict, dataset: str) -> str:
    """--tokenize (or --raw, for SentencePiece) and --lowercase of the agreement
    items, as the dataset's text is cleaned."""
    ds = config["datasets"][dataset]
    raw = corpus.raw_words(config, dataset)
    return " ".join(flag for flag, on in (("--raw", raw),
                                          ("--tokenize", ds["tokenize"] and not raw),
                                          ("--lowercase", ds["lowercase"])) if on)


def lingeval_segment_inputs(dataset: str, segmentation: str) -> dict[str, str]:
    """The BPE'd items, plus their trees for parse-based phrases."""
    root = f"results/{dataset}/lingeval"
    inputs = {"bpe": f"{root}/pairs.bpe.en"}
    if segmentation == "parse":
        inputs["trees"] = f"{root}/pairs.trees"
    return inputs


def lingeval_side_files(config: dict, dataset: str, model: str) -> list[str]:
    """The items' phrase segmentation a phrase model scores them with."""
    seg = segmentation(config, model)
    return [f"results/{dataset}/lingeval/pairs.{seg}.phrases"] if seg else []


def lingeval_side_args(input) -> str:
    return f"--side phrases={input.side[0]}" if input.side else ""


def lingeval_score_file(dataset: str, model: str, seed: int | str) -> str:
    return f"results/{dataset}/lingeval/scores/{model}/seed{seed}.txt"


def lingeval_first_scores(config: dict, dataset: str) -> dict[str, str]:
    """Agreement scores of every model's first seed (the figure shows those)."""
    return {m: lingeval_score_file(dataset, m, runs.first_seed(config, m))
            for m in lingeval_models(config, dataset)}


def lingeval_scores(config: dict, dataset: str) -> list[str]:
    return list(lingeval_first_scores(config, dataset).values())


def lingeval_score_args(config: dict, dataset: str) -> str:
    return " ".join(f"{m}={f}" for m, f in lingeval_first_scores(config, dataset).items())


def ablation_inputs(config: dict, dataset: str) -> dict[str, list[str]]:
    """The ablation table's files, per kind the rule names (no benchmarks)."""
    files = ablation_files(config, dataset)
    return {kind: [p for paths in files[kind].values() for p in paths]
            for kind in ("eval", "seed_eval", "summary", "hyp")}


def ablation_args(config: dict, dataset: str) -> str:
    """`--eval`, `--seed-eval`, ... `NAME=FILE` lists of the ablation table."""
    files = ablation_files(config, dataset)
    return " ".join(
        f"--{kind.replace('_', '-')} "
        + " ".join(f"{m}={p}" for m, paths in files[kind].items() for p in paths)
        for kind in ABLATION_KINDS
    )


def ablation_order(config: dict, dataset: str) -> str:
    return ",".join(ablation_models(config, dataset))
