# Input and params functions of rules/report.smk, which includes this file at its top
# (tables and figures; logic in phrasenmt.workflow.phrase_repr). Those that rules of
# several stages use are in rules/common.smk.

from phrasenmt.workflow import curves as wfcurves
from phrasenmt.workflow import phrase_repr as wfpr


def eval_jsons(wildcards):
    """All-seed evaluations of every (model, test set), for the tables."""
    ds = wildcards.dataset
    return [runs.aggregate_eval(ds, m, t)
            for m in wf.models(config, ds) for t in wf.testsets(config, ds)]


def seed_eval_jsons(wildcards):
    """Every seed's evaluation of every (model, test set), in seed order."""
    ds = wildcards.dataset
    return [runs.seed_eval(ds, m, s, t) for m in wf.models(config, ds)
            for t in wf.testsets(config, ds) for s in runs.seeds(config, m)]


def summary_args(wildcards):
    return " ".join(f"{m}={path}" for m, path in summary_paths(wildcards))


def ablation_inputs(wildcards):
    files = wfpr.ablation_files(config, wildcards.dataset)
    return {kind: [p for paths in files[kind].values() for p in paths]
            for kind in ("eval", "seed_eval", "summary", "hyp")}


def ablation_args(wildcards):
    files = wfpr.ablation_files(config, wildcards.dataset)
    return " ".join(
        f"--{kind.replace('_', '-')} "
        + " ".join(f"{m}={p}" for m, paths in files[kind].items() for p in paths)
        for kind in wfpr.ABLATION_KINDS
    )


def ablation_order(wildcards):
    return ",".join(wfpr.ablation_models(config, wildcards.dataset))


def curve_summaries(wildcards):
    """summary.json of every run the learning-curve figure draws."""
    return wfcurves.curve_summaries(config, wildcards.dataset)


def curve_args(wildcards):
    return wfcurves.curve_args(config, wildcards.dataset)


def summary_run_args(wildcards):
    return wfcurves.summary_run_args(config, wildcards.dataset)
