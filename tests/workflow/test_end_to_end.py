"""The tiny real run of the whole DAG on CPU (tests/workflow/tiny_run.yaml, run once
per pytest run in a temporary folder): every stage's outputs, the results table,
significance, a second run, the HTML report and a rerun elsewhere."""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path

import pytest

from tests.conftest import snakemake
from tests.workflow.conftest import run_args

pytestmark = pytest.mark.slow

# the English->German rows: sentence level (the two Transformers three seeds
# each, the phrase model one), then the document-level models and the
# context-size sweep's extra point
EN_DE = ["transformer", "transformer_prenorm", "pr_max_attn_ta_parse", "ctx_transformer",
         "han_enc", "han_dec", "han_enc_dec", "han_enc_dec_joint",
         "ctx_transformer_context_size1"]


def test_every_stage_produced_its_outputs(tiny_run: Path):
    root = tiny_run / "results" / "tiny_en_de"
    for rel in ("raw/test.lingeval.json", "data/train.clean.tsv", "bpe/codes",
                "align/train.sym", "analysis/aer.json", "phrases/filters.tsv",
                "embeddings/words.vec", "embeddings/phrases.vec",
                "models/transformer/seed1/averaged.pt",
                "models/transformer/seed1/metrics.tsv",
                "translations/transformer/seed1/test.txt", "analysis/length_test.tsv",
                "report/results.md", "report/results.tex", "report/length_test.svg",
                "analysis/learning_curves.tsv", "report/learning_curves.png",
                "report/training_runs.md", "report/training_runs.csv"):
        assert (root / rel).stat().st_size > 0, rel
    events = list((root / "models/transformer/seed1").glob("events.out.tfevents.*"))
    assert len(events) == 1 and events[0].stat().st_size > 0  # TensorBoard's


def test_results_table_has_every_model(tiny_run: Path):
    with open(tiny_run / "results/tiny_en_de/report/results.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["model"] for r in rows] == EN_DE
    for row in rows:
        assert 0.0 <= float(row["bleu"]) <= 100.0


def test_significance_is_against_the_baseline(tiny_run: Path):
    evals = tiny_run / "results/tiny_en_de/eval"
    base = json.loads((evals / "transformer/test.json").read_text())
    other = json.loads((evals / "han_dec/test.json").read_text())  # one seed
    assert (base["p"], base["delta"]) == (1.0, 0.0)  # the baseline itself
    assert other["baseline"] == "transformer" and other["seeds"] == [1]
    assert 0.0 < other["p"] <= 1.0 and other["sd"] is None  # one seed


def test_second_run_does_nothing(tiny_run: Path):
    start = time.monotonic()
    result = snakemake(*run_args(tiny_run, "--cores", "2"))
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Nothing to be done" in result.stdout + result.stderr
    assert time.monotonic() - start < 60


def test_html_report_builds(tiny_report: str):
    assert len(tiny_report.encode("utf-8")) > 10_000


def test_rerun_in_a_fresh_folder_gives_the_same_tables(tiny_run: Path, tiny_rerun: Path):
    """The same config run again elsewhere (the English->German main and claims
    tables and everything upstream): every report table and eval JSON it makes is
    byte-identical to the first run's; the wall clock's cells are in timing/
    (test_rerun.py runs every family twice whole)."""
    from tests.workflow.test_rerun import differing_outputs, outputs

    names = {p.name for p in outputs(tiny_rerun / "results")}
    assert {"results.csv", "claims.csv", "test.json"} <= names, names
    timing = tiny_rerun / "results/tiny_en_de/timing"
    assert {p.name for p in timing.glob("*.csv")} >= {"results.csv", "claims.csv"}
    differ = differing_outputs(tiny_rerun / "results", tiny_run / "results",
                               only_first=True)
    assert not differ, f"differ between two runs of the same config: {differ}"
