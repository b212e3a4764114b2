"""Workflow helpers of the document-level family and of the discourse evaluation.

Models: the context-aware Transformer (Zhang et al. 2018: `ctx_transformer`,
`ctx_transformer_enc`, `ctx_transformer_dec`) and HAN (Miculicich et al. 2018:
`han_enc`, `han_dec`, `han_enc_dec`). Every entry names the model it starts
from, `init_from`: step 1 is that model's own run (the sentence-level
`transformer`, trained once by rules/train.smk, not again), step 2 loads its
averaged checkpoint strictly and trains what `train.freeze` leaves (default:
the document-level parameters, the sentence-level ones frozen); `han_enc_dec`
starts from a trained `han_enc`. `joint_finetune` on an entry derives a model
`<name>_joint`: one more step from that model's averaged checkpoint with nothing
frozen (`train.freeze: none`), the paper's optional joint fine-tuning.

The rows of the discourse tables are here too; their files are in
`phrasenmt.workflow.discourse`.
"""

from __future__ import annotations

import json

from phrasenmt.io import InputError
from phrasenmt.sweeps import sweep_base_value
from phrasenmt.workflow import base as wf
from phrasenmt.workflow import runs

# The architecture a step starts from (besides the model's own arch, which a
# joint fine-tuning step with train.freeze: none may start from).
STEP1_ARCH = {**dict.fromkeys(wf.CTX_ARCHS, "transformer"),
              "han_enc": "transformer", "han_dec": "transformer",
              "han_enc_dec": "han_enc"}
# model: keys two chained steps may set differently (training-only fields)
TRAINING_ONLY = ("dropout", "detach_context")
JOINT_SUFFIX = "_joint"


def is_document(config: dict, model: str) -> bool:
    """Whether `model` is a document-level model (trained by rules/documents.smk)."""
    return config["models"][model].get("arch") in wf.DOCUMENT_ARCHS


def document_models(config: dict, dataset: str | None = None) -> list[str]:
    """Document-level models (trained on `dataset` when given), in config order."""
    return wf.family_models(config, "documents", dataset)


# --- documents of a dataset ----------------------------------------------------


def missing_documents(config: dict, dataset: str) -> str | None:
    """Why `dataset` has no document ids (None when every split has them)."""
    ds = config["datasets"][dataset]
    if ds["source"] == "synthetic":
        return None
    if ds["source"] == "download":
        from phrasenmt.data.datasets import has_documents

        return None if has_documents(ds["name"]) else \
            f"{ds['name']} has no document boundaries"
    loc = ds["local"]
    splits = {"train": loc["train"], "dev": loc["dev"], **loc["test"]}
    bare = [name for name, pair in splits.items() if not pair.get("docs")]
    return f"local split {bare[0]!r} has no docs file" if bare else None


def local_docs(config: dict, dataset: str, split: str) -> str | None:
    """The user's docs file of one split of a local dataset (None if not given)."""
    loc = config["datasets"][dataset]["local"]
    pair = loc[split] if split in ("train", "dev") else loc["test"][split]
    return pair.get("docs")


def local_docs_inputs(config: dict, dataset: str, split: str) -> dict[str, str]:
    """The split's raw source text, and the user's docs file when there is one."""
    src = wf.langs(config, dataset)[0]
    files = {"text": f"results/{dataset}/raw/{split}.{src}"}
    docs = local_docs(config, dataset, split)
    return {**files, "docs": docs} if docs else files


def docs_file(dataset: str, split: str) -> str:
    """The cleaned document ids of a split (one per line)."""
    return f"results/{dataset}/data/{split}.docs"


# --- the chain of steps: validation and joint fine-tuning ---------------------


def joint_enabled(entry: dict) -> bool:
    """Whether a model entry asks for its joint fine-tuning step."""
    joint = entry.get("joint_finetune")
    return bool(joint) and joint.get("enabled", True)


