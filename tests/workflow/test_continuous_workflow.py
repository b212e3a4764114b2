"""The continuous-output family end to end on a tiny de->en synthetic corpus."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO, snakemake

pytestmark = pytest.mark.slow

SIZES = {"embed_size": 16, "hidden_size": 32}
TRAIN = {"max_steps": 6, "valid_interval": 3, "save_interval": 3, "log_interval": 1}
TINY = {
    "seed": 3,
    "run_datasets": ["tiny"],
    "datasets": {"tiny": {
        "source": "synthetic", "src": "de", "tgt": "en", "tokenize": False,
        "synthetic": {"train_size": 600, "dev_size": 40, "test_size": 60},
        "bpe": {"merges": 300},
    }},
    "models": {name: {"arch": name, "preset": "tiny", "model": dict(SIZES),
                      "train": dict(TRAIN)}
               for name in ("attn_rnn", "conmt", "pconmt_fert2")},
    "baseline": {"tiny": "attn_rnn"},
    "evaluate": {"significance_trials": 20},
    "embeddings": {"dim": 16, "epoch": 1},
}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """Run the tiny family configuration once for all tests of this module."""
    workdir = tmp_path_factory.mktemp("continuous")
    (workdir / "config.yaml").write_text(yaml.safe_dump(TINY))
    result = snakemake("--snakefile", str(REPO / "Snakefile"), "--directory",
                       str(workdir), "--configfile", str(workdir / "config.yaml"),
                       "--cores", "2")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    return workdir


def rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_every_family_table_lists_its_models(run_dir: Path):
    report = run_dir / "results/tiny/report"
    assert [r["model"] for r in rows(report / "efficiency.csv")] == [
        "attn_rnn", "conmt", "pconmt_fert2"]
    assert [r["model"] for r in rows(report / "multiword_test.csv")] == [
        "attn_rnn", "conmt", "pconmt_fert2"]
    fertility = rows(report / "fertility_test.csv")
    assert {r["model"] for r in fertility} == {"pconmt_fert2"}
    # labels from the aligner (as the paper), then the synthetic gold alignments'
    assert [(r["labels"], r["class"]) for r in fertility] == [
        ("aligner", "0"), ("aligner", "1"), ("gold", "0"), ("gold", "1")]
    assert [r["model"] for r in rows(report / "results.csv")] == [
        "attn_rnn", "conmt", "pconmt_fert2"]


def test_pconmt_writes_words_not_phrase_tokens(run_dir: Path):
    hyps = (run_dir / "results/tiny/translations/pconmt_fert2/seed1/test.tok"
            ).read_text()
    assert len(hyps.splitlines()) == 60
    assert "_" not in hyps
    assert (run_dir / "results/tiny/models/pconmt_fert2/seed1/fertility.pt").is_file()


def test_html_report_has_the_family_tables(run_dir: Path):
    html = run_dir / "report.html"
    result = snakemake("--snakefile", str(REPO / "Snakefile"), "--directory",
                       str(run_dir), "--configfile", str(run_dir / "config.yaml"),
                       "--report", str(html))
    assert result.returncode == 0, result.stderr[-3000:]
    text = html.read_text(encoding="utf-8")
    for name in ("efficiency.md", "multiword_test.md", "fertility_test.md"):
        assert name in text
