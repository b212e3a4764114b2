"""Workflow helpers of the discourse evaluation of document-level models.

Per dataset that trains a document-level model (rules/documents_report.smk),
over the rows of `documents.discourse_models` (the baseline, the
sentence-level models the document-level ones start from, and those):
contrastive accuracy with context (a synthetic en-de corpus's own items;
ContraPro, Bawden and Voita files from `datasets.<name>.contrastive`; document
models score with context, sentence-level ones the same pairs without it),
pronoun and noun accuracy through source-pivoted alignments, lexical cohesion
and LSA coherence with the reference as the ceiling row, BLEU against the
baseline, the HAN table (the slides' rows) and the sweep tables. The BLEU
tables read every seed; the other analyses read each model's first seed.
"""

from __future__ import annotations

import shlex

from phrasenmt.config_entries import FORMAT_FILES, OPTIONAL_FILES, SYNTHETIC_SET
from phrasenmt.io import InputError
from phrasenmt.sweeps import sweep_points
from phrasenmt.text.pronouns import has_pronoun_list
from phrasenmt.workflow import base as wf
from phrasenmt.workflow import runs
from phrasenmt.workflow.documents import (
    context_size,
    discourse_models,
    document_models,
    han_models,
    is_document,
)

SWEEP_LABELS = {"context_size": "K", "context_layers": "N_c"}


# --- contrastive test sets -----------------------------------------------------


def contrastive_sets(config: dict, dataset: str) -> dict[str, dict]:
    """Contrastive sets of a dataset with document-level models: a synthetic en-de
    corpus's own items (lingeval format), then `datasets.<name>.contrastive`."""
    if not document_models(config, dataset):
        return {}
    sets = {}
    if wf.source(config, dataset) == "synthetic" and \
            wf.langs(config, dataset) == ("en", "de"):
        # mirrored pronoun items: a model that ignores the context scores 50 %
        syn = config["datasets"][dataset].get("synthetic", {})
        sets[SYNTHETIC_SET] = {"format": "lingeval", "mirror_pronouns": True,
                               "dev_fraction": syn.get("contrastive_dev_fraction",
                                                       0.5)}
    sets.update(config["datasets"][dataset].get("contrastive", {}))
    return sets


def contrastive_root(dataset: str, name: str) -> str:
    """Folder of one contrastive set's items, lines and scores."""
    return f"results/{dataset}/discourse/contrastive/{name}"


def contrastive_files(config: dict, dataset: str, name: str) -> dict[str, str]:
    """Input files of `prepare`, by option name (--json, --text-src, ...)."""
    spec = contrastive_sets(config, dataset)[name]
    if spec["format"] == "lingeval":
        src, tgt = wf.langs(config, dataset)
        raw = f"results/{dataset}/raw/test"
        return {"json": f"{raw}.lingeval.json", "src-text": f"{raw}.{src}",
                "tgt-text": f"{raw}.{tgt}", "docs": f"{raw}.docs"}
    return {k.replace("_", "-"): spec[k] for k in set_files(spec["format"]) if k in spec}


def set_files(fmt: str) -> tuple[str, ...]:
    """The keys of a contrastive set's entry that name files, for its format."""
    return (*FORMAT_FILES[fmt], *OPTIONAL_FILES.get(fmt, ()))


def max_context(config: dict, dataset: str) -> int:
    """The most context sentences any document-level model of `dataset` reads."""
    return max(context_size(config, m) for m in document_models(config, dataset))


def contrastive_args(config: dict, dataset: str, name: str) -> str:
    """Options of `contrastive prepare`: format, context, files, text processing."""
    spec = contrastive_sets(config, dataset)[name]
    ds = config["datasets"][dataset]
    src, tgt = wf.langs(config, dataset)
    args = ["--format", spec["format"], "--context", max_context(config, dataset),
            "--src-lang", src, "--tgt-lang", tgt]
    for key in ("extracted", "name"):
        if key in spec:
            args += [f"--{key}", spec[key]]
    if spec.get("dev_fraction") is not None:  # dev items: by document, the run's seed
        args += ["--dev-fraction", spec["dev_fraction"], "--split-seed", config["seed"]]
    for opt, path in contrastive_files(config, dataset, name).items():
        args += [f"--{opt}", path]
    args += [flag for flag, on in (("--tokenize", ds["tokenize"]),
                                   ("--lowercase", ds["lowercase"]),
                                   ("--mirror-pronouns",
                                    spec.get("mirror_pronouns", False))) if on]
    return shlex.join(map(str, args))


