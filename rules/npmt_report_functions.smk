# Input and params functions of rules/npmt_report.smk, which includes this file at its
# top (NPMT analyses and tables; logic in phrasenmt.workflow.npmt). Those that rules of
# several stages use are in rules/common.smk.

import shlex
from phrasenmt.workflow import npmt as wfn


def npmt_table_evals(wildcards):
    w = wildcards
    evals = wfn.table_evals(config, w.dataset, w.testset)
    return [*evals.values(), *(p for _, p in wfn.table_seed_evals(config, w.dataset,
                                                                    w.testset))]


def npmt_table_args(wildcards):
    """--eval, --seed-eval, --decode, --baseline and --note options of the table."""
    ds = wildcards.dataset
    evals = wfn.table_evals(config, ds, wildcards.testset)
    seed_evals = wfn.table_seed_evals(config, ds, wildcards.testset)
    args = ["--eval", *(f"{k}={v}" for k, v in evals.items()), "--seed-eval",
            *(f"{k}={v}" for k, v in seed_evals), "--decode"]
    args += [f"{m}={label}" for m, label in wfn.decode_labels(config, ds).items()]
    base = wfn.npmt_baseline(config, ds)
    args += ["--baseline", base] if base else []
    for note in wfn.table_notes(config, ds):
        args += ["--note", note]
    return shlex.join(args)


def npmt_table_order(wildcards):
    return ",".join(wfn.table_models(config, wildcards.dataset))


def segment_files(wildcards):
    """Greedy segmentations of every SWAN row's first seed."""
    w = wildcards
    return {m: wfn.segments_file(w.dataset, m, w.testset, runs.first_seed(config, m))
            for m in wfn.segment_models(config, w.dataset)}


def segment_args(wildcards):
    return " ".join(f"{m}={path}" for m, path in segment_files(wildcards).items())


def segment_order(wildcards):
    return ",".join(wfn.segment_models(config, wildcards.dataset))


def reordering_hyps(wildcards):
    return wfn.reordering_hyps(config, wildcards.dataset, wildcards.testset)


def reordering_args(wildcards):
    return " ".join(f"{k}={v}" for k, v in reordering_hyps(wildcards).items())


def main_segments(wildcards):
    main = wfn.npmt_main(config, wildcards.dataset)
    return wfn.segments_file(wildcards.dataset, main, first_testset(wildcards),
                             runs.first_seed(config, main))


def main_gates(wildcards):
    testset = first_testset(wildcards)
    return f"{RESULTS}/{wildcards.dataset}/analysis/npmt_gates_{testset}.tsv"


def main_checkpoint(wildcards):
    """The averaged model of the gates figure: the NPMT model's first seed."""
    main = wfn.npmt_main(config, wildcards.dataset)
    return runs.run_file(wildcards.dataset, main, runs.first_seed(config, main),
                         "averaged.pt")


def main_name(wildcards):
    return wfn.npmt_main(config, wildcards.dataset)


def sweep_evals(wildcards):
    return [path for _, path in wfn.sweep_evals(config, wildcards.dataset, wildcards.sweep)]


def sweep_args(wildcards):
    sweep = config["sweeps"][wildcards.sweep]
    evals = wfn.sweep_evals(config, wildcards.dataset, wildcards.sweep)
    args = ["--name", wildcards.sweep, "--key", sweep["key"], "--base", sweep["model"],
            "--eval", *(f"{k}={v}" for k, v in evals)]
    return shlex.join(args)