def is_joint_step(config: dict, name: str) -> bool:
    """Whether `name` is the `<model>_joint` entry derived from `<model>`."""
    return (name.endswith(JOINT_SUFFIX) and config["models"][name].get("init_from")
            == name.removesuffix(JOINT_SUFFIX))


def derive_joint_finetune(config: dict) -> None:
    """Add `<name>_joint` after every entry with `joint_finetune` (idempotent)."""
    models = config["models"]
    out = {}
    for name, entry in models.items():
        out[name] = entry
        joint = entry.get("joint_finetune")
        if not joint_enabled(entry) or name.endswith(JOINT_SUFFIX):
            continue
        derived = json.loads(json.dumps(entry))
        del derived["joint_finetune"]
        derived["init_from"] = name
        derived["train"] = {**entry.get("train", {}), **joint.get("train", {}),
                            "freeze": "none"}
        new = name + JOINT_SUFFIX
        if models.get(new, derived) != derived:
            raise InputError(f"models.{name}.joint_finetune: derived model {new!r} "
                             "is already a different entry of models", "config")
        out[new] = derived
    out.update((k, v) for k, v in models.items() if k not in out)
    models.clear()
    models.update(out)


def check_document_models(config: dict) -> None:
    """Checks of `init_from` the schema cannot express; one line naming the key.

    A model that trains on no dataset `rule all` builds (`run_datasets`) is idle:
    only its references are checked (an override file may resize its step 1)."""
    built = set(wf.datasets(config))
    check_document_keys(config)
    for name, entry in config["models"].items():
        if not is_document(config, name):
            continue
        for key in ("context", "context_seed"):
            if key in entry.get("model", {}):
                raise InputError(f"models.{name}.model.{key}: set models.{name}."
                                 "context instead (the run's seed draws a random "
                                 "context)", "config")
        _check_reference(config, name)
        if built.isdisjoint(wf.models_datasets(config, name)):
            continue
        _check_no_cycle(config, name)
        _check_step(config, name)
        for ds in wf.models_datasets(config, name):
            reason = missing_documents(config, ds)
            if reason:
                raise InputError(f"models.{name}: document-level arch "
                                 f"{entry['arch']!r}, but dataset {ds} has no "
                                 f"document ids ({reason})", "config")


def check_document_keys(config: dict) -> None:
    """Keys only document-level entries take, refused on the others where the
    user wrote them (before the spec is resolved: `context` travels in it)."""
    for name, entry in config["models"].items():
        if is_document(config, name):
            continue
        taken = [k for k in ("init_from", "joint_finetune", "context")
                 if entry.get(k) is not None]
        if taken[:1] == ["context"]:
            raise InputError(f"models.{name}.context: arch {entry['arch']!r} reads "
                             "no document context, so there is none to replace; "
                             "context applies to the document-level archs "
                             f"({', '.join(wf.DOCUMENT_ARCHS)}) only")
        if taken:
            raise InputError(f"models.{name}.{taken[0]}: only document-level "
                             f"models ({', '.join(wf.DOCUMENT_ARCHS)}) take it",
                             "config")
        if (entry.get("train") or {}).get("empty_context_rate"):
            raise InputError(f"models.{name}.train.empty_context_rate: arch "
                             f"{entry.get('arch')!r} reads no document context to "
                             "replace; context dropout applies to the "
                             f"document-level archs ({', '.join(wf.DOCUMENT_ARCHS)})"
                             " only")


def _check_reference(config: dict, name: str) -> None:
    """`init_from` is given and names another model that trains."""
    models, entry = config["models"], config["models"][name]
    key, init = f"models.{name}.init_from", entry.get("init_from")
    if init is None:
        raise InputError(f"{key}: required for the document-level arch "
                         f"{entry['arch']!r} (the model whose averaged checkpoint "
                         "step 2 starts from)", "config")
    if init not in models or init == name or models[init].get("checkpoint_of"):
        raise InputError(f"{key}: {init!r} is not another model that trains",
                         "config")


