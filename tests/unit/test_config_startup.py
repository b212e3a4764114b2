"""Start-up validation (`experiment.start`, what rules/common.smk runs at
`snakemake -n`): numbers of integer keys, `snakemake --config` values,
random-context controls, the gates figure's line and config files that are
no mapping. Each bad input is one line naming the key (or file and line)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from snakemake.cli import parse_config
from snakemake.utils import update_config

from phrasenmt import experiment
from phrasenmt.config import read_config_file
from phrasenmt.io import InputError
from phrasenmt.workflow import base as wf
from phrasenmt.workflow import discourse as wfdis
from phrasenmt.workflow import runs
from tests.conftest import TEST_CONFIG

TEXT = TEST_CONFIG.read_text(encoding="utf-8")


def merged(override: dict) -> dict:
    """config.yaml updated with `override` as Snakemake merges a --configfile
    (a copy without YAML's shared anchors: han_dec_random's train is its own)."""
    config = json.loads(json.dumps(yaml.safe_load(TEXT)))
    update_config(config, override)
    return config


def refused(override: dict) -> str:
    """The one line `experiment.start` refuses `override` with."""
    with pytest.raises(InputError) as err:
        experiment.start(merged(override))
    assert "\n" not in str(err.value)
    return str(err.value)


# --- numbers: one rule from the config to the commands ------------------------


def test_whole_numbers_of_integer_keys_reach_the_rules_as_integers():
    config = merged({
        "decode": {"beam": 4.0}, "evaluate": {"significance_trials": 1e3},
        "seeds": [1.0], "datasets": {"synthetic_en_de": {"bpe": {"merges": 4000.0}}},
        "models": {"transformer": {"train": {"max_steps": 30.0}},
                   "pr_mean": {"seeds": [2.0]}},
        "sweeps": {"npmt_window": {"values": [5.0, 7.0], "enabled": True}}})
    experiment.start(config)
    assert wf.search_args(config, "pr_mean") == "--beam 4 --lenpen 0.6"
    config["models"]["pr_mean"]["decode"] = {"beam": 1}  # greedy: translate
    assert wf.search_args(config, "pr_mean") == "--beam 1"  # refuses a lenpen
    assert repr(config["evaluate"]["significance_trials"]) == "1000"
    assert repr(config["datasets"]["synthetic_en_de"]["bpe"]["merges"]) == "4000"
    assert runs.run_dir("d", "pr_max", runs.seeds(config, "pr_max")[0]) == \
        "results/d/models/pr_max/seed1"
    assert runs.seeds(config, "pr_mean") == [2]
    assert json.loads(wf.model_spec(config, "transformer"))["train"] == {
        "max_steps": 30}
    assert "npmt_window5" in config["models"]  # not npmt_window5p0
    assert config["models"]["npmt_window5"]["model"]["window"] == 5


@pytest.mark.parametrize("override, message", [
    ({"decode": {"beam": 4.5}}, "decode.beam: 4.5 is not of type 'integer'"),
    ({"seeds": [1.5]}, "seeds.0: 1.5 is not of type 'integer'"),
    ({"models": {"transformer": {"train": {"max_steps": 30.5}}}},
     "models.transformer.train.max_steps: expected int, got 30.5"),
])
def test_a_fraction_in_an_integer_key_is_refused_naming_it(override, message):
    assert refused(override) == message


def test_config_values_are_read_as_a_config_file_is():
    """`snakemake --config` reads nested values with YAML's base loader: every
    number is text there ('1e-5', '5'), as `1e-5` is in a YAML 1.1 file."""
    given = parse_config(["models={transformer: {train: {lr: 1e-5, max_steps: 40}}}",
                          "decode={beam: 5}", "seeds=[1, 2]", "evaluate={alpha: 0.05}"])
    config = merged(given)
    experiment.start(config, (), given)
    assert config["models"]["transformer"]["train"] == {"lr": 1e-5, "max_steps": 40}
    assert config["decode"]["beam"] == 5 and config["seeds"] == [1, 2]
    assert config["evaluate"]["alpha"] == 0.05
    # text stays text: a dataset's name, a model's init_from
    assert config["models"]["han_dec"]["init_from"] == "transformer"


def test_a_config_file_number_snakemake_reads_as_text_is_a_number(tmp_path: Path):
    path = tmp_path / "trials.yaml"
    path.write_text("evaluate: {significance_trials: 1e3}\n", encoding="utf-8")
    override = yaml.safe_load(path.read_text(encoding="utf-8"))  # YAML 1.1: '1e3'
    assert override["evaluate"]["significance_trials"] == "1e3"
    config = merged(override)
    experiment.start(config, [path])
    assert repr(config["evaluate"]["significance_trials"]) == "1000"


# --- a mix of antecedent distances is one value -----------------------------------


def shipped_with(path: Path, text: str, given: dict | None = None) -> dict:
    """config.yaml with the config file `path` (holding `text`) and `given`
    (--config) merged over it key by key, as Snakemake merges them."""
    path.write_text(text, encoding="utf-8")
    config = json.loads(json.dumps(yaml.safe_load(
        experiment.SHIPPED_CONFIG.read_text(encoding="utf-8"))))
    update_config(config, yaml.safe_load(text))
    update_config(config, given or {})
    return config


def test_a_mix_of_distances_in_a_config_file_replaces_config_yamls_mix(tmp_path):
    """config.yaml's synthetic_en_de mixes antecedents 1, 2 and 3 sentences
    back; a file's own mix was merged into it key by key, so `{1: 1.0}` read
    as `{1: 1.0, 2: 0.075, 3: 0.075}` and was refused as summing to 1.15."""
    shipped = yaml.safe_load(experiment.SHIPPED_CONFIG.read_text(encoding="utf-8"))
    assert set(shipped["datasets"]["synthetic_en_de"]["synthetic"][
        "antecedent_distance"]) == {1, 2, 3}
    path = tmp_path / "near.yaml"
    config = shipped_with(path, "datasets:\n  synthetic_en_de:\n    synthetic:\n"
                          "      antecedent_distance: {1: 0.5, 2: 0.5}\n")
    experiment.start(config, [path, experiment.SHIPPED_CONFIG])
    assert config["datasets"]["synthetic_en_de"]["synthetic"][
        "antecedent_distance"] == {1: 0.5, 2: 0.5}
    # --config wins over every file, and is taken whole too
    given = parse_config([("datasets={synthetic_en_de: {synthetic: "
                           "{antecedent_distance: {1: 0.25, 3: 0.75}}}}")])
    config = shipped_with(path, path.read_text(encoding="utf-8"), given)
    experiment.start(config, [path, experiment.SHIPPED_CONFIG], given)
    mix = config["datasets"]["synthetic_en_de"]["synthetic"]["antecedent_distance"]
    assert {int(d): float(share) for d, share in mix.items()} == {1: 0.25, 3: 0.75}


# --- random-context controls ---------------------------------------------------


def test_a_control_that_differs_from_its_model_besides_the_context_is_refused():
    message = refused({"models": {"han_dec_random": {
        "model": {"context_size": 2, "context_init": "random", "dropout": 0.2},
        "train": {"lr": 1e-3, "max_steps": 300}}}})
    assert message == (
        "models.han_dec_random: differs from its model han_dec in model.context_size "
        "(2 vs 1), model.dropout (0.2 vs 0.0), train.lr (0.001 vs 0.003), "
        "train.max_steps (300 vs 450); a random-context control may differ in "
        "context only")


@pytest.mark.parametrize("change, differs", [
    ({"decode": {"beam": 2}}, "decode.beam (2 vs None)"),
    ({"seeds": [2]}, "seeds ([2] vs [1])"),
    ({"precision": "fp32"}, "precision (fp32 vs auto)"),
    ({"init_from": "pr_mean"}, "init_from (pr_mean vs transformer)"),
])
def test_every_setting_of_a_control_is_compared(change, differs):
    override = {"models": {"ctx_transformer_random": change}}
    if "init_from" in change:
        override["models"]["pr_mean"] = {"arch": "transformer"}
    message = refused(override)
    assert message.startswith("models.ctx_transformer_random: differs from its "
                              "model ctx_transformer in "), message
    assert differs in message, message


def test_a_control_equal_to_its_model_once_resolved_is_paired():
    # the preset's own dropout, written out: the same model
    config = merged({"models": {"han_dec_random": {"model": {"dropout": 0.0}}}})
    experiment.start(config)
    assert wfdis.control_of(config, "han_dec_random") == "han_dec"
    assert wfdis.controls(config) == {"ctx_transformer": "ctx_transformer_random",
                                      "han_dec": "han_dec_random"}


def test_a_control_without_a_model_is_refused():
    message = refused({"models": {"ctx_enc_random": {
        "arch": "ctx_transformer_enc", "preset": "tiny", "init_from": "transformer",
        "context": "random", "datasets": ["synthetic_en_de"]}}})
    assert message.startswith(
        "models.ctx_enc_random: a random-context control, but no model with arch "
        "'ctx_transformer_enc' reads the real context"), message


def test_context_on_a_sentence_level_model_names_where_it_was_written():
    message = refused({"models": {"transformer_random": {
        "arch": "transformer", "preset": "tiny", "context": "random"}}})
    assert message.startswith("models.transformer_random.context: arch 'transformer' "
                              "reads no document context"), message


# --- the gates figure's line -----------------------------------------------------


def test_a_gates_line_past_the_test_set_is_refused():
    assert refused({"evaluate": {"gates_line": 501}}) == (
        "evaluate.gates_line: 501, but test set test of synthetic_de_en, whose line "
        "the reordering gates figure draws, has 500 lines")
    experiment.start(merged({"evaluate": {"gates_line": 500}}))


# --- config files that are no mapping ---------------------------------------------


@pytest.mark.parametrize("text, message", [
    ("- a\n- b\n", "cfg.yaml: the file holds a list; a config is a mapping of keys"),
    ("7\n", "cfg.yaml: the file holds a single number; a config is a mapping of keys"),
    ("seed: 1\nmodels:\n\ttransformer: {}\n",
     "cfg.yaml:3: a tab character in indentation; YAML indents with spaces"),
    ('{\n\t"seed": 1,\n\t"seed": 2\n}\n',
     "cfg.yaml: seed: key written twice; the first would be silently dropped"),
])
def test_a_config_file_that_is_no_mapping_names_the_file(tmp_path, monkeypatch,
                                                         text, message):
    monkeypatch.chdir(tmp_path)
    Path("cfg.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_config_file("cfg.yaml")
    assert str(err.value) == message


def test_json_indented_with_tabs_is_a_config(tmp_path):
    path = tmp_path / "cfg.json"
    path.write_text('{\n\t"seed": 3\n}\n', encoding="utf-8")
    assert read_config_file(path) == {"seed": 3}


def test_a_broken_claims_file_stops_the_start_in_one_line(tmp_path, monkeypatch):
    """claims.yaml is read at start-up: an entry with a text paper_delta stopped
    the claims table's job (a traceback), and a misspelt metric stopped the DAG
    with Snakemake's InputFunctionException and its frames."""
    from phrasenmt.claims import load_claims
    from phrasenmt.workflow import claims as wfc

    bad = tmp_path / "claims.yaml"
    bad.write_text("claims:\n  - {id: mine, paper: P, where: T, statement: s, "
                   "metric: blue, system: pr_mean, baseline: transformer, "
                   "expect: higher, source: derived, quote: q}\n")
    monkeypatch.setattr(wfc, "load_claims", lambda: load_claims(bad))
    wfc._registry.cache_clear()
    try:
        assert refused({}) == f"{bad}: claim 1 (mine): unknown metric 'blue' (known: " \
            "bleu, bleu_subset, agreement, pronouns, contrastive, train_speed, cxmi)"
    finally:
        wfc._registry.cache_clear()
