"""The NPMT family end to end (Huang et al. 2018): the tiny run's de->en models
(tests/workflow/tiny_run.yaml)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import yaml

from phrasenmt.lm import lmplz_path
from tests.conftest import snakemake
from tests.workflow.conftest import copy_of, run_args

pytestmark = pytest.mark.slow

HAS_LM = lmplz_path() is not None
ROWS = ["attn_rnn", "npmt", *(["npmt_lm"] if HAS_LM else []), "npmt_noreorder",
        "attn_rnn_reorder"]


def rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_bleu_table_has_every_row_greedy_and_beam(tiny_run: Path):
    report = tiny_run / "results/tiny_de_en/report"
    table = rows(report / "npmt_bleu_test.csv")
    assert [r["model"] for r in table] == ROWS
    for r in table:
        assert r["bleu_beam"] != ""
        assert (r["bleu_greedy"] == "") == (r["model"] == "npmt_lm")
    md = (report / "npmt_bleu_test.md").read_text(encoding="utf-8")
    assert ("NPMT+LM (npmt_lm) not run: lmplz not found" in md) != HAS_LM
    assert (tiny_run / "results/tiny_de_en/lm/target.4gram.bin").is_file() == HAS_LM
    main = [r["model"] for r in rows(report / "results.csv")]
    continuous = {"conmt", "pconmt_fert2"}  # the other family of this run
    assert [m for m in main if m not in continuous] == [*ROWS, "npmt_window5"]


def test_greedy_segments_concatenate_to_the_output(tiny_run: Path):
    out = tiny_run / "results/tiny_de_en/translations/npmt/seed1"
    src = (tiny_run / "results/tiny_de_en/data/test.de").read_text().splitlines()
    hyps = (out / "test.greedy.tok").read_text().splitlines()
    segs = [json.loads(line)["segments"]
            for line in (out / "test.greedy.segments").read_text().splitlines()]
    assert len(segs) == len(src) == len(hyps) == 40
    for s, line, hyp in zip(segs, src, hyps, strict=True):
        assert len(s) == len(line.split()) + 1
        assert [t for seg in s for t in seg] == hyp.split()


def test_segment_analyses_and_gates(tiny_run: Path):
    report = tiny_run / "results/tiny_de_en/report"
    lengths = rows(report / "npmt_segments_test.csv")
    assert {r["model"] for r in lengths} == {"npmt", "npmt_noreorder"}
    examples = (report / "npmt_examples_test.md").read_text(encoding="utf-8")
    assert "| source | ¹ " in examples and "| npmt_noreorder greedy |" in examples
    categories = {r["category"] for r in rows(report / "npmt_mappings_test.csv")}
    assert categories <= {"One→One", "One→Many", "Many→One", "Many→Many",
                          "Many→Many*"} and categories
    assert (report / "npmt_gates.png").stat().st_size > 0
    gates = (tiny_run / "results/tiny_de_en/analysis/npmt_gates_test.tsv").read_text()
    assert gates.splitlines()[0] == "position\tsource_token\toffset\tgate"
    reordering = rows(report / "npmt_reordering_test.csv")
    assert {r["model"] for r in reordering} == set(ROWS)
    assert [r["group"] for r in reordering[:4]] == ["0", "1–3", "4–7", ">7"]
    assert sum(int(r["sentences"]) for r in reordering[:4]) == 40


def test_window_sweep_table(tiny_run: Path):
    sweep = rows(tiny_run / "results/tiny_de_en/report/sweep_npmt_window.csv")
    assert [(r["value"], r["model"]) for r in sweep] == [("5", "npmt_window5"),
                                                         ("7", "npmt")]
    models = tiny_run / "results/tiny_de_en/models"
    spec = yaml.safe_load((models / "npmt_window5/seed1/config.yaml").read_text())
    assert spec["model"]["window"] == 5
    assert yaml.safe_load((models / "npmt/seed1/config.yaml").read_text())["model"][
        "window"] == 7
    assert not (models / "npmt_window7").exists()  # the base value is npmt itself
    assert not (models / "npmt_lm").exists()  # decodes npmt's checkpoint


def test_html_report_has_the_npmt_outputs(tiny_report: str):
    for name in ("npmt_bleu_test.md", "npmt_segments_test.md", "npmt_examples_test.md",
                 "npmt_mappings_test.md", "npmt_reordering_test.md", "npmt_gates.png",
                 "sweep_npmt_window.md"):
        assert name in tiny_report


@pytest.mark.skipif(HAS_LM, reason="lmplz is installed: the LM row runs")
def test_asking_for_the_lm_row_without_lmplz_fails_with_the_howto(tiny_run: Path,
                                                                  tmp_path: Path):
    run = copy_of(tiny_run, tmp_path / "run")  # a failed job may leave files behind
    result = snakemake(*run_args(run, "--cores", "1",
                                 "results/tiny_de_en/translations/npmt_lm/seed1/test.tok"))
    assert result.returncode != 0
    assert "lmplz not found: KenLM's estimator" in result.stdout + result.stderr
