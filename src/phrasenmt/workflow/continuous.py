"""Workflow helpers of the continuous-output family (Park & Tsvetkov 2019).

A model's target text (phrases joined for PCoNMT, else words), its training
spec, the family's report tables (rules/continuous.smk), and which fastText
tables a model reads, and their size.

Each dataset can have two fastText models of its target language
(rules/embeddings.smk):

* `embeddings/{words,phrases}.vec`, `model.bin`: trained on the training text
  with every listed phrase joined (`fire_brigade`). PCoNMT reads both tables
  of this model, as Park & Tsvetkov (2019, 2.2) do: "From this training, we
  obtain both the word- and phrase-tables, which are of the same dimension."
* `embeddings/plain/{words.vec,model.bin}`: trained on the un-joined text.
  CoNMT (Kumar & Tsvetkov 2019, a model without phrases) reads this word
  table: on the joined text a word seen only inside a listed phrase
  (`brigade`) has no vector of its own, only subword pieces, which would
  handicap the baseline of the PCoNMT comparison.

The size of a dataset's tables follows the continuous models trained on it:
a model's `model.embed_dim` if set, else its preset's table size (`base`:
300, Kumar & Tsvetkov's), else `embeddings.dim` (null: 100). The models of a
dataset share its tables, so they must agree; an `embeddings.dim` that
disagrees with a model's size fails at start-up naming both keys.
"""

from __future__ import annotations

import json
import shlex

from phrasenmt.io import InputError
from phrasenmt.workflow import base as wf
from phrasenmt.workflow import corpus, runs
from phrasenmt.workflow.base import (
    CONTINUOUS_ARCHS,
    FERTILITY_CLASSES,
    PHRASE_OUTPUT_ARCHS,
    models_datasets,
)

TABLE_ARCHS = tuple(a for a in CONTINUOUS_ARCHS if a != "attn_rnn")  # vMF output
# mirrors the registered presets of phrasenmt.models.continuous (tested), so
# that building the DAG does not import torch
PRESET_TABLE_DIMS = {"base": 300}
DEFAULT_TABLE_DIM = 100  # ContinuousConfig.embed_dim


TABLE_KEYS = ("word_table", "phrase_table", "fasttext_model")  # set by table_files


def table_files(dataset: str, arch: str) -> dict[str, str]:
    """The word table, phrase table ("" for none) and fastText model of an arch."""
    emb = f"results/{dataset}/embeddings"
    if arch in PHRASE_OUTPUT_ARCHS:
        return {"word_table": f"{emb}/words.vec", "phrase_table": f"{emb}/phrases.vec",
                "fasttext_model": f"{emb}/model.bin"}
    return {"word_table": f"{emb}/plain/words.vec", "phrase_table": "",
            "fasttext_model": f"{emb}/plain/model.bin"}


def model_table_dim(config: dict, model: str) -> tuple[int, str] | None:
    """(size, the key that sets it) of a model's tables; None if it takes the default."""
    entry = config["models"][model]
    explicit = (entry.get("model") or {}).get("embed_dim")
    if explicit is not None:
        return explicit, f"models.{model}.model.embed_dim"
    preset = entry.get("preset")
    if preset in PRESET_TABLE_DIMS:
        return PRESET_TABLE_DIMS[preset], f"models.{model}.preset {preset!r}"
    return None


def table_models(config: dict, dataset: str) -> list[str]:
    """Models that read the fastText tables of `dataset`."""
    return [m for m, entry in config["models"].items()
            if entry.get("arch") in TABLE_ARCHS and dataset in models_datasets(config, m)]


def embedding_dim(config: dict, dataset: str) -> int:
    """The fastText dimension of a dataset's tables; disagreements raise."""
    sizes = [(m, found) for m in table_models(config, dataset)
             if (found := model_table_dim(config, m)) is not None]
    given = config["embeddings"]["dim"]
    if sizes:
        (dim, key), others = sizes[0][1], sizes[1:]
        for _, (other, other_key) in others:
            if other != dim:
                raise InputError(f"{other_key}: gives {other}-dimensional output "
                                 f"tables but {key} gives {dim}, and the models of "
                                 f"dataset {dataset} share its fastText tables")
        if given is not None and given != dim:
            raise InputError(f"embeddings.dim: is {given} but {key} gives "
                             f"{dim}-dimensional output tables; leave embeddings.dim "
                             "out (the tables follow the models) or make them agree")
        return dim
    return DEFAULT_TABLE_DIM if given is None else given


def check_embedding_dims(config: dict) -> None:
    """Every dataset's table size is well defined (start-up check)."""
    for dataset in config["datasets"]:
        embedding_dim(config, dataset)


def continuous_spec(config: dict, dataset: str, model: str) -> str:
    """`phrasenmt.train --spec` of a continuous-family model: tables of `dataset`."""
    spec = json.loads(wf.model_spec(config, model))
    if spec["arch"] in TABLE_ARCHS:  # CoNMT: the un-joined text's table
        tables = {"embed_dim": embedding_dim(config, dataset),
                  **table_files(dataset, spec["arch"])}
        spec["model"] = {**tables, **spec["model"]}
    return json.dumps(spec, sort_keys=True)