def _check_step(config: dict, name: str) -> None:
    """The model a document-level entry starts from fits (arch, data, sizes)."""
    models, entry = config["models"], config["models"][name]
    key, init = f"models.{name}.init_from", entry["init_from"]
    allowed = {STEP1_ARCH[entry["arch"]]}
    if entry.get("train", {}).get("freeze") == "none":
        allowed.add(entry["arch"])
    if models[init]["arch"] not in allowed:
        raise InputError(f"{key}: {init!r} has arch {models[init]['arch']!r}, but "
                         f"{entry['arch']!r} starts from "
                         f"{' or '.join(map(repr, sorted(allowed)))}", "config")
    theirs = wf.models_datasets(config, init)
    for ds in wf.models_datasets(config, name):
        if ds not in theirs:
            raise InputError(f"{key}: {init!r} does not train on dataset {ds}",
                             "config")
    _check_same_sizes(config, name, init)


def _check_same_sizes(config: dict, name: str, init: str) -> None:
    """Preset and shared `model:` keys must agree (the load is strict)."""
    mine, theirs = config["models"][name], config["models"][init]
    if mine["preset"] != theirs["preset"]:
        raise InputError(f"models.{name}.preset: {mine['preset']!r}, but its "
                         f"init_from {init!r} has {theirs['preset']!r}", "config")
    own, other = mine.get("model", {}), theirs.get("model", {})
    shared = set(other) | (set(own) if is_document(config, init) else set())
    for k in sorted(shared):
        if any(t in k for t in TRAINING_ONLY) or own.get(k) == other.get(k):
            continue
        raise InputError(f"models.{name}.model.{k}: {own.get(k)!r}, but its "
                         f"init_from {init!r} has {other.get(k)!r} (the load is "
                         "strict)", "config")


def _check_no_cycle(config: dict, name: str) -> None:
    """Following init_from from `name` must reach a sentence-level model."""
    seen, current = {name}, config["models"][name]["init_from"]
    while current in config["models"] and is_document(config, current):
        if current in seen:
            raise InputError(f"models.{name}.init_from: the chain of init_from "
                             f"comes back to {current!r}", "config")
        seen.add(current)
        current = config["models"][current].get("init_from")


def init_model(config: dict, model: str) -> str:
    """The model whose averaged checkpoint `model` starts from."""
    return config["models"][model]["init_from"]


def step1_checkpoint(config: dict, dataset: str, model: str, seed: int | str) -> str:
    """The averaged checkpoint a document-level model's run of `seed` loads: its
    init_from model's run of the same seed."""
    return runs.run_file(dataset, init_model(config, model), seed, "averaged.pt")


def sentence_root(config: dict, model: str) -> str:
    """The sentence-level model at the start of a document model's chain."""
    while is_document(config, model):
        model = init_model(config, model)
    return model


def context_size(config: dict, model: str) -> int:
    """K of a document-level model: its config's, else its preset's."""
    return int(sweep_base_value(config, model, "model.context_size"))


# --- rows of the discourse tables ---------------------------------------------


def discourse_models(config: dict, dataset: str) -> list[str]:
    """Rows of the discourse tables: the baseline, the sentence-level models the
    document-level ones start from, and those (sweep points left out)."""
    docs = document_models(config, dataset)
    if not docs:
        return []
    derived = wf.derived_models(config)
    keep = {wf.baseline(config, dataset), *(sentence_root(config, m) for m in docs),
            *(m for m in docs if m not in derived)}
    return [m for m in wf.models(config, dataset) if m in keep]


def han_models(config: dict, dataset: str) -> list[str]:
    """Rows of the HAN table: the baseline, then the HAN models (no sweep points)."""
    derived = wf.derived_models(config)
    rows = [m for m in discourse_models(config, dataset)
            if config["models"][m]["arch"] in wf.HAN_ARCHS and m not in derived]
    return [wf.baseline(config, dataset), *rows] if rows else []

