"""Workflow helpers of the NPMT family (Huang et al. 2018) and of sweep tables.

Decodings: every row of the NPMT table (Tables 1/3/5 of the paper: the attention
baseline, NPMT, its ablations, NPMT+LM) is decoded greedily and with beam search.
``translations/{model}/seed{seed}/{testset}.tok`` stays what the main results table reads:
beam search for NPMT-family models, greedy for the continuous family's attn_rnn
(as before). The other decoding goes next to it: ``{testset}.greedy.tok`` (NPMT
family; SWAN models also write ``{testset}.greedy.segments``) or
``{testset}.beam.tok`` (the attention baseline). An LM row is decoded with beam
search only (the paper's NPMT+LM has no greedy number). The segment analyses read
the greedy segmentations, as the paper's Table 2 does.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from phrasenmt.io import InputError
from phrasenmt.workflow import base as wf
from phrasenmt.workflow import runs

DECODINGS = ("greedy", "beam")
LM_ORDER = 4  # the paper's 4-gram KenLM model of the target training text

# Decoding defaults of the NPMT presets (the paper's: de-en beam 10, lambda1 1.2,
# lambda2 0.2; en-de 1, 0.15; en-vi 0.7, 0.15; tiny: beam 4, lambda1 1.0,
# lambda2 0.2), mirrored so that building the DAG does not import torch; tests
# check them against the registry. lambda2 applies only to a row with `lm: true`
# (without an LM it is 0, as the paper says).
NPMT_DECODE = {"tiny": {"beam": 4, "lambda1": 1.0, "lambda2": 0.2},
               "iwslt": {"beam": 10, "lambda1": 1.2, "lambda2": 0.2},
               "iwslt_en_de": {"beam": 10, "lambda1": 1.0, "lambda2": 0.15},
               "iwslt_en_vi": {"beam": 10, "lambda1": 0.7, "lambda2": 0.15}}
NPMT_ONLY_KEYS = ("lambda1", "lambda2", "lm")


def is_swan(config: dict, model: str) -> bool:
    """Whether a model emits segments (SWAN output) and decodes with Eq. 3."""
    return config["models"][model]["arch"] in wf.SWAN_ARCHS


def decode_settings(config: dict, model: str) -> dict:
    """Beam size, lenpen, lambda1, lambda2, lm of a model: global < preset < own."""
    entry = config["models"][model]
    own = entry.get("decode", {})
    out = {"beam": config["decode"]["beam"], "lenpen": config["decode"]["lenpen"],
           "lm": False}
    if is_swan(config, model):
        preset = dict(NPMT_DECODE[entry["preset"]])
        preset.update({k: v for k, v in entry.get("model", {}).items() if k in preset})
        out.update(preset)
        if not own.get("lm", False):
            out["lambda2"] = 0.0  # no external LM: lambda2 = 0 (Section 3.1)
    out.update(own)
    return out


def translate_args(config: dict, model: str, decoding: str) -> str:
    """Search options of phrasenmt.translate for one decoding of a model.

    Greedy decoding is the model's own argmax (lambda1 = lambda2 = 0): Eq. 3 is
    the paper's beam-search score.
    """
    s = decode_settings(config, model)
    swan = is_swan(config, model)
    if decoding == "greedy":
        args = ["--beam", 1, *(["--lambda1", 0, "--lambda2", 0] if swan else [])]
    elif swan:
        args = ["--beam", s["beam"], "--lambda1", s["lambda1"], "--lambda2",
                s["lambda2"]]
    else:  # greedy search (beam 1) has no length penalty
        args = ["--beam", s["beam"], *(["--lenpen", s["lenpen"]] if s["beam"] != 1
                                       else [])]
    return shlex.join(map(str, args))


def lm_path(dataset: str) -> str:
    """The dataset's n-gram LM of the target training text."""
    return f"results/{dataset}/lm/target.{LM_ORDER}gram.bin"