def continuous_target(config: dict, dataset: str, model: str, split: str) -> str:
    """A continuous model's target text: phrases joined for PCoNMT, else words."""
    if config["models"][model]["arch"] in PHRASE_OUTPUT_ARCHS:
        return f"results/{dataset}/phrases/{split}.joined"
    return f"results/{dataset}/data/{split}.{wf.langs(config, dataset)[1]}"


def continuous_targets(config: dict, dataset: str) -> list[str]:
    """The family's report tables of a dataset (none without family models)."""
    fam = wf.family_models(config, "continuous", dataset)
    if not fam:
        return []
    root, exts = f"results/{dataset}/report", ("md", "tex", "csv")
    targets = [f"{root}/efficiency.{ext}" for ext in exts]
    for testset in wf.testsets(config, dataset):
        targets += [f"{root}/multiword_{testset}.{ext}" for ext in exts]
        if set(fam) & set(wf.arch_models(config, FERTILITY_CLASSES)):  # aligner labels
            targets += [f"{root}/fertility_{testset}.{ext}" for ext in exts]
    return targets



# -- inputs and params of the rules (embeddings, continuous) --------------------

def extra_mono_input(config: dict) -> list[str]:
    """The embeddings' extra text (config embeddings.extra_mono), an input of
    the jobs that append it: a new file makes the tables again."""
    extra = config["embeddings"].get("extra_mono")
    return [extra] if extra else []


def extra_mono_arg(input) -> str:
    """`--extra-mono FILE` of the embeddings' text when config sets one."""
    return shlex.join(["--extra-mono", str(input.extra[0])]) if input.extra else ""


def fertility_models(config: dict) -> list[str]:
    """Models with a fertility module (PCoNMT with 2 or 4 classes)."""
    return wf.arch_models(config, FERTILITY_CLASSES)


def train_inputs(config: dict, dataset: str, model: str) -> dict[str, str]:
    """Word-level source, the model's target text, and its embedding tables."""
    files = {
        "src": corpus.text_file(config, dataset, "train", "src"),
        "dev_src": corpus.text_file(config, dataset, "dev", "src"),
        "tgt": continuous_target(config, dataset, model, "train"),
        "dev_tgt": continuous_target(config, dataset, model, "dev"),
    }
    arch = config["models"][model]["arch"]
    if arch in TABLE_ARCHS:  # CoNMT: the un-joined text's tables
        files.update((k, v) for k, v in table_files(dataset, arch).items() if v)
    return files


def fertility_labels(config: dict, dataset: str, model: str, split: str,
                     kind: str) -> str:
    """Fertility labels of a split as the model's classes need (kind "" or "gold.")."""
    n = FERTILITY_CLASSES[config["models"][model]["arch"]]
    return f"results/{dataset}/phrases/{split}.{kind}fert{n}"


def fertility_test_labels(config: dict, dataset: str, model: str,
                          testset: str) -> dict[str, str]:
    """The test labels to score against: the aligner's, and gold ones if synthetic."""
    files = {"aligner": fertility_labels(config, dataset, model, testset, "")}
    if wf.source(config, dataset) == "synthetic":
        files["gold"] = fertility_labels(config, dataset, model, testset, "gold.")
    return files


def fertility_test_label_args(config: dict, dataset: str, model: str, testset: str,
                              input) -> str:
    """`KIND=FILE` of every set of test labels."""
    kinds = fertility_test_labels(config, dataset, model, testset)
    return " ".join(f"{kind}={getattr(input, kind)}" for kind in kinds)


def decode_model(config: dict, dataset: str, model: str, seed: str) -> str:
    """The model file to decode: with the trained fertility module if it has one."""
    arch = config["models"][model]["arch"]
    name = "fertility.pt" if arch in FERTILITY_CLASSES else "averaged.pt"
    return runs.run_file(dataset, model, seed, name)


def fertility_tsvs(config: dict, dataset: str, testset: str) -> list[str]:
    """Fertility scores of every seed of every fertility model."""
    models = set(fertility_models(config))
    return [f"results/{dataset}/analysis/fertility/{testset}/{m}.seed{s}.tsv"
            for m in wf.models(config, dataset) if m in models
            for s in runs.seeds(config, m)]


def run_dirs(config: dict, dataset: str) -> list[tuple[str, str]]:
    """(model, run folder) of every seed of the family."""
    return [(m, runs.run_dir(dataset, m, s))
            for m in wf.family_models(config, "continuous", dataset)
            for s in runs.seeds(config, m)]


def run_summaries(config: dict, dataset: str) -> list[str]:
    return [f"{d}/summary.json" for _, d in run_dirs(config, dataset)]


def efficiency_targets(config: dict, dataset: str) -> list[str]:
    """The training target text of every family model (the table counts it)."""
    return [continuous_target(config, dataset, m, "train")
            for m in wf.family_models(config, "continuous", dataset)]


def efficiency_args(config: dict, dataset: str) -> str:
    """`--run MODEL=DIR ... --train-tgt MODEL=FILE ...` of the efficiency table."""
    models = wf.family_models(config, "continuous", dataset)
    dirs = " ".join(f"{m}={d}" for m, d in run_dirs(config, dataset))
    tgts = " ".join(f"{m}={continuous_target(config, dataset, m, 'train')}"
                    for m in models)
    return f"--run {dirs} --train-tgt {tgts}"


def family_order(config: dict, dataset: str) -> str:
    return ",".join(wf.family_models(config, "continuous", dataset))
