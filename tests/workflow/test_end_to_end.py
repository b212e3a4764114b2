"""One tiny real run of the whole DAG on CPU, in a temporary directory."""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO, snakemake

TINY = {
    "seed": 3,
    "run_datasets": ["tiny"],
    "datasets": {"tiny": {
        "source": "synthetic", "src": "en", "tgt": "de", "tokenize": False,
        "synthetic": {"train_size": 600, "dev_size": 40, "test_size": 60},
        "bpe": {"merges": 300},
    }},
    "models": {
        "transformer": {"arch": "transformer", "preset": "tiny",
                        "model": {"d_model": 32, "d_ff": 64, "n_heads": 2},
                        "train": {"max_steps": 12, "valid_interval": 6,
                                  "save_interval": 6, "average_last": 2}},
        "transformer_prenorm": {"arch": "transformer", "preset": "tiny",
                                "model": {"d_model": 32, "d_ff": 64, "n_heads": 2,
                                          "pre_norm": True},
                                "train": {"max_steps": 12, "valid_interval": 6,
                                          "save_interval": 6, "average_last": 2}},
    },
    "baseline": "transformer",
    "decode": {"beam": 2},
    "evaluate": {"significance_trials": 50},
    "embeddings": {"dim": 16, "epoch": 1},
}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """Run the tiny configuration end to end once for all tests of this module."""
    workdir = tmp_path_factory.mktemp("e2e")
    (workdir / "config.yaml").write_text(yaml.safe_dump(TINY))
    result = _snakemake(workdir)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    return workdir


def _snakemake(workdir: Path, *extra: str):
    return snakemake("--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir),
                     "--configfile", str(workdir / "config.yaml"), "--cores", "2",
                     *extra)


def test_every_stage_produced_its_outputs(run_dir: Path):
    root = run_dir / "results" / "tiny"
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


def test_results_table_has_every_model(run_dir: Path):
    with open(run_dir / "results/tiny/report/results.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["model"] for r in rows] == ["transformer", "transformer_prenorm"]
    for row in rows:
        assert 0.0 <= float(row["bleu"]) <= 100.0


def test_significance_is_against_the_baseline(run_dir: Path):
    base = json.loads((run_dir / "results/tiny/eval/transformer/test.json").read_text())
    other = json.loads(
        (run_dir / "results/tiny/eval/transformer_prenorm/test.json").read_text())
    assert (base["p"], base["delta"]) == (1.0, 0.0)  # the baseline itself
    assert other["baseline"] == "transformer" and other["seeds"] == [1]
    assert 0.0 < other["p"] <= 1.0 and other["sd"] is None  # one seed


def test_second_run_does_nothing(run_dir: Path):
    start = time.monotonic()
    result = _snakemake(run_dir)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Nothing to be done" in result.stdout + result.stderr
    assert time.monotonic() - start < 60


def test_html_report_builds(run_dir: Path):
    result = _snakemake(run_dir, "--report", str(run_dir / "report.html"))
    assert result.returncode == 0, result.stderr[-3000:]
    assert (run_dir / "report.html").stat().st_size > 10_000


def test_rerun_in_a_fresh_folder_gives_the_same_tables(run_dir: Path, tmp_path: Path):
    """The same config run again elsewhere: every report table and eval JSON is
    byte-identical to the first run's; the wall clock's cells are in timing/
    (test_rerun.py)."""
    from tests.workflow.test_rerun import differing_outputs, outputs

    (tmp_path / "config.yaml").write_text(yaml.safe_dump(TINY))
    result = _snakemake(tmp_path)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    names = {p.name for p in outputs(run_dir / "results")}
    assert {"results.csv", "claims.csv", "test.json"} <= names, names
    timing = run_dir / "results/tiny/timing"
    assert {p.name for p in timing.glob("*.csv")} >= {"results.csv", "claims.csv"}
    differ = differing_outputs(run_dir / "results", tmp_path / "results")
    assert not differ, f"differ between two runs of the same config: {differ}"