def score_file(dataset: str, name: str, model: str, seed: int | str) -> str:
    """One run's log-probabilities of one set's lines."""
    return f"{contrastive_root(dataset, name)}/scores/{model}/seed{seed}.txt"


def _first(config: dict, model: str) -> int:
    """The seed the analyses of a model read."""
    return runs.first_seed(config, model)


def contrastive_models(config: dict, dataset: str) -> list[str]:
    """Rows that score the contrastive pairs: document-level models, and the
    sentence-level ones on BPE'd text (the default family's)."""
    return [m for m in discourse_models(config, dataset)
            if is_document(config, m) or wf.model_family(config, m) == "default"]


def contrastive_scores(config: dict, dataset: str, name: str) -> list[str]:
    """Score files of every row on one set (each model's first seed)."""
    return [score_file(dataset, name, m, _first(config, m))
            for m in contrastive_models(config, dataset)]


def contrastive_score_args(config: dict, dataset: str, name: str) -> str:
    """--scores (with context) and --no-context-scores options of `evaluate`."""
    rows = contrastive_models(config, dataset)
    parts = []
    for flag, context in (("--scores", True), ("--no-context-scores", False)):
        named = [f"{m}={score_file(dataset, name, m, _first(config, m))}"
                 for m in rows
                 if is_document(config, m) == context]
        parts += [flag, *named] if named else []
    return shlex.join(parts)


def contrastive_tsv(dataset: str, name: str) -> str:
    """Tidy accuracies of one set (every row, with and without context)."""
    return f"results/{dataset}/analysis/contrastive_{name}.tsv"


# --- pronouns, cohesion --------------------------------------------------------


def reference_alignment(dataset: str, testset: str) -> str:
    """Links source-reference of a test set."""
    return f"results/{dataset}/discourse/align/{testset}.ref"


def pronoun_tsv(dataset: str, testset: str, model: str, seed: int | str) -> str:
    """One run's pronoun and noun accuracy on a test set."""
    return f"results/{dataset}/analysis/pronouns/{testset}/{model}/seed{seed}.tsv"


def scores_pronouns(config: dict, dataset: str) -> bool:
    """Whether the dataset's target language has a pronoun list, so that its
    pronoun and noun accuracy can be scored (de, en, fr)."""
    return has_pronoun_list(wf.langs(config, dataset)[1])


def first_pronoun_tsv(config: dict, dataset: str, testset: str, model: str) -> str:
    """The pronoun accuracy of a model's first seed (what the tables show)."""
    return pronoun_tsv(dataset, testset, model, _first(config, model))


def align_args(config: dict) -> str:
    """Aligner, symmetrization, seed and training lines of `pronouns align`
    (`--symmetrize` where `align.symmetrize` is not the default)."""
    args = ["--seed", config["seed"]]
    if config["align"]["symmetrize"] != "grow-diag-final-and":
        args += ["--symmetrize", config["align"]["symmetrize"]]
    lines = config["discourse"]["align_train_lines"]
    args += ["--train-lines", lines] if lines else []
    return f"{wf.aligner_args(config)} {shlex.join(map(str, args))}"


def lsa_args(config: dict) -> str:
    """Dimensions, seed and training lines of `cohesion fit`."""
    disc = config["discourse"]
    args = ["--dims", disc["lsa_dims"], "--seed", config["seed"]]
    lines = disc["lsa_train_lines"]
    return shlex.join(map(str, args + (["--max-lines", lines] if lines else [])))


def hypotheses(config: dict, dataset: str, testset: str) -> dict[str, str]:
    """Tokenized hypotheses of every discourse row on a test set (first seed)."""
    return {m: runs.hyp_file(dataset, m, _first(config, m), testset)
            for m in discourse_models(config, dataset)}


# --- sweeps, notes and targets ---------------------------------------------------


def document_sweeps(config: dict, dataset: str | None = None,
                    enabled: bool = True) -> list[str]:
    """Sweeps of document-level models (on `dataset`), enabled or switched off."""
    out = []
    for name, sweep in config.get("sweeps", {}).items():
        base = sweep["model"]
        if (base not in config["models"] or not is_document(config, base)
                or sweep.get("enabled", True) != enabled):
            continue
        if dataset is None or dataset in wf.models_datasets(config, base):
            out.append(name)
    return out


def sweep_parameter(config: dict, name: str) -> str:
    """The column name of a sweep: K, N_c, or the key's last part."""
    key = config["sweeps"][name]["key"].rsplit(".", 1)[-1]
    return SWEEP_LABELS.get(key, key)


def sweep_models(config: dict, name: str) -> list[str]:
    """Models of a sweep's points, in value order."""
    return [m for _, m in sweep_points(config, name)]


