# Input and params functions of rules/translate.smk, which includes this file at its top
# (decoding; logic in phrasenmt.workflow.phrase_repr). Those that rules of several
# stages use are in rules/common.smk.

from phrasenmt.workflow import phrase_repr as wfpr


def test_side_files(wildcards):
    files = wfpr.side_inputs(config, wildcards.dataset, wildcards.model, [wildcards.testset])
    return [f for paths in files.values() for f in paths]


def test_side_args(wildcards):
    return wfpr.side_args(config, wildcards.dataset, wildcards.model, [wildcards.testset])
