# Input and params functions of rules/documents_report.smk, which includes this file at
# its top (the discourse evaluation; logic in phrasenmt.workflow.discourse). Those that
# rules of several stages use are in rules/common.smk.

import shlex
from phrasenmt.workflow import documents as wfd
from phrasenmt.workflow import discourse as wfdis


def align_args(wildcards):
    return wfdis.align_args(config)


def lsa_args(wildcards):
    return wfdis.lsa_args(config)


def discourse_hyps(wildcards):
    return list(wfdis.hypotheses(config, wildcards.dataset, wildcards.testset).values())


def discourse_hyp_args(wildcards):
    hyps = wfdis.hypotheses(config, wildcards.dataset, wildcards.testset)
    return " ".join(f"{m}={path}" for m, path in hyps.items())


def discourse_order(wildcards):
    return ",".join(wfd.discourse_models(config, wildcards.dataset))


def discourse_evals(wildcards):
    ds = wildcards.dataset
    return [runs.aggregate_eval(ds, m, t) for m in wfd.discourse_models(config, ds)
            for t in wf.testsets(config, ds)]


def discourse_notes(wildcards):
    return shlex.join(f"--note={n}" for n in wfdis.notes(config, wildcards.dataset))


def contrastive_tsv_args(wildcards):
    ds = wildcards.dataset
    return " ".join(f"{s}={wfdis.contrastive_tsv(ds, s)}"
                    for s in wfdis.contrastive_sets(config, ds))


def contrastive_tsvs(wildcards):
    ds = wildcards.dataset
    return [wfdis.contrastive_tsv(ds, s) for s in wfdis.contrastive_sets(config, ds)]


def pronoun_tsvs(wildcards):
    ds, t = wildcards.dataset, wildcards.testset
    return [wfdis.first_pronoun_tsv(config, ds, t, m)
            for m in wfd.discourse_models(config, ds)]


def han_evals(wildcards):
    ds = wildcards.dataset
    return [runs.aggregate_eval(ds, m, t) for m in wfd.han_models(config, ds)
            for t in wf.testsets(config, ds)]


def han_order(wildcards):
    return ",".join(wfd.han_models(config, wildcards.dataset))


def doc_sweep_evals(wildcards):
    """Every seed's BLEU of every point of a sweep (first test set)."""
    ds, t = wildcards.dataset, first_testset(wildcards)
    return [runs.seed_eval(ds, m, s, t)
            for m in wfdis.sweep_models(config, wildcards.sweep)
            for s in runs.seeds(config, m)]


def doc_sweep_pronouns(wildcards):
    ds, testset = wildcards.dataset, first_testset(wildcards)
    return [wfdis.first_pronoun_tsv(config, ds, testset, m)
            for m in wfdis.sweep_models(config, wildcards.sweep)]


def doc_sweep_args(wildcards):
    parameter = shlex.quote(wfdis.sweep_parameter(config, wildcards.sweep))
    points = wfdis.sweep_point_args(config, wildcards.sweep)
    return f"--parameter {parameter} {points}"


def cxmi_inputs(wildcards):
    return wfdis.cxmi_inputs(config, wildcards.dataset)


def cxmi_args(wildcards, input):
    """--test-files, and --item-files where the dataset has a contrastive set."""
    args = ["--test-files", input.test_src, input.test_tgt, input.test_docs]
    if "pairs_items" in input.keys():
        args += ["--item-files", input.pairs_items, input.pairs_src, input.pairs_tgt,
                 input.pairs_context]
    return shlex.join(args)


def context_usage_order(wildcards):
    return ",".join(wfdis.context_usage_models(config, wildcards.dataset))


def context_usage_inputs(wildcards):
    ds = wildcards.dataset
    rows = wfdis.context_usage_models(config, ds)
    first = wf.testsets(config, ds)[0]
    files = wfdis.context_usage_files(config, ds)
    return {"item_file": files["items"],
            "scores": [path for _, path in files["scores"]],
            "evals": [runs.aggregate_eval(ds, m, first) for m in rows],
            "cxmi": [path for _, path in files["cxmi"]]}


def context_usage_args(wildcards):
    ds = wildcards.dataset
    rows = wfdis.context_usage_models(config, ds)
    files = wfdis.context_usage_files(config, ds)
    controls = [f"{m}={wfdis.control_of(config, m)}" for m in rows
                if wfdis.control_of(config, m) is not None]
    return shlex.join(["--scores", *(f"{m}={p}" for m, p in files["scores"]),
                       "--cxmi", *(f"{m}={p}" for m, p in files["cxmi"])]
                      + (["--control", *controls] if controls else []))
