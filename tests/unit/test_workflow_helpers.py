"""The helpers the Snakefile uses: targets, params, wildcard regexes."""

from __future__ import annotations

import json
import re
import shlex

import pytest
import yaml

from phrasenmt import workflow as wf
from phrasenmt import workflow_npmt as wfn
from phrasenmt.config import validate_config
from phrasenmt.io import InputError
from tests.conftest import REPO


@pytest.fixture
def config() -> dict:
    with open(REPO / "config.yaml", encoding="utf-8") as fh:
        return validate_config(yaml.safe_load(fh))


def test_targets_cover_report_and_stats(config):
    targets = wf.final_targets(config)
    assert "results/synthetic_en_de/report/results.md" in targets
    assert "results/synthetic_en_de/report/length_test.svg" in targets
    assert "results/synthetic_en_de/analysis/data_stats.tsv" in targets


def test_run_datasets_selects(config):
    config["datasets"]["other"] = dict(config["datasets"]["synthetic_en_de"])
    assert wf.datasets(config) == ["synthetic_en_de", "synthetic_de_en", "other"]
    config["run_datasets"] = ["other"]
    assert wf.datasets(config) == ["other"]
    assert all("/other/" in t for t in wf.final_targets(config))


def test_datasets_without_models_stop_at_embeddings(config):
    for name in wf.models(config, "synthetic_de_en"):
        del config["models"][name]
    targets = wf.final_targets(config)
    assert "results/synthetic_de_en/embeddings/phrases.vec" in targets
    assert not any(t.startswith("results/synthetic_de_en/report/") for t in targets)


def test_model_spec_is_json_with_overrides(config):
    config["models"]["transformer"]["train"] = {"max_steps": 7}
    spec = json.loads(wf.model_spec(config, "transformer"))
    assert spec == {"arch": "transformer", "preset": "tiny", "model": {},
                    "train": {"max_steps": 7}}


def test_synthetic_args_follow_config(config):
    config["datasets"]["synthetic_en_de"]["synthetic"]["rates"] = {"relative_clause": 0.5}
    args = shlex.split(wf.synthetic_args(config, "synthetic_en_de"))
    assert args[args.index("--direction") + 1] == "en-de"
    assert args[args.index("--train-size") + 1] == "40000"
    assert args[args.index("--rate-relative-clause") + 1] == "0.5"


def test_clean_args_filter_train_only(config):
    assert "--filter" in wf.clean_args(config, "synthetic_en_de", "train")
    assert "--filter" not in wf.clean_args(config, "synthetic_en_de", "test")
    assert "--pretokenized" in wf.clean_args(config, "synthetic_en_de", "test")


def test_testsets_validate_the_choice(config):
    assert wf.testsets(config, "synthetic_en_de") == ["test"]
    config["datasets"]["synthetic_en_de"]["testsets"] = ["nope"]
    with pytest.raises(Exception, match="unknown test set 'nope'"):
        wf.testsets(config, "synthetic_en_de")


def test_models_restricted_to_datasets(config):
    config["models"]["other"] = {"arch": "transformer", "preset": "tiny",
                                 "datasets": ["elsewhere"]}
    assert wf.models(config, "synthetic_en_de") == ["transformer", *wf.PHRASE_REPR_ARCHS]


def test_name_regex():
    assert re.fullmatch(wf.name_regex(["a", "b"]), "b")
    assert not re.fullmatch(wf.name_regex([]), "")
    assert not re.fullmatch(wf.name_regex([]), "x")


def test_phrase_archs_mirror_the_registered_configs():
    from phrasenmt.models.phrase_transformer import VARIANTS

    assert {a: c().segmentation for a, c in VARIANTS.items()} == wf.PHRASE_REPR_ARCHS


def test_phrase_models_get_their_segmentation_side_inputs(config):
    ds = "synthetic_en_de"
    assert wf.side_args(config, ds, "transformer", ["train", "dev"]) == ""
    assert wf.side_args(config, ds, "pr_max_attn_ta", ["train", "dev"]) == (
        f"--side phrases=results/{ds}/parse/train.ngram.phrases,"
        f"results/{ds}/parse/dev.ngram.phrases")
    assert wf.side_inputs(config, ds, "pr_max_attn_ta_parse", ["test"]) == {
        "phrases": [f"results/{ds}/parse/test.parse.phrases"]}


def test_parse_phrases_on_a_non_english_source_is_a_config_error(config):
    config["models"]["pr_max_attn_ta_parse"]["datasets"] = ["synthetic_de_en"]
    with pytest.raises(Exception, match="English source"):
        wf.check_phrase_models(config)


def test_default_config_asks_for_ablation_and_agreement(config):
    targets = wf.final_targets(config)
    assert "results/synthetic_en_de/report/ablation.md" in targets
    assert "results/synthetic_en_de/report/agreement.png" in targets
    assert "results/synthetic_de_en/report/ablation.md" not in targets


# --- NPMT family, checkpoint_of rows, the LM row, sweeps -----------------------

DE_EN = "synthetic_de_en"


