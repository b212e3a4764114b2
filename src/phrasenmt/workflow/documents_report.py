"""The inputs and params of the discourse evaluation of document-level models.

The contrastive sets of rules/documents.smk (prepared, scored with and without
context) and the analyses and tables of rules/documents_report.smk: which
hypotheses, score files and BLEU JSONs each reads and the options it passes.
Which sets, rows and files there are is decided in `documents` and `discourse`.
"""

from __future__ import annotations

import shlex

from phrasenmt.config_entries import SYNTHETIC_SET
from phrasenmt.workflow import base as wf
from phrasenmt.workflow import corpus, discourse, documents, runs

ALL_TYPES = "all"  # cxmi --type, context_usage --category: every item

# -- contrastive sets (rules/documents.smk) -------------------------------------


def contrastive_set_names(config: dict) -> list[str]:
    """Every contrastive set of every dataset (the {cset} wildcard's values)."""
    return sorted({s for ds in config["datasets"]
                   for s in discourse.contrastive_sets(config, ds)})


def contrastive_inputs(config: dict, dataset: str, cset: str) -> list[str]:
    return list(discourse.contrastive_files(config, dataset, cset).values())


def contrastive_prepare_args(config: dict, dataset: str, cset: str) -> str:
    return discourse.contrastive_args(config, dataset, cset)


def contrastive_context(config: dict, dataset: str, model: str,
                        cset: str) -> str | list:
    """The BPE'd context of the pairs, for a document-level model (else none)."""
    if not documents.is_document(config, model):
        return []
    return f"{discourse.contrastive_root(dataset, cset)}/pairs.ctx.bpe.jsonl"


def contrastive_context_arg(input) -> str:
    return f"--context {input.context}" if input.context else ""


def contrastive_scores(config: dict, dataset: str, cset: str) -> list[str]:
    return discourse.contrastive_scores(config, dataset, cset)


def contrastive_score_args(config: dict, dataset: str, cset: str) -> str:
    return discourse.contrastive_score_args(config, dataset, cset)


# -- analyses and tables (rules/documents_report.smk) ---------------------------


def hyps(config: dict, dataset: str, testset: str) -> list[str]:
    """Every discourse row's hypotheses of one test set (cohesion reads them)."""
    return list(discourse.hypotheses(config, dataset, testset).values())


def hyp_args(config: dict, dataset: str, testset: str) -> str:
    return " ".join(f"{m}={path}" for m, path in
                    discourse.hypotheses(config, dataset, testset).items())


def order(config: dict, dataset: str) -> str:
    """`--order` of the discourse tables: their rows."""
    return ",".join(documents.discourse_models(config, dataset))


def evals(config: dict, dataset: str) -> list[str]:
    """All-seed BLEU of every discourse row on every test set."""
    return [runs.aggregate_eval(dataset, m, t)
            for m in documents.discourse_models(config, dataset)
            for t in wf.testsets(config, dataset)]


def notes(config: dict, dataset: str) -> str:
    return shlex.join(f"--note={n}" for n in discourse.notes(config, dataset))


def contrastive_tsvs(config: dict, dataset: str) -> list[str]:
    return [discourse.contrastive_tsv(dataset, s)
            for s in discourse.contrastive_sets(config, dataset)]


def contrastive_tsv_args(config: dict, dataset: str) -> str:
    return " ".join(f"{s}={discourse.contrastive_tsv(dataset, s)}"
                    for s in discourse.contrastive_sets(config, dataset))


def pronoun_tsvs(config: dict, dataset: str, testset: str) -> list[str]:
    return [discourse.first_pronoun_tsv(config, dataset, testset, m)
            for m in documents.discourse_models(config, dataset)]


def han_evals(config: dict, dataset: str) -> list[str]:
    return [runs.aggregate_eval(dataset, m, t)
            for m in documents.han_models(config, dataset)
            for t in wf.testsets(config, dataset)]


def han_order(config: dict, dataset: str) -> str:
    return ",".join(documents.han_models(config, dataset))