def sweep_point_args(config: dict, name: str) -> str:
    """--point VALUE=MODEL options of the sweep table."""
    points = [f"{str(v).lower()}={m}" for v, m in sweep_points(config, name)]
    return shlex.join(["--point", *points])


def notes(config: dict, dataset: str) -> list[str]:
    """Lines under the discourse BLEU table: sweeps that were not run."""
    off = document_sweeps(config, dataset, enabled=False)
    return [f"Sweep {n} ({sweep_parameter(config, n)} of "
            f"{config['sweeps'][n]['model']}) not run: enabled: false in the config."
            for n in off]


# --- context usage: CXMI and the controls ---------------------------------------


def cxmi_file(dataset: str, model: str, seed: int | str) -> str:
    """One run's CXMI figures (phrasenmt.evaluate.cxmi)."""
    return f"results/{dataset}/analysis/cxmi/{model}/seed{seed}.json"


def cxmi_inputs(config: dict, dataset: str) -> dict[str, str]:
    """What the CXMI rule of a document model reads: the first test set with its
    document ids, and the first contrastive set's lines (if the dataset has one)."""
    src, tgt = wf.langs(config, dataset)
    testset = wf.testsets(config, dataset)[0]
    files = {"test_src": f"results/{dataset}/bpe/{testset}.bpe.{src}",
             "test_tgt": f"results/{dataset}/bpe/{testset}.bpe.{tgt}",
             "test_docs": f"results/{dataset}/data/{testset}.docs"}
    sets = list(contrastive_sets(config, dataset))
    if sets:
        root = contrastive_root(dataset, sets[0])
        files.update(pairs_items=f"{root}/items.json", pairs_src=f"{root}/pairs.bpe.src",
                     pairs_tgt=f"{root}/pairs.bpe.tgt",
                     pairs_context=f"{root}/pairs.ctx.bpe.jsonl")
    return files


def _control_settings(config: dict, model: str) -> dict[str, object]:
    """What a random-context control must share with its model, by dotted key:
    every resolved `model.*` and `train.*` field (the preset's included) but the
    context's own, and the settings of its runs and their decoding."""
    import json

    from phrasenmt.training.spec import resolve_spec  # torch: start-up has it

    entry = config["models"][model]
    spec = resolve_spec(json.loads(wf.model_spec(config, model)), None,
                        f"models.{model}.").to_dict()
    out: dict[str, object] = {"preset": entry.get("preset")}
    for section in ("model", "train"):
        out.update((f"{section}.{k}", v) for k, v in spec[section].items()
                   if k not in ("context", "context_seed"))
    out.update({"datasets": wf.models_datasets(config, model),
                "seeds": runs.seeds(config, model),
                "precision": runs.precision(config, model),
                "gpus": entry.get("gpus", 1)})
    decode = entry.get("decode", {})
    out.update((f"decode.{k}", decode.get(k)) for k in wf.decode_keys(config, model))
    return out


def _control_differences(config: dict, control: str, model: str,
                         seen: frozenset[str] = frozenset()) -> list[str]:
    """Where `control` differs from `model` besides the context: 'key (a vs b)'."""
    models = config["models"]
    starts = (models[control].get("init_from"), models[model].get("init_from"))
    diffs = [] if _same_step1(config, control, model, seen) else [
        "init_from ({} vs {})".format(*starts)]
    mine, theirs = _control_settings(config, control), _control_settings(config, model)
    diffs += [f"{k} ({mine.get(k)} vs {theirs.get(k)})"
              for k in sorted(set(mine) | set(theirs)) if mine.get(k) != theirs.get(k)]
    return diffs


def _same_step1(config: dict, control: str, model: str,
                seen: frozenset[str]) -> bool:
    """The control starts where its model does: the same step 1, or the control
    of the model's step 1 (han_enc_dec_random from han_enc_random)."""
    models = config["models"]
    start, theirs = models[control].get("init_from"), models[model].get("init_from")
    return start == theirs or (start in models and start not in seen and control_of(
        config, start, seen | {control}) == theirs)


def _twins(config: dict, model: str) -> list[str]:
    """Entries a random-context control may control: same arch, real context."""
    entry = config["models"][model]
    return [m for m, e in config["models"].items() if m != model
            and e.get("context", "real") == "real" and e.get("arch") == entry.get("arch")]


def control_of(config: dict, model: str,
               seen: frozenset[str] = frozenset()) -> str | None:
    """The model a random-context control controls: the entry with the same arch
    that reads its real context and equals it in everything else, starting from
    the same step 1 or from the model that the control's own step 1 controls (as
    han_enc_dec_random from han_enc_random, han_enc_dec from han_enc); the first
    configured of several. None if the model is no control or has no such twin
    (which `check_controls` refuses at start-up)."""
    if config["models"][model].get("context") != "random":
        return None
    return next((m for m in _twins(config, model)
                 if not _control_differences(config, model, m, seen)), None)


