# Input and params functions of rules/evaluate.smk, which includes this file at its top
# (evaluation). Those that rules of several stages use are in rules/common.smk.


def first_hyps(wildcards):
    """Tokenized hypotheses of every model's first seed on one test set."""
    ds, t = wildcards.dataset, wildcards.testset
    return {m: runs.hyp_file(ds, m, runs.first_seed(config, m), t)
            for m in wf.models(config, ds)}


def testset_hyps(wildcards):
    return list(first_hyps(wildcards).values())


def length_hyp_args(wildcards):
    return " ".join(f"{m}={path}" for m, path in first_hyps(wildcards).items())


def seed_hyps(ext):
    """Input function: hypotheses (ext txt or tok) of every seed of the model."""

    def inner(wildcards):
        ds, m, t = wildcards.dataset, wildcards.model, wildcards.testset
        return runs.per_seed(config, m, lambda s: runs.hyp_file(ds, m, s, t, ext))

    return inner


def baseline_seed_hyps(wildcards):
    """Detokenized hypotheses of every seed of the dataset's baseline."""
    ds, t, base = wildcards.dataset, wildcards.testset, baseline_name(wildcards)
    return runs.per_seed(config, base, lambda s: runs.hyp_file(ds, base, s, t, "txt"))
