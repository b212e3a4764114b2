"""Start-up validation: each class of bad config fails with one line naming the key.

The config is the default experiment (its frozen copy, tests/data/config.yaml)
with one override merged in as `snakemake --config` / `--configfile` would;
`experiment.start` is exactly what rules/common.smk runs.
tests/workflow/test_workflow.py runs a few of these through `snakemake -n` itself.
"""

from __future__ import annotations

import copy
import gzip
import json
import lzma
import os
import shutil
from pathlib import Path

import pytest
import yaml

from phrasenmt import experiment
from phrasenmt.config import load_yaml
from phrasenmt.io import InputError
from phrasenmt.training.spec import load_spec, resolve_spec
from phrasenmt.workflow import base as wf
from tests.conftest import REPO, TEST_CONFIG
from tests.unit.test_function_words import ENGLISH as ENGLISH_PROSE
from tests.unit.test_function_words import FRENCH as FRENCH_PROSE
from tests.unit.test_function_words import GERMAN as GERMAN_PROSE
from tests.unit.test_function_words import REPEATS

BASE = yaml.safe_load(TEST_CONFIG.read_text(encoding="utf-8"))


def merged(override: dict, base: dict = BASE) -> dict:
    """The config updated with `override` the way Snakemake merges configs."""
    def update(into: dict, new: dict) -> None:
        for key, value in new.items():
            if isinstance(value, dict) and isinstance(into.get(key), dict):
                update(into[key], value)
            else:
                into[key] = value

    config = copy.deepcopy(base)
    update(config, override)
    return config


def model(name: str, **settings) -> dict:
    """An override of one model entry's settings."""
    return {"models": {name: settings}}


def dataset(name: str, **settings) -> dict:
    """An override of one dataset entry's settings."""
    return {"datasets": {name: settings}}


