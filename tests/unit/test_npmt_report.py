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
from tests.unit import eval_files as ef

REFS = [f"the cat number {i} sat on the mat ." for i in range(30)]
GOOD = list(REFS)
BAD = [f"a dog {i} stood there" for i in range(30)]


def eval_json(path: Path, system: str, hyps: list[str]) -> Path:
    """One seed's evaluation JSON as phrasenmt.evaluate.bleu writes it."""
    result = {"system": system, "testset": "test",
              "bleu_tok": bleu.score_entry(bleu.tok_bleu(), hyps, REFS),
              "significance": None}
    path.write_text(json.dumps(result))
    return path


def aggregate(tmp: Path, system: str, score: float, p: float | None,
              baseline: str = "attn_rnn", n_seeds: int = 1) -> Path:
    """Its all-seed JSON (phrasenmt.evaluate.multiseed) against the baseline."""
    tmp.mkdir(exist_ok=True)
    return ef.aggregate(tmp, system, "test", [score] * n_seeds, p, [5.0] * n_seeds,
                        baseline)


def outputs(tmp_path: Path, stem: str) -> list[str]:
    return [f"--out-{e}={tmp_path / f'{stem}.{e}'}" for e in ("md", "tex", "csv")]


def rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture
def evals(tmp_path) -> list[str]:
    """--eval (all seeds) then --seed-eval (per seed) options of five cells; NPMT's
    greedy cell has two seeds, the others one."""
    cells = {"attn_rnn:greedy": (BAD, 5.0, None), "attn_rnn:beam": (BAD, 5.0, None),
             "npmt:greedy": (GOOD, 100.0, 0.001), "npmt:beam": (BAD, 5.0, 1.0),
             "npmt_lm:beam": (GOOD, 100.0, 0.001)}
    aggs, seeds = [], []
    for i, (key, (hyps, score, p)) in enumerate(cells.items()):
        name, n = key.split(":")[0], 2 if key == "npmt:greedy" else 1
        aggs.append(f"{key}={aggregate(tmp_path / 'agg', name, score, p, n_seeds=n)}")
        seeds += [f"{key}={eval_json(tmp_path / f'{i}.{s}.json', name, hyps)}"
                  for s in range(n)]
    return ["--eval", *aggs, "--seed-eval", *seeds]


def test_table_marks_significance_and_missing_greedy(tmp_path, evals):
    npmt.main(["table", *evals, "--decode", "npmt=beam 4, λ1 0, λ2 0",
               "--baseline", "attn_rnn", "--order", "attn_rnn,npmt,npmt_lm",
               "--testset", "test", "--alpha", "0.05",
               "--note", "NPMT+LM (x) not run: lmplz not found",
               *outputs(tmp_path, "t")])
    md = (tmp_path / "t.md").read_text()
    assert "| attn_rnn (baseline) |" in md
    lines = {line.split(" | ")[0].strip("| "): line for line in md.splitlines()
             if line.startswith("| npmt")}
    assert "100.00 ± 0.00†" in lines["npmt"]  # greedy: significantly better
    assert "†" not in lines["npmt"].split(" | ")[2]  # beam equals the baseline
    assert lines["npmt"].split(" | ")[3:5] == [  # p greedy, p beam (one seed)
        "0.001", "1 (one seed: indicative, no verdict)"]
    # one seed, better with p < alpha: no mark, the p is indicative
    assert "†" not in lines["npmt_lm"]
    assert "0.001 (one seed: indicative, no verdict)" in lines["npmt_lm"]
    assert lines["npmt_lm"].split(" | ")[1] == "–"  # no greedy decoding
    assert "NPMT+LM (x) not run: lmplz not found" in md
    table = rows(tmp_path / "t.csv")
    assert [r["model"] for r in table] == ["attn_rnn", "npmt", "npmt_lm"]
    assert table[1]["significant_greedy"] == "True"
    assert table[1]["significant_beam"] == "False"
    tex = (tmp_path / "t.tex").read_text()
    assert r"100.00 $\pm$ 0.00$^\dagger$" in tex and "λ" not in tex


def test_table_rejects_a_model_without_evaluations(tmp_path, evals):
    with pytest.raises(InputError, match="no --eval given for model 'other'"):
        npmt.main(["table", *evals, "--baseline", "attn_rnn", "--order",
                   "attn_rnn,npmt,npmt_lm,other", "--testset", "test",
                   *outputs(tmp_path, "t")])


def test_table_rejects_significance_against_another_baseline(tmp_path, evals):
    keep = [a for a in evals if not a.startswith("attn_rnn")]
    with pytest.raises(InputError, match="key 'baseline' is 'attn_rnn'"):
        npmt.main(["table", *keep, "--baseline", "npmt", "--order",
                   "npmt,npmt_lm", "--testset", "test", *outputs(tmp_path, "t")])


