# Input and params functions of rules/embeddings.smk, which includes this file at its
# top (fastText embeddings; logic in phrasenmt.workflow.continuous). Those that rules of
# several stages use are in rules/common.smk.

from phrasenmt.workflow import continuous as wfcont


def extra_mono_arg(wildcards):
    extra = config["embeddings"].get("extra_mono")
    return f"--extra-mono {extra}" if extra else ""


def embedding_dim(wildcards):
    """fastText dimension of a dataset: its continuous models' table size."""
    return wfcont.embedding_dim(config, wildcards.dataset)


def output_dir(wildcards, output):
    """The folder of a rule's first output (for CLIs that take an --out-dir)."""
    return str(Path(output[0]).parent)
