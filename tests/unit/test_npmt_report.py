"""NPMT report: BLEU table with significance, sweep, segment tables, gates figure."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from phrasenmt.evaluate import bleu
from phrasenmt.evaluate import segments as seg_eval
from phrasenmt.io import InputError, run_cli
from phrasenmt.report import gates, npmt, segments

REFS = [f"the cat number {i} sat on the mat ." for i in range(30)]
GOOD = list(REFS)
BAD = [f"a dog {i} stood there" for i in range(30)]


def eval_json(path: Path, system: str, hyps: list[str], base: tuple | None) -> Path:
    """An evaluation JSON as phrasenmt.evaluate.bleu writes it."""
    result = {"system": system, "testset": "test",
              "bleu_tok": bleu.score_entry(bleu.tok_bleu(), hyps, REFS),
              "significance": None}
    if base is not None:
        result["significance"] = bleu.paired_bootstrap((system, hyps), base, REFS,
                                                       samples=50, seed=1)
    path.write_text(json.dumps(result))
    return path


def outputs(tmp_path: Path, stem: str) -> list[str]:
    return [f"--out-{e}={tmp_path / f'{stem}.{e}'}" for e in ("md", "tex", "csv")]


def rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture
def evals(tmp_path) -> list[str]:
    base = ("attn_rnn", BAD)
    files = {"attn_rnn:greedy": eval_json(tmp_path / "a.g", "attn_rnn", BAD, None),
             "attn_rnn:beam": eval_json(tmp_path / "a.b", "attn_rnn", BAD, None),
             "npmt:greedy": eval_json(tmp_path / "n.g", "npmt", GOOD, base),
             "npmt:beam": eval_json(tmp_path / "n.b", "npmt", BAD, base),
             "npmt_lm:beam": eval_json(tmp_path / "l.b", "npmt_lm", GOOD, base)}
    return [f"{k}={v}" for k, v in files.items()]


def test_table_marks_significance_and_missing_greedy(tmp_path, evals):
    npmt.main(["table", "--eval", *evals, "--decode", "npmt=beam 4, λ1 0, λ2 0",
               "--baseline", "attn_rnn", "--order", "attn_rnn,npmt,npmt_lm",
               "--testset", "test", "--alpha", "0.05",
               "--note", "NPMT+LM (x) not run: lmplz not found",
               *outputs(tmp_path, "t")])
    md = (tmp_path / "t.md").read_text()
    assert "| attn_rnn (baseline) |" in md
    lines = {line.split(" | ")[0].strip("| "): line for line in md.splitlines()
             if line.startswith("| npmt")}
    assert "100.00†" in lines["npmt"]  # greedy: perfect, significantly better
    assert "100.00†" not in lines["npmt"].split(" | ")[2]  # beam equals the baseline
    assert lines["npmt_lm"].split(" | ")[1] == "–"  # no greedy decoding
    assert "NPMT+LM (x) not run: lmplz not found" in md
    table = rows(tmp_path / "t.csv")
    assert [r["model"] for r in table] == ["attn_rnn", "npmt", "npmt_lm"]
    assert table[1]["significant_greedy"] == "True"
    assert table[1]["significant_beam"] == "False"
    tex = (tmp_path / "t.tex").read_text()
    assert r"100.00$^\dagger$" in tex and "λ" not in tex


def test_table_rejects_a_model_without_evaluations(tmp_path, evals):
    with pytest.raises(InputError, match="no --eval given for model 'other'"):
        npmt.main(["table", "--eval", *evals, "--baseline", "attn_rnn", "--order",
                   "attn_rnn,npmt,npmt_lm,other", "--testset", "test",
                   *outputs(tmp_path, "t")])


def test_table_rejects_significance_against_another_baseline(tmp_path, evals):
    with pytest.raises(InputError, match="significance.baseline"):
        npmt.main(["table", "--eval", *evals[2:], "--baseline", "npmt", "--order",
                   "npmt,npmt_lm", "--testset", "test", *outputs(tmp_path, "t")])


def test_bad_eval_option_is_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit):
        run_cli(npmt.main, ["table", "--eval", "npmt:sampling=x.json", "--order",
                            "npmt", "--testset", "t", *outputs(tmp_path, "t")])
    assert "expected NAME:DECODING=FILE" in capsys.readouterr().err
    assert not (tmp_path / "t.md").exists()


def test_sweep_table_rows_follow_values(tmp_path):
    files = [f"5:greedy={eval_json(tmp_path / '5g', 'npmt_window5', BAD, None)}",
             f"5:beam={eval_json(tmp_path / '5b', 'npmt_window5', BAD, None)}",
             f"7:greedy={eval_json(tmp_path / '7g', 'npmt', GOOD, None)}",
             f"7:beam={eval_json(tmp_path / '7b', 'npmt', GOOD, None)}"]
    npmt.main(["sweep", "--name", "npmt_window", "--key", "model.window", "--base",
               "npmt", "--eval", *files, *outputs(tmp_path, "s")])
    table = rows(tmp_path / "s.csv")
    assert [(r["value"], r["model"]) for r in table] == [("5", "npmt_window5"),
                                                         ("7", "npmt")]
    assert float(table[1]["bleu_beam"]) == pytest.approx(100.0)
    md = (tmp_path / "s.md").read_text()
    assert "| test | 7 | npmt (base) | 100.00 | 100.00 |" in md


def test_sweep_table_rejects_a_point_given_twice(tmp_path):
    path = eval_json(tmp_path / "5g", "npmt_window5", BAD, None)
    with pytest.raises(InputError, match="5:greedy on test given twice"):
        npmt.main(["sweep", "--name", "w", "--key", "model.window", "--base", "npmt",
                   "--eval", f"5:greedy={path}", f"5:greedy={path}",
                   *outputs(tmp_path, "s")])


SRC = ["das beste ist null", "danke ."]
SEGS = [[[], ["the", "best"], ["is"], ["zero"], []], [["thank", "you"], ["."], []]]


@pytest.fixture
def analyses(tmp_path) -> dict[str, Path]:
    """The three analysis TSVs of one model."""
    by_model = {"npmt": SEGS}
    out = {"segments": tmp_path / "stats.tsv", "examples": tmp_path / "ex.tsv",
           "mappings": tmp_path / "map.tsv"}
    seg_eval.write_tsv(seg_eval.segment_stats(SRC, by_model, "test", [3]),
                       out["segments"])
    seg_eval.write_tsv(seg_eval.example_rows(SRC, ["the best is zero", "thank you ."],
                                             by_model, "test", [0, 1]),
                       out["examples"])
    seg_eval.write_tsv(seg_eval.phrase_mappings(SRC, by_model, "test", 5),
                       out["mappings"])
    return out


def test_examples_in_table_2_format(tmp_path, analyses):
    segments.main(["examples", "--tsv", str(analyses["examples"]), "--order", "npmt",
                   *outputs(tmp_path, "e")])
    md = (tmp_path / "e.md").read_text()
    assert "| 1 | source | ¹ das ² beste ³ ist ⁴ null |" in md
    assert "| 1 | npmt greedy | ² the best • ³ is • ⁴ zero |" in md
    tex = (tmp_path / "e.tex").read_text()
    assert r"$^{2}$ the best $\bullet$ $^{3}$ is" in tex


def test_segments_table_has_group_counts(tmp_path, analyses):
    segments.main(["segments", "--tsv", str(analyses["segments"]), "--order", "npmt",
                   *outputs(tmp_path, "g")])
    md = (tmp_path / "g.md").read_text()
    assert "| model | all (2) | ≤3 (1) | >3 (1) | empty positions |" in md
    assert "| npmt | 1.40 | 1.50 | 1.33 | 37.5% |" in md  # 7/5, 3/2, 4/3


def test_mappings_table_keeps_the_word_null(tmp_path, analyses):
    segments.main(["mappings", "--tsv", str(analyses["mappings"]), "--order", "npmt",
                   *outputs(tmp_path, "m")])
    md = (tmp_path / "m.md").read_text()
    assert "null → zero (1)" in md
    assert "das beste → the best (1)" in md


def test_unknown_model_in_analysis_is_an_error(tmp_path, analyses):
    with pytest.raises(InputError, match="not in --order"):
        segments.main(["segments", "--tsv", str(analyses["segments"]), "--order",
                       "other", *outputs(tmp_path, "g")])


def gates_tsv(path: Path, tokens: list[str], window: int = 3) -> Path:
    tau = window // 2
    lines = ["position\tsource_token\toffset\tgate"]
    lines += [f"{p}\t{t}\t{o}\t{0.9 if o == 0 else 0.1}"
              for p, t in enumerate(tokens, start=1) for o in range(-tau, tau + 1)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_gates_figure_is_drawn(tmp_path):
    tsv = gates_tsv(tmp_path / "g.tsv", ["das", "beste", "ist", "null", "</s>"])
    segs = tmp_path / "s.seg"
    segs.write_text(json.dumps({"segments": SEGS[0]}) + "\n")
    gates.main(["--tsv", str(tsv), "--segments", str(segs), "--line", "1",
                "--model", "npmt", "--out-png", str(tmp_path / "f.png"),
                "--out-svg", str(tmp_path / "f.svg")])
    assert (tmp_path / "f.png").stat().st_size > 0
    assert (tmp_path / "f.svg").read_text().startswith("<?xml")
    df = npmt.read_text_tsv(tsv, gates.GATE_COLUMNS)
    matrix, tokens, offsets = gates.gate_matrix(df)
    assert matrix.shape == (5, 3) and matrix[2, 1] == pytest.approx(0.9)
    assert tokens[3] == "null" and offsets == [-1, 0, 1]
    assert gates.emitted_labels(segs, 1, tokens)[0] == "das → $"


def test_gates_of_another_sentence_are_rejected(tmp_path):
    tsv = gates_tsv(tmp_path / "g.tsv", ["danke", ".", "</s>"])
    segs = tmp_path / "s.seg"
    segs.write_text(json.dumps({"segments": SEGS[0]}) + "\n")
    with pytest.raises(InputError, match="has 5 segments but the gates file has 3"):
        gates.main(["--tsv", str(tsv), "--segments", str(segs), "--line", "1",
                    "--model", "npmt", "--out-png", str(tmp_path / "f.png"),
                    "--out-svg", str(tmp_path / "f.svg")])
    assert not (tmp_path / "f.png").exists()
