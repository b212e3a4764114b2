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
