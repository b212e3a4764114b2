# Input and params functions of rules/align.smk, which includes this file at its top
# (word alignment). Those that rules of several stages use are in rules/common.smk.


def heldout_splits(wildcards):
    """Dev and test splits aligned with the training text: {split: (src, tgt)}."""
    splits = ["dev", *wf.testsets(config, wildcards.dataset)]
    return {s: (expand_data(s, "src")(wildcards), expand_data(s, "tgt")(wildcards))
            for s in splits}


def align_inputs(wildcards):
    files = train_pair(wildcards)
    for split, (src, tgt) in heldout_splits(wildcards).items():
        files.update({f"{split}_src": src, f"{split}_tgt": tgt})
    return files


def aligner_args(wildcards):
    return wf.aligner_args(config)


def heldout_align_args(wildcards):
    return " ".join(f"--heldout {split} {src} {tgt}"
                    for split, (src, tgt) in heldout_splits(wildcards).items())