CASES = [
    # dataset keys that would be read for no file of the dataset
    ("generator settings on a local dataset", {"datasets": {"mine": {
         "source": "local", "src": "en", "tgt": "de", "synthetic": {"train_size": 5},
         "local": {s: {"src": f"{s}.en", "tgt": f"{s}.de"} for s in ("train", "dev")}
         | {"test": {"t": {"src": "t.en", "tgt": "t.de"}}}}}},
      "datasets.mine.synthetic: is read for source synthetic only, and this dataset's"),
    ("a download name on a synthetic dataset",
      {"datasets": {"synthetic_en_de": {"name": "iwslt14"}}},
      "datasets.synthetic_en_de.name: is read for source download only"),
    ("distractor gender with every antecedent 1 back", dataset(
         "synthetic_en_de", synthetic={"antecedent_distance": {1: 1.0},
                                       "distractor_gender": "other"}),
     "datasets.synthetic_en_de.synthetic.distractor_gender: picks the nouns"),
    ("pronoun items' dev share without pronoun items", dataset(
         "synthetic_de_en", synthetic={"contrastive_dev_fraction": 0.2}),
     "datasets.synthetic_de_en.synthetic.contrastive_dev_fraction: splits the"),
    ("contrastive sets without document models", dataset(
         "synthetic_de_en", contrastive={"cs": {"format": "voita", "json": "a.json"}}),
     "datasets.synthetic_de_en.contrastive: the contrastive sets are scored by"),
    ("a key without a value", {"seed": None}, "seed: no value given (expected integer)"),
    ("one baseline that does not train everywhere", {"baseline": "transformer"},
      "baseline: model 'transformer' does not train on 'synthetic_de_en', which trains "),
    ("a type name for ContraPro's typed items", dataset("synthetic_en_de", contrastive={
         "cp": {"format": "contrapro", "json": "c.json", "text_src": "s", "text_tgt": "t",
                "context_src": "cs", "context_tgt": "ct", "extracted": 1, "name": "x"}}),
     "datasets.synthetic_en_de.contrastive.cp.name: not read for format contrapro"),
    # an empty path was read as the working folder ("is a folder") or, for a
    # mirror, as no mirror at all
    ("an empty mirror path", {"mirror": ""}, "mirror: '' should be non-empty"),
    # an empty list built every dataset, as if the key were not there
    ("run_datasets that names none", {"run_datasets": []},
     "run_datasets: [] should be non-empty"),
    ("an empty contrastive file path", dataset("synthetic_en_de", contrastive={
         "vo": {"format": "voita", "json": ""}}),
     "datasets.synthetic_en_de.contrastive.vo.json: '' should be non-empty"),
    ("an empty extra text path", {"embeddings": {"extra_mono": ""}},
     "embeddings.extra_mono: '' should be non-empty"),
    ("a contrastive set's file not there", dataset("synthetic_en_de", contrastive={
         "vo": {"format": "voita", "json": "nowhere/c.json"}}),
     "datasets.synthetic_en_de.contrastive.vo.json: nowhere/c.json: file not found in "),
    ("Lingeval97 on de-en", dataset("synthetic_de_en", lingeval=True),
     "datasets.synthetic_de_en.lingeval: Lingeval97's agreement items are en-de only"),
    # keys that would build or read nothing for the entry they are given to
    ("vocabulary size given", model("transformer", model={"src_vocab_size": 7}),
     "models.transformer.model.src_vocab_size: is set from the training data"),
    ("phrase_hidden without attentive pooling", model("pr_mean", model={"phrase_hidden": 64}),
     "models.pr_mean.model.phrase_hidden: is W1's width in attentive pooling"),
    ("fertility_hidden without fertility", model("conmt", model={"fertility_hidden": 32}),
     "models.conmt.model.fertility_hidden: is the fertility module's width"),
    ("fertility classes against the arch", model("conmt", model={"fertility_classes": 2}),
     "models.conmt.model.fertility_classes: is set by the arch (conmt: 0)"),
    ("NPMT without its reordering layer under the name npmt",
     model("npmt", model={"use_reordering": False}),
     "models.npmt.model.use_reordering: is set by the arch (npmt: True)"),
    ("NPMT's ablation with the layer it ablates",
     model("npmt_noreorder", model={"use_reordering": True}),
     ("models.npmt_noreorder.model.use_reordering: is set by the arch (npmt_noreorder: "
     "False)")),
    ("window without reordering", model("npmt_noreorder", model={"window": 5}),
     "models.npmt_noreorder.model.window: is the reordering layer's window"),
    ("detach_context with a frozen sentence model",
      model("han_dec", model={"detach_context": True}),
     "models.han_dec.model.detach_context: matters only when the sentence model trains"),
    ("label smoothing for CoNMT", model("conmt", train={"label_smoothing": 0.1}),
     "models.conmt.train.label_smoothing: the continuous-output models' loss"),
    ("vocab_min_freq of a second step", model("han_dec", train={"vocab_min_freq": 3}),
     "models.han_dec.train.vocab_min_freq: the vocabulary is the init_from model's"),
    ("warmup_fraction under schedule steps",
      model("transformer", train={"warmup_fraction": 0.2}),
     "models.transformer.train.warmup_fraction: is read by schedule: time only"),
    ("warmup_steps under schedule time", model("transformer", train={
         "schedule": "time", "max_minutes": 5, "warmup_steps": 10}),
     "models.transformer.train.warmup_steps: is read by schedule: steps only"),
    ("min_delta without early stopping", model("transformer", train={"min_delta": 0.1}),
     "models.transformer.train.min_delta: is read by early stopping only"),
    ("context cache without frozen HAN states",
      model("ctx_transformer", train={"context_cache_mb": 100}),
     "models.ctx_transformer.train.context_cache_mb: keeps the frozen context states"),
    ("freeze in joint fine-tuning",
      model("han_dec", joint_finetune={"train": {"freeze": "loaded"}}),
     "models.han_dec.joint_finetune.train.freeze: joint fine-tuning trains every"),
    ("context cache in joint fine-tuning, which freezes nothing",
     model("han_dec", joint_finetune={"train": {"context_cache_mb": 100}}),
     "models.han_dec.joint_finetune.train.context_cache_mb: keeps the frozen context"),
    ("vocab_min_freq in joint fine-tuning",
     model("han_dec", joint_finetune={"train": {"vocab_min_freq": 2}}),
     "models.han_dec.joint_finetune.train.vocab_min_freq: the vocabulary is the "),
    ("min_delta in joint fine-tuning without early stopping",
     model("han_dec", joint_finetune={"train": {"min_delta": 0.1}}),
     "models.han_dec.joint_finetune.train.min_delta: is read by early stopping only"),
    ("a hand-written entry named as a joint step is checked as any entry",
     model("han_dec_joint", arch="han_dec", preset="tiny", init_from="han_dec",
           datasets=["synthetic_en_de"], model={"context_size": 3,
                                                "context_init": "random"},
           train={"freeze": "none", "min_delta": 0.1}),
     "models.han_dec_joint.train.min_delta: is read by early stopping only"),
    ("vocab_min_freq of a continuous-output model",
     model("conmt", train={"vocab_min_freq": 2}),
     ("models.conmt.train.vocab_min_freq: is 2, but conmt predicts the embedding of "
     "each target word and has none for <unk>: keep 1")),
    ("a fastText table the workflow sets",
     model("pconmt_fert2", model={"word_table": "mine.vec"}),
     ("models.pconmt_fert2.model.word_table: is set by the workflow to the dataset's "
     "fastText run")),
    ("a fastText model the workflow sets",
     model("conmt", model={"fasttext_model": "mine.bin"}),
     "models.conmt.model.fasttext_model: is set by the workflow"),
    ("NPMT's LM weight where no decoding uses the LM",
     model("npmt_noreorder", model={"lambda2": 0.3}),
     ("config: models.npmt_noreorder.model.lambda2: weighs the external LM in Eq. 3, "
     "and no decoding of this model uses one")),
    ("NPMT's LM weight that the LM row overrides",
     model("npmt", model={"lambda2": 0.3}),
     ("config: models.npmt.model.lambda2: is the default of the beam search's lambda2, "
     "and every decoding that would read it gives its own (models.npmt_lm.decode."
     "lambda2)")),
    ("NPMT's beam that every decoding overrides",
     {"models": {"npmt": {"model": {"beam": 6}, "decode": {"beam": 8}},
                 "npmt_lm": {"decode": {"beam": 5}}}},
     ("config: models.npmt.model.beam: is the default of the beam search's beam, and "
     "every decoding that would read it gives its own (models.npmt.decode.beam, "
     "models.npmt_lm.decode.beam)")),
    ("NPMT's lambda1 that its sweep's models override",
     {"models": {"npmt": {"decode": {"lambda1": 0.7}}, "npmt_lm": {"decode": {
         "lambda1": 0.7}}}, "sweeps": {"npmt_l1": {
         "model": "npmt", "key": "model.lambda1", "values": [0.5, 0.9]}}},
     ("config: models.npmt_lambda10p5.model.lambda1 (a model of sweeps.npmt_l1): is the "
     "default of the beam search's lambda1")),
    ("more than one GPU for a checkpoint_of entry",
     model("npmt_lm", gpus=2),
     "models.npmt_lm.gpus: 2, but a checkpoint_of entry trains nothing"),
    ("heads do not divide the width", model("pr_max", model={"n_heads": 5}),
     "models.pr_max.model.n_heads: 5 does not divide d_model 128"),
    ("dropout out of range", model("transformer", model={"dropout": 1.0}),
     "models.transformer.model.dropout: must be in [0, 1), got 1.0"),
    ("negative learning rate", model("conmt", train={"lr": -0.001}),
     "models.conmt.train.lr: must be > 0, got -0.001"),
    ("NaN learning rate", model("transformer", train={"lr": float("nan")}),
     "models.transformer.train.lr: must be a finite number, got nan"),
    ("zero budget", model("npmt", train={"max_steps": 0}),
     "models.npmt.train.max_steps: must be >= 1, got 0"),
    ("even reordering window", model("npmt", model={"window": 4}),
     "models.npmt.model.window: reordering window must be an odd number >= 1"),
    ("negative LM weight", model("npmt", model={"lambda2": -0.5}),
     "models.npmt.model.lambda2: must be >= 0, got -0.5"),
    ("no segment length", model("npmt_noreorder", model={"max_segment_len": 0}),
     "models.npmt_noreorder.model.max_segment_len: must be >= 1, got 0"),
    ("greedy segment search with Eq. 3 weights", model("npmt", decode={"beam": 1}),
     ("models.npmt.decode.beam: 1 is the greedy segment search, the model's own "
       "argmax, which reads no Eq. 3 weights (lambda1 1)")),
    ("label smoothing for NPMT", model("npmt", train={"label_smoothing": 0.1}),
     "models.npmt.train.label_smoothing: NPMT maximizes a marginal likelihood"),
    ("odd RNN width", model("attn_rnn", model={"hidden_size": 33}),
     "models.attn_rnn.model.hidden_size: must be even"),
    ("fertility classes", model("pconmt_fert2", model={"fertility_classes": 3}),
     "models.pconmt_fert2.model.fertility_classes: must be one of 0, 2, 4, got 3"),
    ("unknown model key", model("transformer", model={"d_modle": 64}),
     "models.transformer.model.d_modle: unknown key 'd_modle'"),
    ("wrong type", model("transformer", model={"d_model": "wide"}),
     "models.transformer.model.d_model: expected int, got 'wide'"),
    ("preset the arch lacks", model("npmt", preset="big"),
     "models.npmt.preset: unknown preset 'big' for arch 'npmt'"),
    ("pairs longer than the positions",
      model("transformer", train={"max_len": 300}, model={"max_positions": 256}),
     "models.transformer.train.max_len: is 300, but model.max_positions 256"),
    ("keeps fewer than it averages", model("transformer", train={"keep_last": 1,
                                                           "average_last": 2}),
     "models.transformer.train.keep_last: keeps 1 checkpoints but average_last"),
    ("freeze without init_from", model("transformer", train={"freeze": "none"}),
     "models.transformer.train.freeze: is 'none', which only applies"),
    ("NaN decoding weight", model("npmt", decode={"lambda1": float("inf")}),
     "models.npmt.decode.lambda1: must be a finite number, got inf"),
    ("language code", dataset("synthetic_en_de", src="English"),
     "datasets.synthetic_en_de.src: 'English' is not a language code"),
    ("sentencepiece on the synthetic pronoun items",
      dataset("synthetic_en_de", bpe={"backend": "sentencepiece", "merges": 10000}),
     ("datasets.synthetic_en_de.bpe.backend: sentencepiece, but the document-level "
       "models (ctx_transformer")),
    ("withdrawn language code", {"datasets": {"my_docs": {
         "source": "local", "src": "en", "tgt": "iw", "local": {
             "train": {"src": "t.en", "tgt": "t.iw"}, "dev": {"src": "d.en", "tgt": "d.iw"},
             "test": {"test": {"src": "s.en", "tgt": "s.iw"}}}}}},
      "datasets.my_docs.tgt: 'iw' is the withdrawn code for Hebrew; write 'he'"),
    ("withdrawn source code", dataset("synthetic_en_de", src="in"),
     "datasets.synthetic_en_de.src: 'in' is the withdrawn code for Indonesian; write 'id'"),
    ("source is target", dataset("synthetic_en_de", tgt="en"),
     "datasets.synthetic_en_de.tgt: 'en' is also the source language"),
    ("no stopword list", dataset("synthetic_de_en", tgt="qq"),  # the continuous models' dataset
      ("datasets.synthetic_de_en.tgt: stopwordsiso has no stopword list for 'qq', which "
      "the phrase filters of the continuous-output models need")),
    ("generator direction", dataset("synthetic_en_de", tgt="fr"),
     "datasets.synthetic_en_de.src: the synthetic generator writes en-de or de-en"),
    ("document lengths", dataset("synthetic_en_de", synthetic={
         "min_doc_sentences": 5, "max_doc_sentences": 2}),
     "datasets.synthetic_en_de.synthetic.max_doc_sentences: 2 is less than"),
    ("long sentences dropped by cleaning", dataset("synthetic_en_de", synthetic={
         "max_sentence_tokens": 120}),
     "datasets.synthetic_en_de.synthetic.max_sentence_tokens: 120 is more than clean"),
    ("unknown generator rate", dataset("synthetic_en_de", synthetic={
         "rates": {"pronouns": 0.5}}),
     "datasets.synthetic_en_de.synthetic.rates.pronouns: unknown rate"),
    ("download direction", {"datasets": {"m30k": {
         "source": "download", "name": "multi30k", "src": "en", "tgt": "vi"}}},
      "datasets.m30k.name: dataset 'multi30k' has no en-vi direction"),
    ("unsorted length bins", {"evaluate": {"length_bins": [25, 15, 35]}},
      "evaluate.length_bins: must increase strictly, but 15 follows 25"),
    ("repeated reordering bins", {"evaluate": {"reordering_bins": [0, 3, 3]}},
      "evaluate.reordering_bins: must increase strictly, but 3 follows 3"),
    ("fastText n-gram bounds", {"embeddings": {"minn": 7, "maxn": 3}},
      "embeddings.minn: 7 is more than maxn 3"),
    ("beam of a nearest-neighbour model", model("conmt", decode={"beam": 5}),
     ("models.conmt.decode.beam: not used by arch 'conmt', whose search decodes "
      "greedily (nearest neighbour in the output table)")),
    ("lenpen of a segment search", model("npmt", decode={"lenpen": 1.0}),
     ("models.npmt.decode.lenpen: not used by arch 'npmt', whose search reads only "
      "beam, lambda1, lambda2, lm")),
    ("lenpen of a greedy search", model("attn_rnn", decode={"beam": 1, "lenpen": 1.0}),
     "models.attn_rnn.decode.lenpen: has no effect with beam 1 (greedy search)"),
    ("a beam for an attention RNN of no NPMT table",
      model("rnn_en_de", arch="attn_rnn", preset="tiny", datasets=["synthetic_en_de"],
            decode={"beam": 5}),
     "models.rnn_en_de.decode.beam: this attention RNN decodes greedily"),
    ("Eq. 3 weight of a Transformer", model("transformer", decode={"lambda1": 1.0}),
     "config: models.transformer.decode.lambda1: applies to NPMT models"),
    ("no room for a word", {"decode": {"max_len_a": 0, "max_len_b": 0}},
      ("decode.max_len_b: with max_len_a 0 the output cap a * source length + b "
      "(</s> included) is 0 for a one-token sentence: no room for a word")),
    ("room for </s> only", {"decode": {"max_len_a": 0.5, "max_len_b": 1}},
      "decode.max_len_b: with max_len_a 0.5 the output cap"),
]


