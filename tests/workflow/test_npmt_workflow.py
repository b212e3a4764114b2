"""The NPMT family end to end on a tiny de->en synthetic corpus (Huang et al. 2018)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import yaml

from phrasenmt.lm import lmplz_path
from tests.conftest import REPO, snakemake

pytestmark = pytest.mark.slow

TRAIN = {"max_steps": 6, "valid_interval": 3, "save_interval": 3, "log_interval": 1}
NPMT_SIZES = {"embed_size": 16, "encoder_hidden": 16, "decoder_hidden": 32,
              "max_segment_len": 3}
RNN_SIZES = {"embed_size": 16, "hidden_size": 32}
TINY = {
    "seed": 3,
    "run_datasets": ["tiny"],
    "datasets": {"tiny": {
        "source": "synthetic", "src": "de", "tgt": "en", "tokenize": False,
        "synthetic": {"train_size": 600, "dev_size": 30, "test_size": 40},
        "bpe": {"merges": 300},
    }},
    "models": {
        "attn_rnn": {"arch": "attn_rnn", "preset": "tiny", "model": RNN_SIZES,
                     "train": TRAIN},
        "npmt": {"arch": "npmt", "preset": "tiny", "model": NPMT_SIZES,
                 "train": TRAIN},
        "npmt_lm": {"checkpoint_of": "npmt", "decode": {"lm": True, "lambda2": 0.2}},
        "npmt_noreorder": {"arch": "npmt_noreorder", "preset": "tiny",
                           "model": NPMT_SIZES, "train": TRAIN},
        "attn_rnn_reorder": {"arch": "attn_rnn_reorder", "preset": "tiny",
                             "model": RNN_SIZES, "train": TRAIN},
    },
    "sweeps": {"npmt_window": {"model": "npmt", "key": "model.window",
                               "values": [5, 7]}},
    "baseline": {"tiny": "attn_rnn"},
    "decode": {"beam": 2},
    "evaluate": {"significance_trials": 20, "segment_examples": 2},
    "embeddings": {"dim": 16, "epoch": 1},
}
HAS_LM = lmplz_path() is not None
ROWS = ["attn_rnn", "npmt", *(["npmt_lm"] if HAS_LM else []), "npmt_noreorder",
        "attn_rnn_reorder"]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """Run the tiny NPMT configuration once for all tests of this module."""
    workdir = tmp_path_factory.mktemp("npmt")
    (workdir / "config.yaml").write_text(yaml.safe_dump(TINY, sort_keys=False))
    result = snakemake("--snakefile", str(REPO / "Snakefile"), "--directory",
                       str(workdir), "--configfile", str(workdir / "config.yaml"),
                       "--cores", "2")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    return workdir


def rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_bleu_table_has_every_row_greedy_and_beam(run_dir: Path):
    report = run_dir / "results/tiny/report"
    table = rows(report / "npmt_bleu_test.csv")
    assert [r["model"] for r in table] == ROWS
    for r in table:
        assert r["bleu_beam"] != ""
        assert (r["bleu_greedy"] == "") == (r["model"] == "npmt_lm")
    md = (report / "npmt_bleu_test.md").read_text(encoding="utf-8")
    assert ("NPMT+LM (npmt_lm) not run: lmplz not found" in md) != HAS_LM
    assert (run_dir / "results/tiny/lm/target.4gram.bin").is_file() == HAS_LM
    main = [r["model"] for r in rows(report / "results.csv")]
    assert main == [*ROWS, "npmt_window5"]


def test_greedy_segments_concatenate_to_the_output(run_dir: Path):
    out = run_dir / "results/tiny/translations/npmt/seed1"
    src = (run_dir / "results/tiny/data/test.de").read_text().splitlines()
    hyps = (out / "test.greedy.tok").read_text().splitlines()
    segs = [json.loads(line)["segments"]
            for line in (out / "test.greedy.segments").read_text().splitlines()]
    assert len(segs) == len(src) == len(hyps) == 40
    for s, line, hyp in zip(segs, src, hyps, strict=True):
        assert len(s) == len(line.split()) + 1
        assert [t for seg in s for t in seg] == hyp.split()


def test_segment_analyses_and_gates(run_dir: Path):
    report = run_dir / "results/tiny/report"
    lengths = rows(report / "npmt_segments_test.csv")
    assert {r["model"] for r in lengths} == {"npmt", "npmt_noreorder"}
    examples = (report / "npmt_examples_test.md").read_text(encoding="utf-8")
    assert "| source | ¹ " in examples and "| npmt_noreorder greedy |" in examples
    categories = {r["category"] for r in rows(report / "npmt_mappings_test.csv")}
    assert categories <= {"One→One", "One→Many", "Many→One", "Many→Many",
                          "Many→Many*"} and categories
    assert (report / "npmt_gates.png").stat().st_size > 0
    gates = (run_dir / "results/tiny/analysis/npmt_gates_test.tsv").read_text()
    assert gates.splitlines()[0] == "position\tsource_token\toffset\tgate"
    reordering = rows(report / "npmt_reordering_test.csv")
    assert {r["model"] for r in reordering} == set(ROWS)
    assert [r["group"] for r in reordering[:4]] == ["0", "1–3", "4–7", ">7"]
    assert sum(int(r["sentences"]) for r in reordering[:4]) == 40


def test_window_sweep_table(run_dir: Path):
    sweep = rows(run_dir / "results/tiny/report/sweep_npmt_window.csv")
    assert [(r["value"], r["model"]) for r in sweep] == [("5", "npmt_window5"),
                                                         ("7", "npmt")]
    models = run_dir / "results/tiny/models"
    spec = yaml.safe_load((models / "npmt_window5/seed1/config.yaml").read_text())
    assert spec["model"]["window"] == 5
    assert yaml.safe_load((models / "npmt/seed1/config.yaml").read_text())["model"][
        "window"] == 7
    assert not (models / "npmt_window7").exists()  # the base value is npmt itself
    assert not (models / "npmt_lm").exists()  # decodes npmt's checkpoint


def test_html_report_has_the_npmt_outputs(run_dir: Path):
    html = run_dir / "report.html"
    result = snakemake("--snakefile", str(REPO / "Snakefile"), "--directory",
                       str(run_dir), "--configfile", str(run_dir / "config.yaml"),
                       "--report", str(html))
    assert result.returncode == 0, result.stderr[-3000:]
    text = html.read_text(encoding="utf-8")
    for name in ("npmt_bleu_test.md", "npmt_segments_test.md", "npmt_examples_test.md",
                 "npmt_mappings_test.md", "npmt_reordering_test.md", "npmt_gates.png",
                 "sweep_npmt_window.md"):
        assert name in text


@pytest.mark.skipif(HAS_LM, reason="lmplz is installed: the LM row runs")
def test_asking_for_the_lm_row_without_lmplz_fails_with_the_howto(run_dir: Path):
    result = snakemake("--snakefile", str(REPO / "Snakefile"), "--directory",
                       str(run_dir), "--configfile", str(run_dir / "config.yaml"),
                       "--cores", "1", "results/tiny/translations/npmt_lm/seed1/test.tok")
    assert result.returncode != 0
    assert "lmplz not found: KenLM's estimator" in result.stdout + result.stderr