def lm_inputs(config: dict, dataset: str, model: str) -> list[str]:
    """The LM file a model's beam search reads ([] without decode.lm)."""
    return [lm_path(dataset)] if wf.uses_lm(config, model) else []


def lm_arg(input) -> str:
    """`--lm FILE` of a beam search that reads the LM."""
    return f"--lm {input.lm}" if input.lm else ""


def checkpoint(config: dict, dataset: str, model: str, seed: int | str) -> str:
    """The averaged model a row decodes (a checkpoint_of row: its model's run of
    the same seed)."""
    return runs.run_file(dataset, wf.checkpoint_owner(config, model), seed, "averaged.pt")


def check_npmt_models(config: dict) -> None:
    """Checks the schema cannot express: which archs take which decode keys."""
    for name, entry in config["models"].items():
        where = f"models.{name}"
        if entry.get("checkpoint_of") and entry["arch"] not in wf.NPMT_ARCHS:
            raise InputError(f"{where}.checkpoint_of: only NPMT-family models "
                             f"({', '.join(wf.NPMT_ARCHS)}) support it", "config")
        own = entry.get("decode", {})
        if own and wf.model_family(config, name) == "continuous" and wf.decode_keys(
                config, name):  # the continuous family's attention RNN
            tables = [ds for ds in wf.models_datasets(config, name)
                      if npmt_baseline(config, ds) == name and npmt_rows(config, ds)]
            key = next(iter(own))
            if not tables:
                raise InputError(f"{where}.decode.{key}: this attention RNN decodes "
                                 "greedily, as Kumar & Tsvetkov's baseline; its decode "
                                 "keys set the beam search of the NPMT table's "
                                 "baseline row, and it is the baseline of no NPMT table")
            if "lenpen" in own and decode_settings(config, name)["beam"] == 1:
                raise InputError(f"{where}.decode.lenpen: has no effect with beam 1 "
                                 "(greedy search); set decode.beam above 1 too")
        if entry["arch"] not in wf.SWAN_ARCHS:
            bad = [k for k in NPMT_ONLY_KEYS if k in own]
            if bad:
                raise InputError(f"{where}.decode.{bad[0]}: applies to NPMT models "
                                 f"({', '.join(wf.SWAN_ARCHS)}) only", "config")
        elif own.get("lambda2", 0) > 0 and not own.get("lm", False):
            raise InputError(f"{where}.decode.lambda2: above 0 needs decode.lm: true "
                             "(lambda2 weighs the external LM)", "config")
        elif own.get("beam") == 1:
            s = decode_settings(config, name)
            weights = [f"{k} {s[k]:g}" for k in ("lambda1", "lambda2") if s[k]]
            if weights or s["lm"]:
                raise InputError(
                    f"{where}.decode.beam: 1 is the greedy segment search, the "
                    "model's own argmax, which reads no Eq. 3 weights "
                    f"({', '.join(weights) or 'lm'}); the NPMT table decodes "
                    "greedily beside the beam search already: give a beam above 1, "
                    "or lambda1 0 and lambda2 0")


def check_search_defaults(config: dict) -> None:
    """An NPMT model's `model.beam`, `model.lambda1` and `model.lambda2` are
    its beam search's defaults (`decode_settings`): each must be read by a
    decoding of the model, its own or a checkpoint_of entry's, that gives no
    decode key of the same name, and lambda2 by one that decodes with the LM
    (without one it is 0). A default every decoding overrides is refused."""
    models = config["models"]
    swept = {m: s for s in wf.sweeps(config) for _, m in wf.sweep_points(config, s)
             if m != config["sweeps"][s]["model"]}
    for name, entry in models.items():
        if entry.get("checkpoint_of") or entry["arch"] not in wf.SWAN_ARCHS:
            continue  # a checkpoint_of entry's model keys are its model's
        made_by = f" (a model of sweeps.{swept[name]})" if name in swept else ""
        rows = [name, *(m for m, e in models.items() if e.get("checkpoint_of") == name)]
        for key in NPMT_DECODE["tiny"]:
            if key not in (entry.get("model") or {}):
                continue
            with_lm = [m for m in rows if key != "lambda2" or wf.uses_lm(config, m)]
            if not with_lm:
                raise InputError(f"models.{name}.model.lambda2{made_by}: weighs the "
                                 "external LM in Eq. 3, and no decoding of this model "
                                 "uses one (decode.lm: true, its own or a "
                                 "checkpoint_of entry's); without it lambda2 is 0",
                                 "config")
            if all(key in (models[m].get("decode") or {}) for m in with_lm):
                given = ", ".join(f"models.{m}.decode.{key}" for m in with_lm)
                raise InputError(f"models.{name}.model.{key}{made_by}: is the default "
                                 f"of the beam search's {key}, and every decoding that would "
                                 f"read it gives its own ({given}); set it in one "
                                 "place", "config")


