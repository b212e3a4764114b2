"""Workflow helpers of the learning-curve figure: which runs, which arguments."""

from __future__ import annotations

import shlex

import pytest
import yaml

from phrasenmt.config import validate_config
from phrasenmt.report.learning_curves import build_parser
from phrasenmt.workflow import base as wf
from phrasenmt.workflow import curves
from phrasenmt.workflow.targets import final_targets
from tests.conftest import TEST_CONFIG


@pytest.fixture
def config() -> dict:
    with open(TEST_CONFIG, encoding="utf-8") as fh:
        return validate_config(yaml.safe_load(fh))


def test_every_dataset_with_models_gets_the_figure(config):
    targets = final_targets(config)
    for ds in wf.datasets(config):
        assert f"results/{ds}/report/learning_curves.png" in targets
        assert f"results/{ds}/report/learning_curves.svg" in targets
        assert f"results/{ds}/report/training_runs.md" in targets


def test_a_checkpoint_of_row_adds_no_run_of_its_own(config):
    config["seeds"] = [1, 2]
    models = curves.curve_models(config, "synthetic_de_en")
    assert "npmt" in models and "npmt_lm" not in models  # npmt_lm decodes npmt's
    assert models == [m for m in wf.models(config, "synthetic_de_en") if m != "npmt_lm"]
    runs = curves.curve_runs(config, "synthetic_de_en")
    assert runs.count(("npmt", 1)) == 1 and ("npmt", 2) in runs
    assert curves.curve_summaries(config, "synthetic_de_en")[0] == \
        "results/synthetic_de_en/models/attn_rnn/seed1/summary.json"
    args = shlex.split(curves.summary_run_args(config, "synthetic_de_en"))
    assert args[0] == "--summary" and len(args) == len(runs) + 1
    assert args[1] == "attn_rnn:1=results/synthetic_de_en/models/attn_rnn/seed1/summary.json"


def test_arguments_parse_as_the_cli_reads_them(config):
    args = build_parser().parse_args(
        [*shlex.split(curves.curve_args(config, "synthetic_de_en")), "--out", "x.tsv"])
    assert args.vmf == ["conmt", "pconmt_nofert", "pconmt_fert2", "pconmt_fert4"]
    first = args.metrics[0]
    assert (first.model, first.seed) == ("attn_rnn", 1)
    assert str(first.path) == "results/synthetic_de_en/models/attn_rnn/seed1/metrics.tsv"
    en_de = curves.curve_args(config, "synthetic_en_de")
    assert "--vmf" not in en_de and "transformer:1=" in en_de


def test_no_models_no_figure(config):
    for name in wf.models(config, "synthetic_de_en"):
        del config["models"][name]
    assert curves.curve_targets(config, "synthetic_de_en") == []
