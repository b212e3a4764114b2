"""Tests for phrasenmt.evaluate.reordering and its table: BLEU by the reference's
reordering distance from gold alignments."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import pandas as pd
import pytest
from sacrebleu.metrics import BLEU

from phrasenmt.evaluate import reordering
from phrasenmt.io import InputError
from phrasenmt.report import segments


@pytest.mark.parametrize(("links", "distance"), [
    ([(0, 0), (1, 1), (2, 2)], 0),                  # monotone
    ([(0, 0), (0, 1), (1, 2), (2, 3)], 0),          # one-to-many is not reordering
    ([(0, 0), (2, 1), (3, 2)], 0),                  # an unaligned source word neither
    ([(0, 1), (1, 0), (2, 2)], 1),                  # two neighbours swap
    ([(0, 0), (1, 4), (2, 1), (3, 2), (4, 3)], 3),  # a verb moves three to the end
    ([(0, 0), (4, 1), (1, 2), (2, 3), (3, 4)], 3),  # ... or three to the front
    ([(0, 3), (1, 2), (2, 1), (3, 0)], 3),          # full inversion
    ([], 0),
])
def test_reordering_distance(links, distance):
    assert reordering.reordering_distance(links) == distance


def test_groups_and_bounds():
    assert reordering.distance_groups([0, 3, 7]) == [
        ("0", 0, 0), ("1–3", 1, 3), ("4–7", 4, 7), (">7", 8, None)]
    assert reordering.parse_bounds("0,3,7") == [0, 3, 7]
    for bad in ("3,3", "7,3", "-1,3", "a", ""):
        with pytest.raises(argparse.ArgumentTypeError):
            reordering.parse_bounds(bad)


def test_group_bleu_is_bleu_of_the_group():
    ref = ["a b c d", "e f g h", "i j k l", "m n o p"]
    hyp = ["a b c d", "e f x h", "i j k l", "m x o x"]
    df = reordering.bleu_by_reordering([0, 2, 0, 9], ref, [("m", 1, hyp)], "test",
                                       [0, 3, 7])
    assert list(df.columns) == reordering.COLUMNS
    zero = df[df.group == "0"].iloc[0]
    assert zero.sentences == 2 and zero.bleu == pytest.approx(100.0)
    one = df[df.group == "1–3"].iloc[0]
    expected = BLEU(tokenize="none").corpus_score([hyp[1]], [[ref[1]]]).score
    assert one.sentences == 1 and one.bleu == pytest.approx(expected)
    empty = df[df.group == "4–7"].iloc[0]
    assert empty.sentences == 0 and math.isnan(empty.bleu)


MONOTONE, SWAP = "0-0 1-1 2-2 3-3 4-4", "0-1 1-0 2-2 3-3 4-4"


def _files(tmp_path: Path, align: str = f"{MONOTONE}\n{SWAP}\n") -> dict[str, Path]:
    files = {"src": "a b c d e\nf g h i j\n", "ref": "A B C D E\nG F H I J\n",
             "align": align, "h1": "A B C D E\nF G H I J\n",
             "h2": "A B C D E\nG F H I J\n"}
    out = {}
    for name, text in files.items():
        out[name] = tmp_path / name
        out[name].write_text(text, encoding="utf-8")
    return out


def _argv(f: dict[str, Path], out: Path, *hyps: str) -> list[str]:
    return ["--src", str(f["src"]), "--ref", str(f["ref"]), "--align", str(f["align"]),
            "--hyp", *(hyps or (f"m:1={f['h1']}", f"m:2={f['h2']}")),
            "--bins", "0", "--testset", "test", "--out", str(out)]


def test_cli_and_table(tmp_path):
    f = _files(tmp_path)
    tsv = tmp_path / "r.tsv"
    assert reordering.main(_argv(f, tsv)) == 0
    df = pd.read_csv(tsv, sep="\t")
    assert df[["seed", "group", "sentences"]].values.tolist() == [
        [1, "0", 1], [1, ">0", 1], [2, "0", 1], [2, ">0", 1]]
    swapped = df[df.group == ">0"].set_index("seed")["bleu"]
    assert swapped[2] == pytest.approx(100.0) and swapped[1] < 100.0
    md = tmp_path / "t.md"
    segments.main(["reordering", "--tsv", str(tsv), "--order", "m", "--out-md", str(md),
                   "--out-tex", str(tmp_path / "t.tex"), "--out-csv",
                   str(tmp_path / "t.csv")])
    text = md.read_text(encoding="utf-8")
    mean = (swapped[1] + swapped[2]) / 2
    assert "| model | 0 (1) | >0 (1) | seeds |" in text
    assert f"| m | 100.00 ± 0.00 | {mean:.2f} ± " in text
    assert text.rstrip().endswith("beam search.")


def test_bad_alignment_names_file_and_line(tmp_path):
    f = _files(tmp_path, align=f"{MONOTONE}\n0-1 5-0\n")
    with pytest.raises(InputError, match=r"align:2: link 5-0 out of range"):
        reordering.main(_argv(f, tmp_path / "r.tsv"))


def test_bad_hypotheses(tmp_path):
    f = _files(tmp_path)
    (tmp_path / "short").write_text("A B C D E\n", encoding="utf-8")
    with pytest.raises(InputError, match="has 1 lines but the reference"):
        reordering.main(_argv(f, tmp_path / "r.tsv", f"m:1={tmp_path / 'short'}"))
    with pytest.raises(InputError, match="m:1 given twice"):
        reordering.main(_argv(f, tmp_path / "r.tsv", f"m:1={f['h1']}", f"m:1={f['h2']}"))
    with pytest.raises(argparse.ArgumentTypeError, match="MODEL:SEED=FILE"):
        reordering.hyp_arg(f"m={f['h1']}")