def trained_models(config: dict) -> list[str]:
    """NPMT-family models that train (not checkpoint_of entries)."""
    return [m for m in wf.family_models(config, "npmt")
            if wf.checkpoint_owner(config, m) == m]


def greedy_models(config: dict) -> list[str]:
    """SWAN models decoded greedily with their segments (LM rows: beam only)."""
    return [m for m in wf.family_models(config, "npmt")
            if is_swan(config, m) and not wf.uses_lm(config, m)]


def attention_models(config: dict) -> list[str]:
    """Attention models of NPMT tables, decoded by rules/npmt.smk both ways:
    the NPMT family's attn_rnn_reorder and the attn_rnn baselines."""
    found = (npmt_baseline(config, ds) for ds in config["datasets"]
             if npmt_rows(config, ds))
    family = [m for m in wf.family_models(config, "npmt") if not is_swan(config, m)]
    return sorted({*family, *(m for m in found if m is not None)})


# --- rows, decodings and their files -------------------------------------------


def npmt_baseline(config: dict, dataset: str) -> str | None:
    """The attention baseline of the NPMT table: the dataset's first attn_rnn."""
    return next((m for m in wf.models(config, dataset)
                 if config["models"][m]["arch"] == "attn_rnn"), None)


def npmt_rows(config: dict, dataset: str) -> list[str]:
    """NPMT-family models of the table (sweep points left out), in config order."""
    derived = wf.derived_models(config)
    return [m for m in wf.family_models(config, "npmt", dataset) if m not in derived]


def table_models(config: dict, dataset: str) -> list[str]:
    """Rows of the NPMT table: the attention baseline, then the NPMT rows."""
    rows = npmt_rows(config, dataset)
    base = npmt_baseline(config, dataset)
    return [base, *rows] if rows and base else rows


def main_decoding(config: dict, model: str) -> str:
    """The decoding in `{testset}.tok`: greedy for the continuous family, else beam."""
    return "greedy" if wf.model_family(config, model) == "continuous" else "beam"


def decodings(config: dict, dataset: str, model: str) -> list[str]:
    """Decodings of a model: both for NPMT rows and their baseline, else the main."""
    if wf.uses_lm(config, model):
        return ["beam"]
    if (wf.model_family(config, model) == "npmt"
            or model == npmt_baseline(config, dataset)):
        return list(DECODINGS)
    return [main_decoding(config, model)]


def hyp_file(config: dict, dataset: str, model: str, testset: str, decoding: str,
             seed: int | str, ext: str = "tok") -> str:
    """A decoding's hypotheses of one seed (tok: tokenized, txt: detokenized)."""
    infix = "" if decoding == main_decoding(config, model) else f"{decoding}."
    return runs.hyp_file(dataset, model, seed, testset, f"{infix}{ext}")


def segments_file(dataset: str, model: str, testset: str, seed: int | str) -> str:
    """The greedy segmentations of one seed of a SWAN model (JSON Lines)."""
    return runs.hyp_file(dataset, model, seed, testset, "greedy.segments")


