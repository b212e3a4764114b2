"""Tests for phrasenmt.evaluate.length: length groups and BLEU per group."""

from __future__ import annotations

import argparse
import math
import random
from pathlib import Path

import pandas as pd
import pytest
from sacrebleu.metrics import BLEU

from phrasenmt.evaluate import length
from phrasenmt.io import InputError


@pytest.mark.parametrize(("n", "group"), [
    (0, 0), (1, 0), (15, 0), (16, 1), (25, 1), (26, 2), (35, 2), (36, 3),
    (45, 3), (46, 4), (200, 4)])
def test_assign_group_at_boundaries(n, group):
    assert length.assign_group(n, length.DEFAULT_BOUNDS) == group


def test_group_labels_and_bounds():
    assert length.length_groups([15, 25, 35, 45]) == [
        ("≤15", 0, 15), ("16–25", 16, 25), ("26–35", 26, 35), ("36–45", 36, 45),
        (">45", 46, None)]
    assert length.length_groups([10]) == [("≤10", 0, 10), (">10", 11, None)]


@pytest.mark.parametrize("bad", ["15,15", "25,15", "0,10", "a,b", ""])
def test_parse_bounds_rejects_bad_lists(bad):
    with pytest.raises(argparse.ArgumentTypeError):
        length.parse_bounds(bad)


def _corpus(seed: int = 0) -> tuple[list[str], list[str], list[str]]:
    """Source of lengths 3..40 words, reference and a noisy hypothesis."""
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(30)]
    src, ref, hyp = [], [], []
    for n in list(range(3, 41)) * 3:
        src.append(" ".join(rng.choices(words, k=n)))
        r = rng.choices(words, k=n)
        ref.append(" ".join(r))
        hyp.append(" ".join(w if rng.random() > 0.3 else "x" for w in r))
    return src, ref, hyp


def test_group_bleu_equals_bleu_on_selected_subset():
    src, ref, hyp = _corpus()
    df = length.bleu_by_length(src, ref, {"m": hyp}, "t")
    picked = [i for i, s in enumerate(src) if 16 <= len(s.split()) <= 25]
    expected = BLEU(tokenize="none").corpus_score(
        [hyp[i] for i in picked], [[ref[i] for i in picked]]).score
    row = df[df.group == "16–25"].iloc[0]
    assert row.sentences == len(picked) == 30
    assert row.bleu == pytest.approx(expected)
    assert list(df.columns) == length.COLUMNS


def test_empty_group_has_zero_sentences_and_nan_bleu():
    src, ref, hyp = _corpus()
    df = length.bleu_by_length(src, ref, {"m": hyp}, "t")
    last = df[df.group == ">45"].iloc[0]
    assert last.sentences == 0 and math.isnan(last.bleu)
    assert pd.isna(last.upper) and last.lower == 46
    assert df.sentences.sum() == len(src)


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_cli_writes_tidy_tsv(tmp_path):
    src, ref, hyp = _corpus()
    files = {k: _write(tmp_path / k, v) for k, v in
             {"src": src, "ref": ref, "hyp": hyp}.items()}
    out = tmp_path / "length.tsv"
    assert length.main(["--src", str(files["src"]), "--ref", str(files["ref"]),
                        "--hyp", f"a={files['hyp']}", f"b={files['ref']}",
                        "--bins", "10,20", "--testset", "t", "--out", str(out)]) == 0
    df = pd.read_csv(out, sep="\t")
    assert list(df.columns) == length.COLUMNS
    assert list(df.group) == ["≤10", "11–20", ">20"] * 2
    assert list(df.model) == ["a"] * 3 + ["b"] * 3
    assert list(df[df.model == "b"].bleu) == pytest.approx([100.0] * 3)


def test_cli_rejects_mismatched_hypotheses(tmp_path):
    src, ref, hyp = _corpus()
    s, r = _write(tmp_path / "src", src), _write(tmp_path / "ref", ref)
    h = _write(tmp_path / "hyp", hyp[:-1])
    with pytest.raises(InputError) as err:
        length.main(["--src", str(s), "--ref", str(r), "--hyp", f"a={h}",
                     "--testset", "t", "--out", str(tmp_path / "o.tsv")])
    assert str(h) in str(err.value) and str(r) in str(err.value)
    assert not (tmp_path / "o.tsv").exists()
