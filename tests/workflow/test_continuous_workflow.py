"""The continuous-output family end to end: the tiny run's de->en models
(tests/workflow/tiny_run.yaml)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from phrasenmt.lm import lmplz_path

pytestmark = pytest.mark.slow

# the de->en rows of the main table: this family, then NPMT's (with its LM row
# where lmplz is built) and the window sweep's extra point
RESULTS = ["attn_rnn", "conmt", "pconmt_fert2", "npmt",
           *(["npmt_lm"] if lmplz_path() is not None else []), "npmt_noreorder",
           "attn_rnn_reorder", "npmt_window5"]


def rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return list(csv.DictReader(fh))



def test_every_family_table_lists_its_models(tiny_run: Path):
    report = tiny_run / "results/tiny_de_en/report"
    assert [r["model"] for r in rows(report / "efficiency.csv")] == [
        "attn_rnn", "conmt", "pconmt_fert2"]
    # the multi-word subset scores every row of the dataset's main table
    assert [r["model"] for r in rows(report / "multiword_test.csv")] == RESULTS
    fertility = rows(report / "fertility_test.csv")
    assert {r["model"] for r in fertility} == {"pconmt_fert2"}
    # labels from the aligner (as the paper), then the synthetic gold alignments'
    assert [(r["labels"], r["class"]) for r in fertility] == [
        ("aligner", "0"), ("aligner", "1"), ("gold", "0"), ("gold", "1")]
    assert [r["model"] for r in rows(report / "results.csv")] == RESULTS


def test_pconmt_writes_words_not_phrase_tokens(tiny_run: Path):
    root = tiny_run / "results/tiny_de_en"
    hyps = (root / "translations/pconmt_fert2/seed1/test.tok").read_text()
    assert len(hyps.splitlines()) == 40
    assert "_" not in hyps
    assert (root / "models/pconmt_fert2/seed1/fertility.pt").is_file()


def test_html_report_has_the_family_tables(tiny_report: str):
    for name in ("efficiency.md", "multiword_test.md", "fertility_test.md"):
        assert name in tiny_report
