"""Numbers travel from config.yaml to the trainer as numbers: a learning rate
written `1.0e-5` (or `1e-5`, which YAML 1.1 reads as text) trains end to end
(transformer_prenorm of tests/workflow/tiny_run.yaml sets both)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.workflow.conftest import TINY_CONFIG

pytestmark = pytest.mark.slow


def test_small_learning_rates_train_end_to_end(tiny_run: Path):
    text = TINY_CONFIG.read_text(encoding="utf-8")
    assert "lr: 1.0e-5" in text and "adam_eps: 1e-9" in text  # as a user writes them
    run = tiny_run / "results/tiny_en_de/models/transformer_prenorm/seed1"
    train = yaml.safe_load((run / "config.yaml").read_text())["train"]
    assert (train["lr"], train["adam_eps"]) == (1e-5, 1e-9)
    rows = (run / "metrics.tsv").read_text().splitlines()[1:]
    assert [float(r.split("\t")[3]) for r in rows][-1] <= 1e-5
