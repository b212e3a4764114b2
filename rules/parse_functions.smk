# Input and params functions of rules/parse.smk, which includes this file at its top
# (parses and phrase segmentations; logic in phrasenmt.workflow.phrase_repr). Those that
# rules of several stages use are in rules/common.smk.


def src_lang(wildcards):
    return wf.langs(config, wildcards.dataset)[0]


def stanza_dir_arg(wildcards):
    return f"--stanza-dir {config['stanza_dir']}" if config.get("stanza_dir") else ""


def segment_inputs(wildcards):
    """The BPE'd source, plus its trees for parse-based phrases."""
    src = wf.langs(config, wildcards.dataset)[0]
    inputs = {"bpe": f"{RESULTS}/{wildcards.dataset}/bpe/{wildcards.split}.bpe.{src}"}
    if wildcards.segmentation == "parse":
        inputs["trees"] = f"{RESULTS}/{wildcards.dataset}/parse/{wildcards.split}.trees"
    return inputs


def segment_trees_arg(wildcards, input):
    return f"--trees {input.trees}" if "trees" in input.keys() else ""
