"""The inputs and params of the NPMT analyses and tables (rules/npmt_report.smk).

Which segmentations, hypotheses and BLEU JSONs the segment analyses, the gates
figure, the NPMT table and the sweep tables read, and the options they pass;
the family's rows and decodings are in `npmt`.
"""

from __future__ import annotations

import shlex

from phrasenmt.workflow import base as wf
from phrasenmt.workflow import npmt, runs


def table_eval_files(config: dict, dataset: str, testset: str) -> list[str]:
    """Every BLEU JSON of the NPMT table: all-seed ones, then each seed's."""
    evals = npmt.table_evals(config, dataset, testset)
    seed_evals = npmt.table_seed_evals(config, dataset, testset)
    return [*evals.values(), *(path for _, path in seed_evals)]


def table_args(config: dict, dataset: str, testset: str) -> str:
    """--eval, --seed-eval, --decode, --baseline and --note options of the table."""
    evals = npmt.table_evals(config, dataset, testset)
    seed_evals = npmt.table_seed_evals(config, dataset, testset)
    args = ["--eval", *(f"{k}={v}" for k, v in evals.items()), "--seed-eval",
            *(f"{k}={v}" for k, v in seed_evals), "--decode"]
    args += [f"{m}={label}" for m, label in npmt.decode_labels(config, dataset).items()]
    base = npmt.npmt_baseline(config, dataset)
    args += ["--baseline", base] if base else []
    for note in npmt.table_notes(config, dataset):
        args += ["--note", note]
    return shlex.join(args)


def table_order(config: dict, dataset: str) -> str:
    return ",".join(npmt.table_models(config, dataset))


def segment_files(config: dict, dataset: str, testset: str) -> dict[str, str]:
    """Greedy segmentations of every SWAN row's first seed."""
    return {m: npmt.segments_file(dataset, m, testset, runs.first_seed(config, m))
            for m in npmt.segment_models(config, dataset)}


def segment_args(config: dict, dataset: str, testset: str) -> str:
    return " ".join(f"{m}={path}"
                    for m, path in segment_files(config, dataset, testset).items())


def segment_order(config: dict, dataset: str) -> str:
    return ",".join(npmt.segment_models(config, dataset))


def reordering_args(config: dict, dataset: str, testset: str) -> str:
    return " ".join(f"{k}={v}"
                    for k, v in npmt.reordering_hyps(config, dataset, testset).items())


def main_segments(config: dict, dataset: str) -> str:
    """The greedy segmentation the gates figure draws: the NPMT model's first seed
    on the first test set."""
    main = npmt.npmt_main(config, dataset)
    return npmt.segments_file(dataset, main, wf.testsets(config, dataset)[0],
                              runs.first_seed(config, main))


def main_gates(config: dict, dataset: str) -> str:
    """The gates of the first test set's line the figure draws."""
    testset = wf.testsets(config, dataset)[0]
    return f"results/{dataset}/analysis/npmt_gates_{testset}.tsv"


def main_checkpoint(config: dict, dataset: str) -> str:
    """The averaged model of the gates figure: the NPMT model's first seed."""
    main = npmt.npmt_main(config, dataset)
    return runs.run_file(dataset, main, runs.first_seed(config, main), "averaged.pt")


def sweep_eval_files(config: dict, dataset: str, sweep: str) -> list[str]:
    return [path for _, path in npmt.sweep_evals(config, dataset, sweep)]


def sweep_args(config: dict, dataset: str, sweep: str) -> str:
    """--name, --key, --base and --eval options of a sweep table."""
    entry = config["sweeps"][sweep]
    evals = npmt.sweep_evals(config, dataset, sweep)
    args = ["--name", sweep, "--key", entry["key"], "--base", entry["model"],
            "--eval", *(f"{k}={v}" for k, v in evals)]
    return shlex.join(args)