@pytest.mark.parametrize("override, message", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_bad_config_is_one_line_naming_the_key(override: dict, message: str):
    with pytest.raises(InputError) as err:
        experiment.start(merged(override))
    assert str(err.value).startswith(message), str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("override", [
    model("pr_max_attn", model={"phrase_hidden": 64}),
    model("pconmt_fert2", model={"fertility_hidden": 32, "fertility_classes": 2}),
    model("npmt", model={"window": 5}),
    model("han_enc", model={"detach_context": True}, train={"freeze": "none"}),
    model("han_enc", model={"detach_context": True}, joint_finetune={"train": {"lr": 1e-4}}),
    model("han_dec", train={"context_cache_mb": 100}),
    model("transformer", train={"schedule": "time", "max_minutes": 5,
                                "warmup_fraction": 0.2}),
    model("transformer", train={"patience": 3, "min_delta": 0.1}),
    model("transformer", train={"vocab_min_freq": 2}),
    model("conmt", train={"vocab_min_freq": 1}),
    model("han_dec", joint_finetune={"train": {"lr": 1e-4, "patience": 2,
                                               "min_delta": 0.1}}),
    model("npmt", model={"beam": 6, "lambda1": 0.5}),  # npmt_lm reads them too
    model("npmt", model={"beam": 6}, decode={"beam": 8}),  # npmt_lm reads model.beam
    model("npmt_noreorder", model={"lambda2": 0.3}, decode={"lm": True}),
    model("npmt_lm", gpus=0),
    model("npmt", model={"use_reordering": True}),  # the arch's own value
], ids=str)
def test_the_same_keys_where_they_take_effect_pass(override):
    experiment.start(merged(override))


def test_the_default_experiment_and_every_shipped_config_pass():
    shipped = yaml.safe_load((REPO / "config.yaml").read_text(encoding="utf-8"))
    experiment.start(merged({}, shipped))
    for path in sorted((REPO / "configs").glob("*.yaml")):
        override = yaml.safe_load(path.read_text(encoding="utf-8"))
        experiment.start(merged(override, shipped), [REPO / "config.yaml", path])


def test_a_key_written_twice_names_it_and_both_lines(tmp_path: Path):
    path = tmp_path / "twice.yaml"
    path.write_text("models:\n  a: {arch: transformer, preset: tiny}\n"
                    "  b: {arch: transformer, preset: tiny}\n"
                    "  a: {arch: pr_max, preset: tiny}\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        experiment.check_config_files([path])
    assert str(err.value) == (f"{path}:4: models.a: key written twice (first at "
                              "line 2); the first would be silently dropped")
    assert load_yaml("a: {b: 1, c: [{d: 1}, {d: 2}]}", "x") == {
        "a": {"b": 1, "c": [{"d": 1}, {"d": 2}]}}


def test_a_target_read_as_a_config_file_is_named(tmp_path: Path):
    """`snakemake --configfile my.yaml results/.../summary.json`: Snakemake reads the
    run's summary (a JSON mapping) as a second config file; the line names it."""
    summary = tmp_path / "summary.json"
    summary.write_text(json.dumps({"arch": "transformer", "preset": "small",
                                   "params": 6813696, "steps": 23,
                                   "precision": "bf16"}), encoding="utf-8")
    override = tmp_path / "my.yaml"  # one mistyped key is the schema's to name
    override.write_text("seed: 2\ncolour: red\n", encoding="utf-8")
    assert [p for p, _ in experiment.check_config_files([override])] == [override]
    with pytest.raises(InputError) as err:
        experiment.check_config_files([override, summary])
    assert str(err.value) == (
        f"{summary}: 4 of its 5 top-level keys are no config keys (arch, preset, "
        "params, ...): snakemake reads every word after --configfile as a config file, "
        "so name targets before --configfile")


def test_train_spec_runs_the_same_checks(tmp_path: Path):
    spec = tmp_path / "spec.yaml"
    spec.write_text("arch: pr_max\nmodel: {n_heads: 5}\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        resolve_spec(*load_spec(str(spec)))
    assert str(err.value) == f"{spec}: model.n_heads: 5 does not divide d_model 128"
    spec.write_text("arch: pr_max\ntrain: {lr: 1}\ntrain: {lr: 2}\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"spec.yaml:3: train: key written twice"):
        load_spec(str(spec))
    inline = json.dumps({"arch": "npmt", "train": {"label_smoothing": 0.1}})
    with pytest.raises(InputError, match="^spec: train.label_smoothing: NPMT"):
        resolve_spec(*load_spec(inline))


# Each split's own lines: the start-up refuses a held-out file with a training
# file's bytes
SPLIT_TEXT = {"train": b"a b\nc d\ne f\n", "dev": b"g h\ni j\nk l\n",
              "test": b"m n\no p\nq r\n"}


def local_dataset(tmp: Path, **files: bytes) -> dict:
    """A config whose only dataset is a local one with these files (`train.src`
    and so on: every split's src and tgt exist with 3 lines unless given)."""
    paths = {}
    for split in ("train", "dev", "test"):
        for side in ("src", "tgt", "docs"):
            name = f"{split}.{side}"
            if side != "docs" or name in files:
                (tmp / name).write_bytes(files.get(name, SPLIT_TEXT[split]))
                paths.setdefault(split, {})[side] = str(tmp / name)
    config = merged({})
    config["datasets"] = {"mine": {"source": "local", "src": "en", "tgt": "de",
                                   "local": {"train": paths["train"],
                                             "dev": paths["dev"],
                                             "test": {"t1": paths["test"]}}}}
    config["run_datasets"] = ["mine"]
    return config


@pytest.mark.parametrize("files, message", [
    ({"dev.tgt": b"a\nb\n"}, ("datasets.mine.local.dev: {dev_src}: has 3 lines but "
     "{dev_tgt} has 2; parallel files must match")),
    ({"test.src": b"a\nb\nc\nd"}, ("datasets.mine.local.test.t1: {test_src}: has 4 "
     "lines but {test_tgt} has 3")),
    ({"train.docs": b"d1\nd1\n"}, ("datasets.mine.local.train: {train_docs}: has 2 "
     "lines but {train_src} has 3; a docs file needs one document id per text line")),
    ({"dev.docs": b"d1\nd2\nd1\n"}, ("datasets.mine.local.dev: {dev_docs}:3: document "
     "'d1' reappears after document 'd2'; a document's lines must be contiguous")),
    ({"train.src": b"", "train.tgt": b""},
     "datasets.mine.local.train: {train_src}: the file is empty: no sentences"),
    ({"test.tgt": b""}, "datasets.mine.local.test.t1: {test_tgt}: the file is empty"),
    # one side saved as UTF-16 (a BOM, two bytes a character): its line count
    # differed from the other side's, and that was the message
    ({"dev.src": "a b\nc d\ne f\n".encode("utf-16")},
     "datasets.mine.local.dev: {dev_src}:1: UTF-16 text; convert it to UTF-8"),
    ({"dev.docs": "d1\nd1\nd1\n".encode("utf-16")},
     "datasets.mine.local.dev: {dev_docs}:1: UTF-16 text; convert it to UTF-8"),
    ({"train.tgt": "a b\nc d\ne f\n".encode("utf-16-le")},
     "datasets.mine.local.train: {train_tgt}:1: NUL byte at column 2"),
    # corpora come as WMT's .gz and .xz files; given packed, each was "invalid
    # UTF-8 at byte 1"
    ({"train.src": gzip.compress(b"a b\nc d\ne f\n", mtime=0)},
     ("datasets.mine.local.train: {train_src}: gzip-compressed, not text: unpack "
      "it first (gunzip) and give the text file")),
    ({"test.tgt": lzma.compress(b"a b\nc d\ne f\n")},
     ("datasets.mine.local.test.t1: {test_tgt}: xz-compressed, not text: unpack it "
      "first (unxz)")),
])
def test_local_files_are_checked_across_files_at_start(tmp_path, files, message):
    config = local_dataset(tmp_path, **files)
    names = {f"{s}_{k}": tmp_path / f"{s}.{k}" for s in ("train", "dev", "test")
             for k in ("src", "tgt", "docs")}
    with pytest.raises(InputError) as err:
        experiment.check_datasets(config)
    assert str(err.value).startswith(message.format(**names)), str(err.value)


def test_a_first_line_longer_than_the_encoding_check_reads_is_fine(tmp_path):
    """The start-up reads 64 KiB of a first line for its encoding: a line of
    two-byte letters longer than that is not cut inside a letter."""
    line = "ä" * 40_000 + "\n"
    config = local_dataset(tmp_path, **{f"dev.{side}": (line * 3).encode()
                                        for side in ("src", "tgt")})
    config["datasets"]["mine"]["local"]["language_check"] = False
    experiment.check_datasets(config)


@pytest.mark.parametrize("split, side, also, message", [
    ("test.t1", "src", "train.src", ("is also the train split's src file: every line "
     "of this split would be one the model was trained on; hold out other lines for it")),
    ("dev", "tgt", "train.tgt", "is also the train split's tgt file"),
    ("test.t1", "tgt", "dev.tgt", ("is also the dev split's tgt file: every line of "
     "this split would be one the checkpoints were chosen on")),
])
def test_a_training_or_dev_file_given_for_a_later_split_is_refused(
        tmp_path, split, side, also, message):
    """The same file for training and testing: the data_stats job warned of it
    after the whole run; the start-up names it."""
    config = local_dataset(tmp_path)
    local = config["datasets"]["mine"]["local"]
    pair = local["test"]["t1"] if split == "test.t1" else local[split]
    pair[side] = str(tmp_path / also)
    with pytest.raises(InputError) as err:
        experiment.check_datasets(config)
    assert str(err.value).startswith(
        f"datasets.mine.local.{split}.{side}: {tmp_path}/{also} {message}"), err.value


@pytest.mark.parametrize("make", ["hard link", "symbolic link", "copy"])
def test_a_held_out_file_that_is_a_training_file_under_another_name_is_refused(
        tmp_path, make):
    """A test file that is the training file by another path: a link to it, or
    a copy of its bytes (`cp train.de test.de` as a placeholder)."""
    config = local_dataset(tmp_path)
    test = tmp_path / "test.tgt"
    test.unlink()
    {"hard link": lambda: os.link(tmp_path / "train.tgt", test),
     "symbolic link": lambda: test.symlink_to(tmp_path / "train.tgt"),
     "copy": lambda: shutil.copyfile(tmp_path / "train.tgt", test)}[make]()
    with pytest.raises(InputError) as err:
        experiment.check_datasets(config)
    # the fixture's train.src has train.tgt's bytes too, and comes first
    how, side = ("has the same bytes as", "src") if make == "copy" else ("is also", "tgt")
    assert str(err.value) == (
        f"datasets.mine.local.test.t1.tgt: {test} {how} the train split's {side} file: "
        "every line of this split would be one the model was trained on; hold out "
        "other lines for it")


def test_a_held_out_file_of_the_same_size_but_other_bytes_passes(tmp_path):
    config = local_dataset(tmp_path, **{"test.tgt": b"a b\nc d\ne g\n"})
    experiment.check_datasets(config)


def test_two_test_sets_may_share_a_copy(tmp_path):
    config = local_dataset(tmp_path)
    for side in ("src", "tgt"):
        shutil.copyfile(tmp_path / f"test.{side}", tmp_path / f"test2.{side}")
    config["datasets"]["mine"]["local"]["test"]["t2"] = {
        side: str(tmp_path / f"test2.{side}") for side in ("src", "tgt")}
    experiment.check_datasets(config)


def test_two_test_sets_may_share_a_file(tmp_path):
    config = local_dataset(tmp_path)
    local = config["datasets"]["mine"]["local"]
    local["test"]["t2"] = dict(local["test"]["t1"])
    experiment.check_datasets(config)


def test_a_local_path_that_is_a_folder_is_refused(tmp_path):
    config = local_dataset(tmp_path)
    (tmp_path / "corpus").mkdir()
    config["datasets"]["mine"]["local"]["dev"]["tgt"] = str(tmp_path / "corpus")
    with pytest.raises(InputError) as err:
        experiment.check_datasets(config)
    assert str(err.value) == (f"datasets.mine.local.dev: {tmp_path}/corpus: is a "
                              "folder; give a file path")


def test_one_file_as_both_sides_is_refused(tmp_path):
    config = local_dataset(tmp_path)
    config["datasets"]["mine"]["local"]["train"]["tgt"] = str(tmp_path / "train.src")
    with pytest.raises(InputError) as err:
        experiment.check_datasets(config)
    assert str(err.value) == (f"datasets.mine.local.train: {tmp_path}/train.src: is "
                              "both the source and the target file; give each "
                              "language its own")


@pytest.mark.parametrize("name, message", [
    ("dev", ("datasets.mine.local.test.dev: a test set cannot be named dev: its files "
              "would be the dev split's; rename it")),
    ("train", "datasets.mine.local.test.train: a test set cannot be named train"),
    ("news/2020", "datasets.mine.local.test: 'news/2020' does not match"),
    ("my test", "datasets.mine.local.test: 'my test' does not match"),
])
def test_a_test_set_name_that_cannot_name_its_files_is_refused(tmp_path, name, message):
    """A test set's files are data/NAME.{src,tgt}: a slash or a space would make
    paths the rules cannot build, and dev or train would be another split's."""
    config = local_dataset(tmp_path)
    local = config["datasets"]["mine"]["local"]
    local["test"] = {name: local["test"]["t1"]}
    with pytest.raises(InputError) as err:
        experiment.start(config)
    assert str(err.value).startswith(message), str(err.value)


def test_a_local_split_with_source_and_target_swapped_is_refused_at_start(tmp_path):
    english = b"Open the file in the editor and save it before you close it.\n"
    hebrew = "פתח את הקובץ ב-Emacs ושמור אותו.\n".encode()
    # each split its own line count: no held-out file has a training file's bytes
    files = {"train.src": english * 3, "train.tgt": hebrew * 3,
             "dev.src": hebrew * 4, "dev.tgt": english * 4,
             "test.src": english * 5, "test.tgt": hebrew * 5}
    config = local_dataset(tmp_path, **files)
    config["datasets"]["mine"]["tgt"] = "he"
    with pytest.raises(InputError) as err:
        experiment.check_datasets(config)
    assert str(err.value) == (f"datasets.mine.local.dev: {tmp_path}/dev.src: 80 % of "
                              "its letters are Hebrew, the script of the target "
                              "language he, and 20 % Latin: source and target "
                              "swapped?")
    config["datasets"]["mine"]["tgt"] = "de"  # one script: not compared
    experiment.check_datasets(config)


def _prose(lang: str, split: str = "train") -> bytes:
    """Prose in `lang`, its lines rotated by the split's place, so that no
    held-out file has a training file's bytes."""
    lines = {"en": ENGLISH_PROSE, "de": GERMAN_PROSE, "fr": FRENCH_PROSE}[lang] * REPEATS
    n = ("train", "dev", "test").index(split)
    return "".join(line + "\n" for line in lines[n:] + lines[:n]).encode()


def test_a_local_split_swapped_in_one_script_is_refused_at_start(tmp_path):
    """en-de: the training source holds the German and the target the
    English; `local.language_check: false` lets it through."""
    files = {"train.src": _prose("de"), "train.tgt": _prose("en"),
             "dev.src": _prose("en", "dev"), "dev.tgt": _prose("de", "dev"),
             "test.src": _prose("en", "test"), "test.tgt": _prose("de", "test")}
    config = local_dataset(tmp_path, **files)
    with pytest.raises(InputError) as err:
        experiment.check_datasets(config)
    assert str(err.value) == (
        f"datasets.mine.local.train: {tmp_path}/train.src: looks like de, not en "
        "(51 % of its words are de function words, 2 % en ones), and "
        f"{tmp_path}/train.tgt like en, not de (55 % en, 2 % de): source and target "
        "swapped?")
    config["datasets"]["mine"]["local"]["language_check"] = False
    experiment.check_datasets(config)


def test_a_local_file_in_another_language_is_warned_of_at_start(tmp_path):
    """A French dev.de: one start-up line naming the split, the file and the
    two languages; none with `local.language_check: false`, and none for a
    language without a list."""
    files = {"train.src": _prose("en"), "train.tgt": _prose("de"),
             "dev.src": _prose("en", "dev"), "dev.tgt": _prose("fr", "dev"),
             "test.src": _prose("en", "test"), "test.tgt": _prose("de", "test")}
    config = local_dataset(tmp_path, **files)
    experiment.check_datasets(config)  # valid: a warning, not an error
    assert wf.local_language_warnings(config) == [
        (f"warning: config datasets.mine.local.dev ({tmp_path}/dev.tgt): looks like "
         "fr, not de, the target language (48 % of its words are fr function words, "
         "2 % de ones): the wrong file, or a wrong language code?")]
    config["datasets"]["mine"]["tgt"] = "sk"  # no list: not judged
    assert wf.local_language_warnings(config) == []
    config["datasets"]["mine"]["tgt"] = "de"
    config["datasets"]["mine"]["local"]["language_check"] = False
    assert wf.local_language_warnings(config) == []


@pytest.mark.parametrize("gone, key", [
    ("dev.tgt", "local.dev.tgt"), ("test.src", "local.test.t1.src"),
    ("train.docs", "local.train.docs")])
def test_a_local_file_that_is_not_there_is_refused_naming_its_key(tmp_path, gone, key):
    """Snakemake said MissingInputException in rule prepare_local, with the
    wildcards of the job, not the key that names the file."""
    config = local_dataset(tmp_path, **{"train.docs": b"d1\nd1\nd2\n"})
    (tmp_path / gone).unlink()
    with pytest.raises(InputError, match=(
            f"^datasets.mine.{key}: {tmp_path}/{gone}: file not found "
            r"\(a relative path is read from the folder Snakemake runs in\)$")):
        experiment.check_files_there(config)


def test_a_relative_path_that_is_not_there_names_the_folder(tmp_path, monkeypatch):
    config = local_dataset(tmp_path)
    config["datasets"]["mine"]["local"]["dev"]["src"] = "my_corpus/dev.en"
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError, match=(
            f"^datasets.mine.local.dev.src: my_corpus/dev.en: file not found in {tmp_path} ")):
        experiment.check_files_there(config)


def test_an_empty_local_path_is_refused_naming_its_key(tmp_path):
    config = local_dataset(tmp_path)
    config["datasets"]["mine"]["local"]["train"]["src"] = ""
    with pytest.raises(InputError, match=(
            "^datasets.mine.local.train.src: '' should be non-empty$")):
        experiment.start(config)


def test_files_of_a_dataset_outside_the_run_may_come_later(tmp_path):
    config = local_dataset(tmp_path)
    (tmp_path / "dev.tgt").unlink()
    config["datasets"]["other"] = config["datasets"]["mine"]
    config["run_datasets"] = ["synthetic_en_de"]
    config["datasets"]["synthetic_en_de"] = merged({})["datasets"]["synthetic_en_de"]
    experiment.check_datasets(config)
    experiment.check_files_there(config)


def test_a_mirror_that_is_not_there_is_refused(tmp_path):
    config = merged({"mirror": str(tmp_path / "nowhere")})
    with pytest.raises(InputError, match=f"^mirror: {tmp_path}/nowhere: folder not found"):
        experiment.check_settings(config)


def test_a_mirror_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "mirror").write_text("x\n")
    config = merged({"mirror": str(tmp_path / "mirror")})
    with pytest.raises(InputError, match=f"^mirror: {tmp_path}/mirror is a file; "):
        experiment.check_settings(config)


def test_a_stanza_folder_that_is_not_there_is_refused(tmp_path):
    config = merged({"stanza_dir": str(tmp_path / "stanza_resources")})
    with pytest.raises(InputError, match=f"^stanza_dir: {tmp_path}/stanza_resources: "
                       "folder not found; give the stanza_resources folder"):
        experiment.check_settings(config)
    (tmp_path / "stanza_resources").write_text("x\n")
    with pytest.raises(InputError, match="stanza_resources: is a file"):
        experiment.check_settings(config)


def test_extra_embedding_text_that_is_not_a_file_is_refused(tmp_path):
    """embeddings.extra_mono: a missing file had passed the start and stopped
    the embeddings' text job, or Snakemake on a missing input."""
    config = merged({"embeddings": {"extra_mono": str(tmp_path / "mono.de")}})
    with pytest.raises(InputError, match=f"^embeddings.extra_mono: {tmp_path}/mono.de: "
                       "file not found; give a text file"):
        experiment.check_settings(config)
    config = merged({"embeddings": {"extra_mono": str(tmp_path)}})
    with pytest.raises(InputError, match=f"^embeddings.extra_mono: {tmp_path}: is a folder"):
        experiment.check_settings(config)
    (tmp_path / "mono.de").write_text("ein satz .\n")
    experiment.check_settings(merged({"embeddings": {"extra_mono": str(tmp_path / "mono.de")}}))


def test_a_target_without_a_stopword_list_builds_no_phrase_table(tmp_path):
    """en->km: no Khmer stopword list. A dataset none of whose models reads the
    phrase table starts, says at start-up that the table is left out, and asks
    for no phrase or embedding file; a continuous-output model on it is refused."""
    from phrasenmt.workflow import base as wf
    from phrasenmt.workflow.targets import final_targets

    config = local_dataset(tmp_path)
    config["datasets"]["mine"]["tgt"] = "km"
    config["models"] = {"transformer": {**config["models"]["transformer"],
                                        "datasets": ["mine"]}}
    experiment.check_datasets(config)
    assert wf.phrase_table_warnings(config) == [
        ("warning: config datasets.mine.tgt: stopwordsiso has no stopword list for 'km', "
          "so neither the phrase table with its fastText embeddings (which only the "
          "continuous-output models read) nor the lexical-cohesion table is built")]
    targets = final_targets(config)
    assert "results/mine/report/results.md" in targets
    assert not any("/phrases/" in t or "/embeddings/" in t for t in targets)
    config["models"]["conmt"] = {"arch": "conmt", "datasets": ["mine"]}
    with pytest.raises(InputError, match=r"^datasets.mine.tgt: stopwordsiso has no "
                                         r"stopword list for 'km', which the phrase"):
        experiment.check_datasets(config)
    config["datasets"]["mine"]["tgt"] = "de"
    assert wf.phrase_table_warnings(config) == []


def test_a_split_of_one_document_is_refused_where_a_random_context_control_trains(tmp_path):
    """A random-context control draws its contexts from other documents: a
    split of one document would fail its training job after step 1."""
    config = local_dataset(tmp_path, **{"train.docs": b"a\na\nb\n", "dev.docs": b"d\nd\nd\n",
                                        "test.docs": b"t\nu\nu\n"})
    experiment.check_datasets(config)  # no random-context control on it: valid
    config["models"] = {"doc_random": {"arch": "han_dec", "context": "random",
                                       "datasets": ["mine"]}}
    with pytest.raises(InputError) as err:
        experiment.check_datasets(config)
    assert str(err.value) == (
        f"datasets.mine.local.dev: {tmp_path}/dev.docs: holds one document, and the "
        "random-context control doc_random reads other documents' sentences as "
        "context: give this split two documents or more")


def test_the_attention_rnn_s_decode_keys_set_the_npmt_table_s_beam_row_only():
    """Kumar & Tsvetkov's baseline decodes greedily (its `.tok`, the NPMT
    table's greedy row); `decode.beam` and `lenpen` set the beam row."""
    from phrasenmt.workflow import base as wf
    from phrasenmt.workflow import npmt as wfn

    config = merged(model("attn_rnn", decode={"beam": 5, "lenpen": 1.0}))
    experiment.start(config)
    assert wf.search_args(config, "attn_rnn") == "--beam 1"
    assert wfn.translate_args(config, "attn_rnn", "beam") == "--beam 5 --lenpen 1.0"
    assert wfn.translate_args(config, "attn_rnn", "greedy") == "--beam 1"
    assert wfn.main_decoding(config, "attn_rnn") == "greedy"


def test_eflomal_settings_of_the_user_s_file_need_eflomal(tmp_path):
    """config.yaml's own eflomal_samplers stays harmless under fast_align; the
    same key written by the user with another backend is refused."""
    shipped = yaml.safe_load((REPO / "config.yaml").read_text(encoding="utf-8"))
    switch = tmp_path / "fast.yaml"
    switch.write_text("align: {backend: fast_align}\n")
    override = {"align": {"backend": "fast_align"}}
    experiment.start(merged(override, shipped), [REPO / "config.yaml", switch])
    both = tmp_path / "both.yaml"
    both.write_text("align: {backend: fast_align, eflomal_samplers: 2}\n")
    override = {"align": {"backend": "fast_align", "eflomal_samplers": 2}}
    with pytest.raises(InputError) as err:
        experiment.start(merged(override, shipped), [REPO / "config.yaml", both])
    assert str(err.value) == (f"align.eflomal_samplers: set in {both}, but "
                              "align.backend is fast_align: eflomal's settings are "
                              "read by eflomal only")


def test_entries_keep_the_order_of_config_yaml_under_an_override(tmp_path):
    """Snakemake merges config.yaml into the --configfile overrides, so a model
    an override names would lead every table; start-up restores the files'
    order: config.yaml's entries, then the override's new ones."""
    shipped = yaml.safe_load((REPO / "config.yaml").read_text(encoding="utf-8"))
    override = tmp_path / "over.yaml"
    override.write_text("models:\n  npmt: {train: {max_steps: 30}}\n"
                        "  my_rnn: {arch: attn_rnn, preset: tiny, datasets: [synthetic_de_en]}\n")
    as_snakemake = merged({"models": {"npmt": {"train": {"max_steps": 30}},
                                      "my_rnn": {"arch": "attn_rnn", "preset": "tiny",
                                                 "datasets": ["synthetic_de_en"]}}}, {})
    as_snakemake = merged(shipped, as_snakemake)  # the override's entries first
    assert list(as_snakemake["models"])[:2] == ["npmt", "my_rnn"]
    experiment.start(as_snakemake, [REPO / "config.yaml", override])
    names = list(as_snakemake["models"])
    written = [m for m in shipped["models"] if m in names]
    assert names[:len(written)] == written and "my_rnn" in names[len(written):]


def test_eflomal_settings_given_with_config_need_eflomal():
    shipped = yaml.safe_load((REPO / "config.yaml").read_text(encoding="utf-8"))
    given = {"align": {"backend": "fast_align", "eflomal_rel_iterations": 0.5}}
    with pytest.raises(InputError) as err:
        experiment.start(merged(given, shipped), [REPO / "config.yaml"], given)
    assert str(err.value).startswith("align.eflomal_rel_iterations: set in --config")