def test_table_three_seeds_mean_sd_each_seed(tmp_path):
    scores = [100.0, 50.0, 75.0]
    agg = ef.aggregate(tmp_path, "npmt", "test", scores, 0.01, [5.0], "npmt")
    hyps = [GOOD, GOOD[:15] + BAD[15:], GOOD]
    seeds = [f"npmt:beam={eval_json(tmp_path / f's{i}', 'npmt', h)}"
             for i, h in enumerate(hyps)]
    npmt.main(["table", "--eval", f"npmt:beam={agg}", "--seed-eval", *seeds,
               "--order", "npmt", "--testset", "test", *outputs(tmp_path, "t")])
    row = rows(tmp_path / "t.csv")[0]
    assert row["seeds_beam"] == "1;2;3" and float(row["bleu_beam_sd"]) > 0
    md = (tmp_path / "t.md").read_text()
    assert " ± " in md and "beam 1: 100.00, 2: " in md
    with pytest.raises(InputError, match="2 --seed-eval file"):
        npmt.main(["table", "--eval", f"npmt:beam={agg}", "--seed-eval",
                   *seeds[:2], "--order", "npmt", "--testset", "test",
                   *outputs(tmp_path, "t")])


def test_bad_eval_option_is_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit):
        run_cli(npmt.main, ["table", "--eval", "npmt:sampling=x.json", "--order",
                            "npmt", "--testset", "t", *outputs(tmp_path, "t")])
    assert "expected NAME:DECODING=FILE" in capsys.readouterr().err
    assert not (tmp_path / "t.md").exists()


def test_sweep_table_rows_follow_values(tmp_path):
    files = [f"5:greedy={eval_json(tmp_path / '5g', 'npmt_window5', BAD)}",
             f"5:beam={eval_json(tmp_path / '5b', 'npmt_window5', BAD)}",
             f"7:greedy={eval_json(tmp_path / '7g', 'npmt', GOOD)}",
             f"7:beam={eval_json(tmp_path / '7b', 'npmt', GOOD)}"]
    npmt.main(["sweep", "--name", "npmt_window", "--key", "model.window", "--base",
               "npmt", "--eval", *files, *outputs(tmp_path, "s")])
    table = rows(tmp_path / "s.csv")
    assert [(r["value"], r["model"]) for r in table] == [("5", "npmt_window5"),
                                                         ("7", "npmt")]
    assert float(table[1]["bleu_beam"]) == pytest.approx(100.0)
    md = (tmp_path / "s.md").read_text()
    assert "| test | 7 | npmt (base) | 100.00 (1 seed) | 100.00 (1 seed) |" in md


def test_sweep_table_averages_the_seeds_of_a_point(tmp_path):
    seeds = [eval_json(tmp_path / f"s{i}", "npmt", h)
             for i, h in enumerate([GOOD, GOOD[:15] + BAD[15:]])]
    npmt.main(["sweep", "--name", "w", "--key", "model.window", "--base", "npmt",
               "--eval", *(f"7:beam={p}" for p in seeds), *outputs(tmp_path, "s")])
    table = rows(tmp_path / "s.csv")
    assert len(table) == 1 and table[0]["seeds_beam"] == "2"
    assert 0 < float(table[0]["bleu_beam"]) < 100 and " ± " in (
        tmp_path / "s.md").read_text()


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


def test_a_model_that_emitted_no_segment_gets_a_note_not_an_error(tmp_path, analyses):
    quiet = [[[] for _ in line] for line in SEGS]  # every position empty
    by_model = {"npmt": SEGS, "quiet": quiet}
    stats, maps = tmp_path / "s2.tsv", tmp_path / "m2.tsv"
    seg_eval.write_tsv(seg_eval.segment_stats(SRC, by_model, "test", [3]), stats)
    seg_eval.write_tsv(seg_eval.phrase_mappings(SRC, by_model, "test", 5), maps)
    args = ["mappings", "--tsv", str(maps), "--order", "npmt,quiet"]
    with pytest.raises(InputError, match="no rows for quiet"):  # without --stats
        segments.main([*args, *outputs(tmp_path, "m")])
    segments.main([*args, "--stats", str(stats), *outputs(tmp_path, "m")])
    md = (tmp_path / "m.md").read_text()
    assert "das beste → the best (1)" in md
    assert "No mappings for quiet: in greedy decoding of the test set it emitted no " \
           "segment" in md
    # only the silent model: a TSV without rows, an empty table with the note
    only_quiet = tmp_path / "m3.tsv"
    seg_eval.write_tsv(seg_eval.phrase_mappings(SRC, {"quiet": quiet}, "test", 5),
                       only_quiet)
    segments.main(["mappings", "--tsv", str(only_quiet), "--order", "quiet", "--stats",
                   str(stats), *outputs(tmp_path, "q")])
    assert "No mappings for quiet" in (tmp_path / "q.md").read_text()
    # a model that did emit segments but has no rows: the mappings TSV is incomplete
    with pytest.raises(InputError, match="model npmt emitted 5 segments"):
        segments.main(["mappings", "--tsv", str(only_quiet), "--order", "npmt,quiet",
                       "--stats", str(stats), *outputs(tmp_path, "x")])


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
