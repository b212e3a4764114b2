# Input and params functions of rules/documents.smk, which includes this file at its top
# (the document-level family; logic in phrasenmt.workflow.documents and .discourse).
# Those that rules of several stages use are in rules/common.smk.

from phrasenmt.workflow import documents as wfd
from phrasenmt.workflow import discourse as wfdis


DOCUMENT_MODELS = wf.model_regex(config, "documents")


CONTRASTIVE_SETS = wf.name_regex(
    sorted({s for ds in config["datasets"] for s in wfdis.contrastive_sets(config, ds)})
)


def docs_file(split):
    """Input function: the cleaned document ids of `split` ('{testset}' allowed)."""

    def inner(wildcards):
        return f"{RESULTS}/{wildcards.dataset}/data/{split.format(**wildcards)}.docs"

    return inner


def expand_bpe_vocab(side):
    """Input function: the BPE vocabulary of the source or target language."""

    def inner(wildcards):
        lang = wf.langs(config, wildcards.dataset)[side == "tgt"]
        return f"{RESULTS}/{wildcards.dataset}/bpe/vocab.{lang}"

    return inner


def step1_checkpoint(wildcards):
    w = wildcards
    return wfd.step1_checkpoint(config, w.dataset, w.model, w.seed)


def contrastive_inputs(wildcards):
    return list(wfdis.contrastive_files(config, wildcards.dataset, wildcards.cset).values())


def contrastive_prepare_args(wildcards):
    return wfdis.contrastive_args(config, wildcards.dataset, wildcards.cset)


def contrastive_context(wildcards):
    """The BPE'd context of the pairs, for a document-level model (else none)."""
    if not wfd.is_document(config, wildcards.model):
        return []
    return f"{wfdis.contrastive_root(wildcards.dataset, wildcards.cset)}/pairs.ctx.bpe.jsonl"


def contrastive_context_arg(wildcards, input):
    return f"--context {input.context}" if input.context else ""


def contrastive_scores(wildcards):
    return wfdis.contrastive_scores(config, wildcards.dataset, wildcards.cset)


def contrastive_score_args(wildcards):
    return wfdis.contrastive_score_args(config, wildcards.dataset, wildcards.cset)