def check_controls(config: dict) -> None:
    """Each random-context control that trains equals its model in everything but
    the context, or is refused with one line naming the keys that differ (the
    closest same-arch entry's), or that it has no model to control."""
    built = set(wf.datasets(config))
    for name, entry in config["models"].items():
        if entry.get("context") != "random" or built.isdisjoint(
                wf.models_datasets(config, name)):
            continue
        twins = _twins(config, name)
        if not twins:
            raise InputError(f"models.{name}: a random-context control, but no model "
                             f"with arch {entry['arch']!r} reads the real context; "
                             "configure the model it controls (equal in everything "
                             "but context), or leave context: random out")
        if control_of(config, name) is None:
            diffs = {m: _control_differences(config, name, m) for m in twins}
            closest = min(twins, key=lambda m: len(diffs[m]))
            raise InputError(f"models.{name}: differs from its model {closest} in "
                             f"{', '.join(diffs[closest])}; a random-context control "
                             "may differ in context only")


def controls(config: dict) -> dict[str, str]:
    """Each model's random-context control, {model: control}, as `control_of`
    finds them in the config (the context-usage table marks its rows with the
    same function); with two controls of one model, the first configured."""
    out: dict[str, str] = {}
    for m in config["models"]:
        base = control_of(config, m)
        if base is not None:
            out.setdefault(base, m)
    return out


def claim_control(claim: dict, controls: dict[str, str]) -> str | None:
    """The control a document-level claim is judged against: `controls`' (the
    config's, see `controls`) control of the claim's system, else the name
    claims.yaml gives (which the claims table then reports as not configured);
    None for a claim without one."""
    if "control" not in claim:
        return None
    return controls.get(claim["system"], claim["control"])


def claim_baseline(claim: dict, controls: dict[str, str]) -> str:
    """The baseline a claim is judged against: a cxmi claim's is the config's
    random-context control of its system (claims.yaml's name without one)."""
    if claim["metric"] == "cxmi":
        return controls.get(claim["system"], claim["baseline"])
    return claim["baseline"]


def context_usage_models(config: dict, dataset: str) -> list[str]:
    """Rows of the context-usage table: the discourse rows on BPE'd text (those
    that score a contrastive set where the dataset has one), then the points of
    the enabled document sweeps on `dataset` (e.g. K = 1, 2, 3: accuracy by
    antecedent distance for each K)."""
    rows = contrastive_models(config, dataset)
    points = [m for name in document_sweeps(config, dataset)
              for m in sweep_models(config, name) if m not in rows]
    return rows + list(dict.fromkeys(points))


def context_usage_files(config: dict, dataset: str) -> dict:
    """What the context-usage table reads, every seed of every row: for the
    document-level rows, (model, CXMI JSON) pairs; where the dataset has a
    contrastive set, its first set's items.json and (model, score file) pairs
    (else None and no pairs)."""
    name = next(iter(contrastive_sets(config, dataset)), None)
    rows = context_usage_models(config, dataset)
    return {"items": (f"{contrastive_root(dataset, name)}/items.json"
                      if name is not None else None),
            "scores": [(m, score_file(dataset, name, m, s)) for m in rows
                       for s in runs.seeds(config, m)] if name is not None else [],
            "cxmi": [(m, cxmi_file(dataset, m, s)) for m in rows
                     if is_document(config, m) for s in runs.seeds(config, m)]}


def document_targets(config: dict, dataset: str) -> list[str]:
    """The discourse and HAN tables and the sweep tables of a dataset."""
    if not document_models(config, dataset):
        return []
    root, exts = f"results/{dataset}/report", ("md", "tex", "csv")
    names = ["discourse_bleu", "context_usage"]  # CXMI needs document ids only
    if contrastive_sets(config, dataset):
        names.append("discourse_contrastive")
    if han_models(config, dataset):
        names.append("han_bleu")
    for t in wf.testsets(config, dataset):
        if scores_pronouns(config, dataset):
            names.append(f"discourse_pronouns_{t}")
        if wf.has_stopword_list(config, dataset):  # content words: not stopwords
            names.append(f"discourse_cohesion_{t}")
    names += [f"discourse_sweep_{s}" for s in document_sweeps(config, dataset)]
    figures = [f"{root}/context_usage.{e}" for e in ("png", "svg")]
    return [f"{root}/{n}.{e}" for n in names for e in exts] + figures
