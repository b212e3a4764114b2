# Input and params functions of rules/npmt.smk, which includes this file at its top (the
# NPMT family; logic in phrasenmt.workflow.npmt). Those that rules of several stages use
# are in rules/common.smk.

from phrasenmt.workflow import npmt as wfn


NPMT_TRAINED = wf.name_regex(wfn.trained_models(config))


NPMT_MODELS = wf.model_regex(config, "npmt")


SWAN_GREEDY = wf.name_regex(wfn.greedy_models(config))


# attention models' second decoding: greedy for attn_rnn_reorder, beam for attn_rnn
ATTN_DECODINGS = wf.name_regex(wfn.attention_models(config))


def npmt_checkpoint(wildcards):
    """The averaged model a row decodes (a checkpoint_of row: its model's run of
    the same seed)."""
    owner = wf.checkpoint_owner(config, wildcards.model)
    return runs.run_file(wildcards.dataset, owner, wildcards.seed, "averaged.pt")


def npmt_lm(wildcards):
    return wfn.lm_inputs(config, wildcards.dataset, wildcards.model)


def npmt_lm_arg(wildcards, input):
    return f"--lm {input.lm}" if input.lm else ""


def beam_args(wildcards):
    return wfn.translate_args(config, wildcards.model, "beam")


def greedy_args(wildcards):
    return wfn.translate_args(config, wildcards.model, "greedy")


def decoding_args(wildcards):
    return wfn.translate_args(config, wildcards.model, wildcards.decoding)


def decoding_eval_inputs(wildcards):
    w = wildcards
    return wfn.eval_inputs(config, w.dataset, w.model, w.testset, w.decoding, w.seed)


def decoding_aggregate_inputs(wildcards):
    w = wildcards
    return wfn.aggregate_inputs(config, w.dataset, w.model, w.testset, w.decoding)


def decoding_baseline(wildcards):
    return wfn.aggregate_baseline(config, wildcards.dataset, wildcards.model)