@pytest.fixture
def npmt_config(config) -> dict:
    """The default config as the Snakefile sees it: sweeps derived, lmplz found."""
    wfn.check_npmt_models(config)
    wf.derive_sweeps(config)
    wf.apply_lm_availability(config, None)
    return config


def test_checkpoint_of_row_takes_its_model(npmt_config):
    lm_row = npmt_config["models"]["npmt_lm"]
    assert (lm_row["arch"], lm_row["preset"]) == ("npmt", "tiny")
    assert lm_row["datasets"] == [DE_EN]
    assert wf.checkpoint_owner(npmt_config, "npmt_lm") == "npmt"
    assert wf.summary_path(npmt_config, DE_EN, "npmt_lm") == (
        f"results/{DE_EN}/models/npmt/summary.json")
    assert "npmt_lm" not in wfn.trained_models(npmt_config)


@pytest.mark.parametrize("entry, message", [
    ({"checkpoint_of": "nope"}, "'nope' is not another model"),
    ({"checkpoint_of": "npmt_lm"}, "decodes another model's checkpoint itself"),
    ({"checkpoint_of": "npmt", "preset": "iwslt"}, "models.x.preset: a checkpoint_of"),
    ({"checkpoint_of": "npmt", "datasets": ["synthetic_en_de"]},
     "models.x.datasets: must be those 'npmt' trains on"),
    ({"preset": "tiny"}, "models.x"),
])
def test_bad_checkpoint_of_rows(entry, message):
    with open(REPO / "config.yaml", encoding="utf-8") as fh:
        raw = yaml.safe_load(fh)
    raw["models"]["x"] = entry
    with pytest.raises(InputError, match=message):
        validate_config(raw)


@pytest.mark.parametrize("model, decode, message", [
    ("npmt", {"lambda2": 0.5}, "decode.lambda2: above 0 needs decode.lm: true"),
    ("attn_rnn", {"lm": True}, "decode.lm: applies to NPMT models"),
    ("transformer", {"lambda1": 1.0}, "decode.lambda1: applies to NPMT models"),
])
def test_decode_keys_are_checked_per_arch(config, model, decode, message):
    config["models"][model]["decode"] = decode
    with pytest.raises(InputError, match=message):
        wfn.check_npmt_models(config)


def test_checkpoint_of_only_for_the_npmt_family(config):
    config["models"]["t2"] = {"checkpoint_of": "transformer", "arch": "transformer",
                              "preset": "tiny"}
    with pytest.raises(InputError, match="t2.checkpoint_of: only NPMT-family"):
        wfn.check_npmt_models(config)


def test_decode_settings_preset_then_config(npmt_config):
    assert wfn.translate_args(npmt_config, "npmt", "beam") == (
        "--beam 4 --lambda1 0.0 --lambda2 0.0")
    assert wfn.translate_args(npmt_config, "npmt_lm", "beam") == (
        "--beam 4 --lambda1 0.0 --lambda2 0.2")
    assert wfn.translate_args(npmt_config, "npmt", "greedy") == (
        "--beam 1 --lambda1 0 --lambda2 0")
    assert wfn.translate_args(npmt_config, "attn_rnn", "beam") == "--beam 4 --lenpen 0.6"
    npmt_config["models"]["npmt"]["preset"] = "iwslt"
    npmt_config["models"]["npmt"]["decode"] = {"beam": 5}
    assert wfn.decode_settings(npmt_config, "npmt") == {
        "beam": 5, "lenpen": 0.6, "lm": False, "lambda1": 1.2, "lambda2": 0.0}
    npmt_config["models"]["npmt"]["model"] = {"lambda1": 0.5}
    assert wfn.decode_settings(npmt_config, "npmt")["lambda1"] == 0.5


def test_npmt_decode_defaults_mirror_the_presets():
    from phrasenmt.models.registry import get_model_class, get_preset
    from phrasenmt.sweeps import PRESET_VALUES
    from phrasenmt.training.config import TrainConfig

    for arch in wf.SWAN_ARCHS:
        for preset, values in wfn.NPMT_DECODE.items():
            cfg = get_model_class(arch).config_class()
            get_preset(arch, preset)(cfg, TrainConfig())
            assert {k: getattr(cfg, k) for k in values} == values, (arch, preset)
            assert PRESET_VALUES[arch, preset] == {"model.window": cfg.window}


def test_every_table_row_has_greedy_and_beam_files(npmt_config):
    c = npmt_config
    assert wfn.table_models(c, DE_EN) == ["attn_rnn", "npmt", "npmt_lm",
                                         "npmt_noreorder", "attn_rnn_reorder"]
    assert wfn.hyp_file(c, DE_EN, "attn_rnn", "test", "greedy") == (
        f"results/{DE_EN}/translations/attn_rnn/test.tok")
    assert wfn.hyp_file(c, DE_EN, "attn_rnn", "test", "beam") == (
        f"results/{DE_EN}/translations/attn_rnn/test.beam.tok")
    assert wfn.hyp_file(c, DE_EN, "npmt", "test", "beam", "txt") == (
        f"results/{DE_EN}/translations/npmt/test.txt")
    assert wfn.decodings(c, DE_EN, "npmt_lm") == ["beam"]
    evals = wfn.table_evals(c, DE_EN, "test")
    assert len(evals) == 9 and "npmt_lm:greedy" not in evals
    inputs = wfn.eval_inputs(c, DE_EN, "npmt", "test", "greedy")
    assert inputs["baseline"] == f"results/{DE_EN}/translations/attn_rnn/test.txt"
    assert "baseline" not in wfn.eval_inputs(c, DE_EN, "attn_rnn", "test", "beam")
    assert wfn.attention_models(c) == ["attn_rnn", "attn_rnn_reorder"]
    assert wfn.segment_models(c, DE_EN) == ["npmt", "npmt_noreorder"]


