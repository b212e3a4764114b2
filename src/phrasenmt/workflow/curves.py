"""Workflow helpers of the learning-curve figure (rules/report.smk).

The figure of a dataset draws every training run of it: each model's own runs
(a `checkpoint_of` entry has none: its model's runs are drawn once), one per
seed. The runs' summary.json files are the rule's inputs, since a run writes
summary.json last, after its metrics.tsv is complete; the metrics.tsv paths go
to `phrasenmt.report.learning_curves` as NAME:SEED=FILE, and the summary.json
paths themselves to `phrasenmt.report.training_runs` (the training-runs table).
"""

from __future__ import annotations

from phrasenmt.workflow import base as wf
from phrasenmt.workflow import runs
from phrasenmt.workflow.continuous import TABLE_ARCHS


def curve_models(config: dict, dataset: str) -> list[str]:
    """Models of `dataset` with training runs of their own, in config order."""
    owners = (wf.checkpoint_owner(config, m) for m in wf.models(config, dataset))
    return list(dict.fromkeys(owners))


def curve_runs(config: dict, dataset: str) -> list[tuple[str, int]]:
    """(model, seed) of every training run the figure draws."""
    return [(m, s) for m in curve_models(config, dataset)
            for s in runs.seeds(config, m)]


def curve_summaries(config: dict, dataset: str) -> list[str]:
    """The summary.json of every run drawn (written after its metrics.tsv)."""
    return [runs.run_file(dataset, m, s, "summary.json")
            for m, s in curve_runs(config, dataset)]


def curve_args(config: dict, dataset: str) -> str:
    """`--metrics NAME:SEED=FILE ...` and, if any, `--vmf NAME ...` (vMF models)."""
    metrics = " ".join(f"{m}:{s}={runs.run_file(dataset, m, s, 'metrics.tsv')}"
                       for m, s in curve_runs(config, dataset))
    vmf = [m for m in curve_models(config, dataset)
           if config["models"][m]["arch"] in TABLE_ARCHS]
    return f"--metrics {metrics}" + (f" --vmf {' '.join(vmf)}" if vmf else "")


def summary_run_args(config: dict, dataset: str) -> str:
    """`--summary NAME:SEED=FILE ...` of the training-runs table (the same runs)."""
    return "--summary " + " ".join(
        f"{m}:{s}={path}" for (m, s), path in zip(curve_runs(config, dataset),
                                                  curve_summaries(config, dataset),
                                                  strict=True))


def curve_targets(config: dict, dataset: str) -> list[str]:
    """The learning-curve figure and the training-runs table of `dataset` (none
    without models)."""
    if not curve_models(config, dataset):
        return []
    return [*(f"results/{dataset}/report/learning_curves.{ext}" for ext in ("png", "svg")),
            f"results/{dataset}/report/training_runs.md"]
