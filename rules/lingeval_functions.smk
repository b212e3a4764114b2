# Input and params functions of rules/lingeval.smk, which includes this file at its top
# (Lingeval97 analysis; logic in phrasenmt.workflow.phrase_repr). Those that rules of
# several stages use are in rules/common.smk.

from phrasenmt.workflow import phrase_repr as wfpr


def lingeval_json_input(wildcards):
    return wfpr.lingeval_json(config, wildcards.dataset)


def lingeval_prepare_args(wildcards):
    ds = config["datasets"][wildcards.dataset]
    return " ".join(flag for flag, on in (("--tokenize", ds["tokenize"]),
                                          ("--lowercase", ds["lowercase"])) if on)


def lingeval_segment_inputs(wildcards):
    root = f"{RESULTS}/{wildcards.dataset}/lingeval"
    inputs = {"bpe": f"{root}/pairs.bpe.en"}
    if wildcards.segmentation == "parse":
        inputs["trees"] = f"{root}/pairs.trees"
    return inputs


def lingeval_side_files(wildcards):
    seg = wfpr.segmentation(config, wildcards.model)
    return [f"{RESULTS}/{wildcards.dataset}/lingeval/pairs.{seg}.phrases"] if seg else []


def lingeval_side_args(wildcards, input):
    return f"--side phrases={input.side[0]}" if input.side else ""


def lingeval_score_file(dataset, model, seed):
    return f"{RESULTS}/{dataset}/lingeval/scores/{model}/seed{seed}.txt"


def lingeval_first_scores(wildcards):
    """Agreement scores of every model's first seed (the figure shows those)."""
    ds = wildcards.dataset
    return {m: lingeval_score_file(ds, m, runs.first_seed(config, m))
            for m in wfpr.lingeval_models(config, ds)}


def lingeval_scores(wildcards):
    return list(lingeval_first_scores(wildcards).values())


def lingeval_score_args(wildcards):
    return " ".join(f"{m}={f}" for m, f in lingeval_first_scores(wildcards).items())
