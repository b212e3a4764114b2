"""The helpers the Snakefile uses: targets, params, wildcard regexes."""

from __future__ import annotations

import json
import re
import shlex

import pytest
import yaml

from phrasenmt import workflow as wf
from phrasenmt.config import validate_config
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