def eval_file(dataset: str, model: str, testset: str, decoding: str) -> str:
    """All seeds' BLEU of one decoding against the NPMT baseline's same decoding."""
    return runs.aggregate_eval(dataset, model, testset, f"{decoding}.json")


def seed_eval_file(dataset: str, model: str, testset: str, decoding: str,
                   seed: int | str) -> str:
    """BLEU JSON of one decoding of one seed."""
    return runs.seed_eval(dataset, model, seed, testset, f"{decoding}.json")


def eval_baseline(config: dict, dataset: str, model: str) -> str | None:
    """The model a decoding's BLEU is tested against (NPMT table rows only)."""
    base = npmt_baseline(config, dataset)
    rows = table_models(config, dataset)
    return base if model in rows and model != base else None


def eval_inputs(config: dict, dataset: str, model: str, testset: str,
                decoding: str, seed: int | str) -> dict[str, str]:
    """Hypotheses of one decoding of one seed (detokenized and tokenized)."""
    return {"hyp": hyp_file(config, dataset, model, testset, decoding, seed, "txt"),
            "hyp_tok": hyp_file(config, dataset, model, testset, decoding, seed)}


def aggregate_inputs(config: dict, dataset: str, model: str, testset: str,
                     decoding: str) -> dict[str, list[str]]:
    """Every seed's detokenized hypotheses of one decoding, and the baseline's
    (the model's own when it has no baseline: then p is 1)."""
    base = eval_baseline(config, dataset, model) or model
    return {name: runs.per_seed(config, m, lambda s, m=m: hyp_file(
                config, dataset, m, testset, decoding, s, "txt"))
            for name, m in (("hyps", model), ("baseline", base))}


def aggregate_baseline(config: dict, dataset: str, model: str) -> str:
    """The --baseline-name of a decoding's aggregate (the model itself if none)."""
    return eval_baseline(config, dataset, model) or model


# --- analyses and report -----------------------------------------------------


def segment_models(config: dict, dataset: str) -> list[str]:
    """SWAN rows with greedy segmentations (LM rows decode with beam only)."""
    return [m for m in npmt_rows(config, dataset)
            if is_swan(config, m) and not wf.uses_lm(config, m)]


def npmt_main(config: dict, dataset: str) -> str | None:
    """The NPMT model of the examples, phrase mappings and gates (first npmt)."""
    models = segment_models(config, dataset)
    return next((m for m in models if config["models"][m]["arch"] == "npmt"),
                models[0] if models else None)


def testset_lines(config: dict, dataset: str, testset: str) -> int | None:
    """Lines of a test set, known before any job runs: a synthetic corpus's
    test_size, a local test set's source file, or a download's prepared file
    once it is there (None when not yet known)."""
    from phrasenmt.io import count_lines

    ds = config["datasets"][dataset]
    if ds["source"] == "synthetic":
        return ds["synthetic"]["test_size"]
    if ds["source"] == "local":
        path = ds["local"]["test"][testset]["src"]
    else:
        path = f"results/{dataset}/data/{testset}.{ds['src']}"
    return count_lines(path) if Path(path).is_file() else None


def check_gates_line(config: dict) -> None:
    """`evaluate.gates_line` is a line of the test set the gates figure indexes
    (each built dataset's first test set, where an npmt model draws the figure)."""
    line = config["evaluate"]["gates_line"]
    for ds in wf.datasets(config):
        main = npmt_main(config, ds)
        if not main or config["models"][main]["arch"] != "npmt":
            continue
        testset = wf.testsets(config, ds)[0]
        lines = testset_lines(config, ds, testset)
        if lines is not None and line > lines:
            raise InputError(f"evaluate.gates_line: {line}, but test set {testset} "
                             f"of {ds}, whose line the reordering gates figure draws, "
                             f"has {lines} lines")


def has_gold_alignments(config: dict, dataset: str) -> bool:
    """A synthetic corpus ships gold word alignments with every split."""
    return "align" in wf.sidecars(config, dataset)


