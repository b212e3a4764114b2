"""Workflow helpers of the claims table (rules/claims.smk).

The one place that maps (dataset, model, seed) to the files the claims table
reads. Per-seed runs follow the layout of training seeds (phrasenmt.workflow.runs):

    results/{dataset}/models/{model}/seed{seed}/summary.json
    results/{dataset}/translations/{model}/seed{seed}/{testset}.txt | .tok
    results/{dataset}/discourse/align/{testset}/{model}/seed{seed}.align
    results/{dataset}/discourse/contrastive/{set}/scores/{model}/seed{seed}.txt

Paths come from phrasenmt.workflow.runs where it has them; every kind is read
for every seed of the model.
"""

from __future__ import annotations

import copy
import functools
import re
import shlex

from phrasenmt.claims import claim_kinds, in_family, load_claims
from phrasenmt.workflow import base as wf
from phrasenmt.workflow import discourse, phrase_repr, runs
from phrasenmt.workflow import npmt as wfn
from phrasenmt.workflow.discourse import reference_alignment
from phrasenmt.workflow.documents import discourse_models

EXTS = ("md", "tex", "csv")


def model_seeds(config: dict, model: str) -> list[int]:
    """Training seeds of a model (phrasenmt.workflow.runs.seeds)."""
    return runs.seeds(config, model)


def run_file(config: dict, dataset: str, model: str, seed: int, kind: str) -> str:
    """The file of one kind (RUN_KINDS) of one training run on the first test set."""
    testset = wf.testsets(config, dataset)[0]
    if kind == "lingeval":
        return f"results/{dataset}/lingeval/scores/{model}/seed{seed}.txt"
    if kind == "summary":  # an NPMT+LM row's run is its checkpoint's
        owner = wf.checkpoint_owner(config, model)
        return runs.run_file(dataset, owner, seed, "summary.json")
    if kind == "align":
        return (f"results/{dataset}/discourse/align/{testset}/{model}/"
                f"seed{seed}.align")
    if kind == "contrastive":
        return discourse.score_file(dataset, contrastive_set(config, dataset), model,
                                    seed)
    if kind == "cxmi":
        return discourse.cxmi_file(dataset, model, seed)
    if kind == "hyp_beam":  # the main decoding's file where that is beam search
        return wfn.hyp_file(config, dataset, model, testset, "beam", seed, "txt")
    ext = {"hyp": "txt", "hyp_tok": "tok"}[kind]
    return runs.hyp_file(dataset, model, seed, testset, ext)


def _available(config: dict, dataset: str, kind: str,
               among: list[str] | None = None) -> set[str]:
    """Models of a dataset (those `among` when given) whose workflow writes files
    of this kind."""
    models = set(table_models(config, dataset, among))
    if kind == "lingeval":
        return models & set(phrase_repr.lingeval_models(config, dataset))
    if kind in ("align", "hyp_tok"):  # pronoun accuracy: the discourse rows,
        if not discourse.scores_pronouns(config, dataset):  # where the target has a list
            return set()
        return models & set(discourse_models(config, dataset))
    if kind == "hyp_beam":  # models the workflow decodes with beam search: the
        # main decoding, or the NPMT table's both decodings where it has rows
        npmt_table = bool(wfn.npmt_rows(config, dataset))
        return {m for m in models if wfn.main_decoding(config, m) == "beam"
                or (npmt_table and "beam" in wfn.decodings(config, dataset, m))}
    if kind == "cxmi":  # the document models (rules/documents_report.smk)
        return {m for m in models & set(discourse_models(config, dataset))
                if discourse.is_document(config, m)}
    if kind == "contrastive":  # the rows that score the dataset's first set
        if contrastive_set(config, dataset) is None:
            return set()
        return models & set(discourse.contrastive_models(config, dataset))
    return models


def contrastive_set(config: dict, dataset: str) -> str | None:
    """The contrastive set the claims table reads: the dataset's first."""
    sets = discourse.contrastive_sets(config, dataset)
    return next(iter(sets), None)


def table_models(config: dict, dataset: str, among: list[str] | None = None) -> list[str]:
    """The models of a claims table: the dataset's, or those of them `among` a
    family's (config order)."""
    models = wf.models(config, dataset)
    return models if among is None else [m for m in models if m in among]


def family_models(config: dict, dataset: str, family: str) -> list[str]:
    """The models of `families.<family>` that train on (or decode for) `dataset`."""
    return table_models(config, dataset, config.get("families", {}).get(family, []))


def table_regex(config: dict) -> str:
    """Names of the claims tables: `claims`, and `claims_<family>` per family."""
    names = ["claims", *(f"claims_{f}" for f in config.get("families", {}))]
    return "|".join(map(re.escape, names))


def table_family(config: dict, dataset: str, table: str) -> list[str] | None:
    """The models a claims table is restricted to: None for `claims` (all)."""
    if table == "claims":
        return None
    return family_models(config, dataset, table.removeprefix("claims_"))


