# Input and params functions of rules/continuous.smk, which includes this file at its
# top (the continuous-output family; logic in phrasenmt.workflow.continuous). Those that
# rules of several stages use are in rules/common.smk.

from phrasenmt.workflow import continuous as wfcont


CONTINUOUS_MODELS = wf.model_regex(config, "continuous")


FERTILITY_MODELS = wf.name_regex(wf.arch_models(config, wf.FERTILITY_CLASSES))


def continuous_spec(wildcards):
    return wfcont.continuous_spec(config, wildcards.dataset, wildcards.model)


def continuous_train_inputs(wildcards):
    """Word-level source, the model's target text, and its embedding tables."""
    ds, model = wildcards.dataset, wildcards.model
    files = {
        "src": expand_data("train", "src")(wildcards),
        "dev_src": expand_data("dev", "src")(wildcards),
        "tgt": wfcont.continuous_target(config, ds, model, "train"),
        "dev_tgt": wfcont.continuous_target(config, ds, model, "dev"),
    }
    arch = config["models"][model]["arch"]
    if arch in wfcont.TABLE_ARCHS:  # CoNMT: the un-joined text's tables
        files.update((k, v) for k, v in wfcont.table_files(ds, arch).items() if v)
    return files


def fertility_labels(split, kind):
    """Input function: fertility labels of a split, as the model's classes need."""

    def inner(wildcards):
        n = wf.FERTILITY_CLASSES[config["models"][wildcards.model]["arch"]]
        name = split.format(**wildcards)
        return f"{RESULTS}/{wildcards.dataset}/phrases/{name}.{kind}fert{n}"

    return inner


def fertility_test_labels(wildcards):
    """The test labels to score against: the aligner's, and gold ones if synthetic."""
    files = {"aligner": fertility_labels("{testset}", "")(wildcards)}
    if wf.source(config, wildcards.dataset) == "synthetic":
        files["gold"] = fertility_labels("{testset}", "gold.")(wildcards)
    return files


def fertility_test_label_args(wildcards, input):
    kinds = fertility_test_labels(wildcards)
    return " ".join(f"{kind}={getattr(input, kind)}" for kind in kinds)


def decode_model(wildcards):
    """The model file to decode: with the trained fertility module if it has one."""
    arch = config["models"][wildcards.model]["arch"]
    name = "fertility.pt" if arch in wf.FERTILITY_CLASSES else "averaged.pt"
    return runs.run_file(wildcards.dataset, wildcards.model, wildcards.seed, name)


def all_seed_hyps(wildcards):
    """(model, tokenized hypotheses) of every seed of every model on a test set."""
    ds, t = wildcards.dataset, wildcards.testset
    return [(m, runs.hyp_file(ds, m, s, t)) for m in wf.models(config, ds)
            for s in runs.seeds(config, m)]


def all_model_hyps(wildcards):
    return [path for _, path in all_seed_hyps(wildcards)]


def all_model_hyp_args(wildcards):
    return " ".join(f"{m}={path}" for m, path in all_seed_hyps(wildcards))


def fertility_tsv(dataset, model, seed, testset):
    return f"{RESULTS}/{dataset}/analysis/fertility/{testset}/{model}.seed{seed}.tsv"


def fertility_tsvs(wildcards):
    """Fertility scores of every seed of every fertility model."""
    ds, t = wildcards.dataset, wildcards.testset
    models = set(wf.arch_models(config, wf.FERTILITY_CLASSES))
    return [fertility_tsv(ds, m, s, t) for m in wf.models(config, ds) if m in models
            for s in runs.seeds(config, m)]


def continuous_run_dirs(wildcards):
    """(model, run folder) of every seed of the continuous family."""
    ds = wildcards.dataset
    return [(m, runs.run_dir(ds, m, s))
            for m in wf.family_models(config, "continuous", ds)
            for s in runs.seeds(config, m)]


def continuous_runs(wildcards):
    return [f"{d}/summary.json" for _, d in continuous_run_dirs(wildcards)]


def efficiency_args(wildcards):
    ds = wildcards.dataset
    models = wf.family_models(config, "continuous", ds)
    dirs = " ".join(f"{m}={d}" for m, d in continuous_run_dirs(wildcards))
    tgts = " ".join(f"{m}={wfcont.continuous_target(config, ds, m, 'train')}" for m in models)
    return f"--run {dirs} --train-tgt {tgts}"


def efficiency_targets(wildcards):
    ds = wildcards.dataset
    return [
        wfcont.continuous_target(config, ds, m, "train")
        for m in wf.family_models(config, "continuous", ds)
    ]


def family_order(wildcards):
    return ",".join(wf.family_models(config, "continuous", wildcards.dataset))