def sweep_evals(config: dict, dataset: str, sweep: str) -> list[str]:
    """Every seed's BLEU of every point of a sweep (first test set)."""
    first = wf.testsets(config, dataset)[0]
    return [runs.seed_eval(dataset, m, s, first)
            for m in discourse.sweep_models(config, sweep)
            for s in runs.seeds(config, m)]


def sweep_pronouns(config: dict, dataset: str, sweep: str) -> list[str]:
    """Pronoun accuracy of each point of a sweep: none where the target
    language has no pronoun list (the table's column then reads "–")."""
    if not discourse.scores_pronouns(config, dataset):
        return []
    first = wf.testsets(config, dataset)[0]
    return [discourse.first_pronoun_tsv(config, dataset, first, m)
            for m in discourse.sweep_models(config, sweep)]


def sweep_args(config: dict, sweep: str) -> str:
    parameter = shlex.quote(discourse.sweep_parameter(config, sweep))
    return f"--parameter {parameter} {discourse.sweep_point_args(config, sweep)}"


def own_items(config: dict, dataset: str) -> bool:
    """Whether the dataset's first contrastive set is the synthetic corpus's own
    (pronoun_gender items by distance), not a set of the user's."""
    return next(iter(discourse.contrastive_sets(config, dataset))) == SYNTHETIC_SET


def cxmi_args(config: dict, dataset: str, input) -> str:
    """--test-files, and --item-files where the dataset has a contrastive set:
    the synthetic set's pronoun_gender items, or every test item of a set of the
    user's (ContraPro, Bawden, Voita: their types are the set's own)."""
    args = ["--test-files", input.test_src, input.test_tgt, input.test_docs]
    if "pairs_items" in corpus.names(input):
        args += ["--item-files", input.pairs_items, input.pairs_src, input.pairs_tgt,
                 input.pairs_context]
        if not own_items(config, dataset):
            args += ["--type", ALL_TYPES]
    return shlex.join(args)


def context_usage_order(config: dict, dataset: str) -> str:
    return ",".join(discourse.context_usage_models(config, dataset))


def context_usage_inputs(config: dict, dataset: str) -> dict:
    """Every row's BLEU and CXMI, and (with a contrastive set) the first set's
    items and every row's scores of them."""
    rows = discourse.context_usage_models(config, dataset)
    first = wf.testsets(config, dataset)[0]
    files = discourse.context_usage_files(config, dataset)
    items = {"item_file": files["items"]} if files["items"] is not None else {}
    return {**items, "scores": [path for _, path in files["scores"]],
            "evals": [runs.aggregate_eval(dataset, m, first) for m in rows],
            "cxmi": [path for _, path in files["cxmi"]],
            "summaries": [path for _, path in summaries(config, dataset, rows)]}


def summaries(config: dict, dataset: str, rows: list[str]) -> list[tuple[str, str]]:
    """(row, the summary.json of the checkpoint it decodes) for every seed."""
    return [(m, wf.summary_path(config, dataset, m, s)) for m in rows
            for s in runs.seeds(config, m)]


def context_usage_args(config: dict, dataset: str) -> str:
    """--items and --scores (with a contrastive set), --cxmi `MODEL=FILE` lists,
    and each row's --control."""
    rows = discourse.context_usage_models(config, dataset)
    files = discourse.context_usage_files(config, dataset)
    controls = [f"{m}={discourse.control_of(config, m)}" for m in rows
                if discourse.control_of(config, m) is not None]
    items = (["--items", files["items"], "--scores",
              *(f"{m}={p}" for m, p in files["scores"])]
             if files["items"] is not None else [])
    if items and not own_items(config, dataset):
        items += ["--category", ALL_TYPES]
    marks = ["--summary", *(f"{m}={p}" for m, p in summaries(config, dataset, rows))]
    return shlex.join([*items, "--cxmi", *(f"{m}={p}" for m, p in files["cxmi"])]
                      + (["--control", *controls] if controls else []) + marks)