@functools.cache
def _registry() -> tuple[dict, ...]:
    return tuple(load_claims())


def registry() -> list[dict]:
    """The claims registry, read once per Snakemake start (copies: callers may
    change them)."""
    return copy.deepcopy(list(_registry()))


def run_kinds(config: dict, dataset: str,
              among: list[str] | None = None) -> dict[str, list[str]]:
    """Per model of the table, the kinds of file some claim of it reads."""
    wanted: dict[str, list[str]] = {}
    claims = [c for c in registry()  # a family's table: its claims only
              if among is None or in_family(c, among)]
    available = {kind: _available(config, dataset, kind, among)
                 for claim in claims for kind in claim_kinds(claim)}
    controls = discourse.controls(config)
    for claim in claims:
        control = discourse.claim_control(claim, controls)
        baseline = discourse.claim_baseline(claim, controls)
        for kind in claim_kinds(claim):
            for model in (claim["system"], baseline, control):
                if model in available[kind]:
                    kinds = wanted.setdefault(model, [])
                    kinds += [] if kind in kinds else [kind]
    return wanted


def run_seeds(config: dict, model: str, kind: str) -> list[int]:
    """Seeds whose files of this kind the claims table reads: all of them."""
    return model_seeds(config, model)


def dataset_files(config: dict, dataset: str) -> dict[str, str]:
    """Dataset-level inputs: reference, source, Lingeval97 items, alignments."""
    src, tgt = wf.langs(config, dataset)
    testset = wf.testsets(config, dataset)[0]
    data = f"results/{dataset}/data/{testset}"
    files = {"ref": f"{data}.ref.{tgt}", "src": f"{data}.{src}"}
    if phrase_repr.lingeval_json(config, dataset) and phrase_repr.lingeval_models(config, dataset):
        files["lingeval"] = phrase_repr.lingeval_json(config, dataset)
    if discourse_models(config, dataset) and discourse.scores_pronouns(config, dataset):
        files["pronoun_ref"] = f"{data}.{tgt}"
        files["pronoun_ref_align"] = reference_alignment(dataset, testset)
    cset = contrastive_set(config, dataset)
    if cset is not None:
        files["contrastive"] = f"{discourse.contrastive_root(dataset, cset)}/items.json"
    return files


def claims_inputs(config: dict, dataset: str,
                  among: list[str] | None = None) -> dict[str, list[str]]:
    """Every input of the claims table of a dataset (of a family's models), by kind."""
    inputs = {name: [path] for name, path in dataset_files(config, dataset).items()}
    for model, kinds in run_kinds(config, dataset, among).items():
        for kind in kinds:
            files = [run_file(config, dataset, model, s, kind)
                     for s in run_seeds(config, model, kind)]
            inputs[kind] = list(dict.fromkeys(inputs.get(kind, []) + files))
    return inputs


def claims_args(config: dict, dataset: str, among: list[str] | None = None) -> str:
    """Options of `phrasenmt.report.claims` for a dataset (outputs left out); with
    `among`, the table of the claims whose models are all among those."""
    args = ["--dataset", dataset, "--direction", "-".join(wf.langs(config, dataset)),
            "--models", *table_models(config, dataset, among)]
    if among is not None:
        args.append("--family-only")
    if wf.source(config, dataset) == "synthetic":
        args.append("--synthetic")
    shown = set(table_models(config, dataset, among))
    pairs = [f"{control}={model}" for model, control in
             discourse.controls(config).items() if {model, control} <= shown]
    if pairs:
        args += ["--control", *pairs]
    for name, path in dataset_files(config, dataset).items():
        args += [f"--{name.replace('_', '-')}", path]
    for model, kinds in run_kinds(config, dataset, among).items():
        for seed in model_seeds(config, model):
            files = [f"{k}={run_file(config, dataset, model, seed, k)}" for k in kinds
                     if seed in run_seeds(config, model, k)]
            args += ["--run", model, str(seed), *files]
    return shlex.join(args)


def claims_targets(config: dict, dataset: str) -> list[str]:
    """The claims table of a dataset with models, and one per family trained on it."""
    if not wf.models(config, dataset):
        return []
    names = ["claims"] + [f"claims_{family}" for family in config.get("families", {})
                          if family_models(config, dataset, family)]
    return [f"results/{dataset}/report/{name}.{ext}" for name in names for ext in EXTS]


def table_inputs(config: dict, dataset: str, table: str) -> dict[str, list[str]]:
    """The files a claims table (`claims` or `claims_<family>`) reads."""
    return claims_inputs(config, dataset, table_family(config, dataset, table))


def table_args(config: dict, dataset: str, table: str) -> str:
    """The options of a claims table (`claims` or `claims_<family>`)."""
    return claims_args(config, dataset, table_family(config, dataset, table))
