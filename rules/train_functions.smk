# Input and params functions of rules/train.smk, which includes this file at its top
# (training; logic in phrasenmt.workflow.phrase_repr). Those that rules of several
# stages use are in rules/common.smk.

from phrasenmt.workflow import phrase_repr as wfpr


def train_side_files(wildcards):
    files = wfpr.side_inputs(config, wildcards.dataset, wildcards.model, ["train", "dev"])
    return [f for paths in files.values() for f in paths]


def train_side_args(wildcards):
    return wfpr.side_args(config, wildcards.dataset, wildcards.model, ["train", "dev"])