def reordering_hyps(config: dict, dataset: str, testset: str) -> dict[str, str]:
    """MODEL:SEED -> beam hypotheses (tokenized) of every row of the NPMT table."""
    return {f"{m}:{s}": hyp_file(config, dataset, m, testset, "beam", s)
            for m in table_models(config, dataset) for s in runs.seeds(config, m)}


def table_evals(config: dict, dataset: str, testset: str) -> dict[str, str]:
    """MODEL:DECODING -> all seeds' BLEU JSON of every row of the NPMT table."""
    return {f"{m}:{d}": eval_file(dataset, m, testset, d)
            for m in table_models(config, dataset)
            for d in decodings(config, dataset, m)}


def table_seed_evals(config: dict, dataset: str, testset: str
                     ) -> list[tuple[str, str]]:
    """(MODEL:DECODING, one seed's BLEU JSON) of every row, decoding and seed."""
    return [(f"{m}:{d}", seed_eval_file(dataset, m, testset, d, s))
            for m in table_models(config, dataset)
            for d in decodings(config, dataset, m)
            for s in runs.seeds(config, m)]


def decode_labels(config: dict, dataset: str) -> dict[str, str]:
    """Per row, its beam-search settings in words (for the table)."""
    labels = {}
    for m in table_models(config, dataset):
        s = decode_settings(config, m)
        if is_swan(config, m):
            lm = f", {LM_ORDER}-gram LM" if s["lm"] else ""
            labels[m] = (f"beam {s['beam']}, λ1 {s['lambda1']:g}, "
                         f"λ2 {s['lambda2']:g}{lm}")
        else:
            labels[m] = f"beam {s['beam']}, lenpen {s['lenpen']:g}"
    return labels


def table_notes(config: dict, dataset: str) -> list[str]:
    """Lines under the NPMT table: LM rows not run, a missing baseline."""
    notes = []
    skipped = wf.skipped_lm_models(config, dataset)
    if skipped:
        notes.append(f"NPMT+LM ({', '.join(skipped)}) not run: "
                     f"{config[wf.LM_MISSING]}")
    if npmt_baseline(config, dataset) is None:
        notes.append("No attn_rnn model on this dataset: no significance test.")
    return notes


def sweep_evals(config: dict, dataset: str, name: str) -> list[tuple[str, str]]:
    """(VALUE:DECODING, BLEU JSON) of every point, decoding, test set and seed."""
    return [(f"{value}:{d}", seed_eval_file(dataset, model, t, d, s))
            for value, model in wf.sweep_points(config, name)
            for d in decodings(config, dataset, model)
            for t in wf.testsets(config, dataset)
            for s in runs.seeds(config, model)]


def dataset_sweeps(config: dict, dataset: str) -> list[str]:
    """Enabled sweeps whose base model trains on `dataset` (those of document-level
    models have their own table, with pronoun accuracy: rules/documents_report.smk)."""
    return [n for n in wf.sweeps(config)
            if config["sweeps"][n]["model"] in wf.models(config, dataset)
            and wf.model_family(config, config["sweeps"][n]["model"]) != "documents"]


def npmt_targets(config: dict, dataset: str) -> list[str]:
    """NPMT tables, analyses, gates figure and sweep tables of a dataset."""
    root, exts = f"results/{dataset}/report", ("md", "tex", "csv")
    targets = [f"{root}/sweep_{n}.{e}" for n in dataset_sweeps(config, dataset)
               for e in exts]
    if not npmt_rows(config, dataset):
        return targets
    for t in wf.testsets(config, dataset):
        names = ["npmt_bleu"]
        if segment_models(config, dataset):
            names += ["npmt_segments", "npmt_examples", "npmt_mappings"]
        if has_gold_alignments(config, dataset):
            names.append("npmt_reordering")
        targets += [f"{root}/{n}_{t}.{e}" for n in names for e in exts]
    main = npmt_main(config, dataset)
    if main and config["models"][main]["arch"] == "npmt":
        targets += [f"{root}/npmt_gates.{e}" for e in ("png", "svg")]
    return targets
