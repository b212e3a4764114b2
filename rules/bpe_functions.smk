# Input and params functions of rules/bpe.smk, which includes this file at its top
# (joint BPE). Those that rules of several stages use are in rules/common.smk.


def bpe_merges(wildcards):
    return config["datasets"][wildcards.dataset]["bpe"]["merges"]