def test_default_config_asks_for_every_npmt_analysis(npmt_config):
    targets = wf.final_targets(npmt_config)
    report = f"results/{DE_EN}/report"
    for name in ("npmt_bleu_test", "npmt_segments_test", "npmt_examples_test",
                 "npmt_mappings_test", "sweep_npmt_window"):
        assert f"{report}/{name}.md" in targets
    assert f"{report}/npmt_gates.png" in targets
    assert not any("/synthetic_en_de/report/npmt" in t for t in targets)


def test_without_lmplz_the_lm_row_is_left_out_with_a_note(npmt_config):
    wf.apply_lm_availability(npmt_config, "lmplz not found: run 'make kenlm'")
    assert "npmt_lm" not in wf.models(npmt_config, DE_EN)
    assert "npmt_lm" not in wfn.table_models(npmt_config, DE_EN)
    assert not any("npmt_lm" in t for t in wf.final_targets(npmt_config))
    assert wfn.table_notes(npmt_config, DE_EN) == [
        "NPMT+LM (npmt_lm) not run: lmplz not found: run 'make kenlm'"]
    # still buildable when asked for explicitly: the rules' model regex has it
    assert re.fullmatch(wf.model_regex(npmt_config, "npmt"), "npmt_lm")
    wf.apply_lm_availability(npmt_config, None)
    assert "npmt_lm" in wf.models(npmt_config, DE_EN)


def test_sweep_derives_one_model_per_new_value(npmt_config):
    assert wf.sweep_points(npmt_config, "npmt_window") == [
        (5, "npmt_window5"), (7, "npmt"), (9, "npmt_window9"), (11, "npmt_window11")]
    derived = npmt_config["models"]["npmt_window9"]
    assert derived["model"] == {"window": 9}
    assert (derived["arch"], derived["datasets"]) == ("npmt", [DE_EN])
    assert "npmt_window7" not in npmt_config["models"]
    assert wf.derived_models(npmt_config) == {"npmt_window5", "npmt_window9",
                                              "npmt_window11"}
    assert "npmt_window5" not in wfn.table_models(npmt_config, DE_EN)
    assert "npmt_window5" in wf.models(npmt_config, DE_EN)
    before = json.dumps(npmt_config["models"], sort_keys=True)
    wf.derive_sweeps(npmt_config)  # idempotent
    assert json.dumps(npmt_config["models"], sort_keys=True) == before


def test_sweep_files_and_switch(config):
    config["sweeps"]["npmt_window"]["enabled"] = False
    wf.derive_sweeps(config)
    assert "npmt_window5" not in config["models"]
    assert not any("sweep_" in t for t in wf.final_targets(config))
    config["sweeps"]["lr"] = {"model": "transformer", "key": "train.lr",
                              "values": [0.001, 0.002]}
    wf.derive_sweeps(config)
    assert config["models"]["transformer_lr0p001"]["train"] == {"lr": 0.001}
    assert wfn.sweep_evals(config, "synthetic_en_de", "lr") == [
        ("0.001:beam", "results/synthetic_en_de/eval/transformer_lr0p001/test.beam.json"),
        ("0.002:beam", "results/synthetic_en_de/eval/transformer_lr0p002/test.beam.json")]


@pytest.mark.parametrize("sweep, message", [
    ({"model": "nope", "key": "model.window", "values": [5]}, "unknown model 'nope'"),
    ({"model": "npmt_lm", "key": "model.window", "values": [5]},
     "decodes another model's checkpoint"),
])
def test_bad_sweeps(config, sweep, message):
    config["sweeps"] = {"s": sweep}
    with pytest.raises(InputError, match=f"sweeps.s.model: .*{message}"):
        wf.derive_sweeps(config)


def test_sweep_key_outside_model_and_train_is_a_schema_error():
    with open(REPO / "config.yaml", encoding="utf-8") as fh:
        raw = yaml.safe_load(fh)
    raw["sweeps"]["npmt_window"]["key"] = "arch"
    with pytest.raises(InputError, match="sweeps.npmt_window.key"):
        validate_config(raw)


def test_lm_reason_is_the_lm_modules_howto(monkeypatch):
    from phrasenmt import lm

    monkeypatch.setattr(lm, "lmplz_path", lambda: None)
    assert wf.lm_unavailable_reason() == lm.HOWTO
    assert "make kenlm" in lm.HOWTO
