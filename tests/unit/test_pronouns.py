"""Pronoun/noun accuracy: the lookup through the source on a hand-made example."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from phrasenmt.evaluate import pronouns
from phrasenmt.io import InputError, read_lines

SRC = ["the cat sees her .", "yesterday I saw the dog .", "it rains .",
       "he likes her ."]
REF = ["die Katze sieht sie .", "Gestern sah ich den Hund .", "es regnet .",
       "er mag sie ."]
HYP = ["die Katze sieht ihn .", "ich sah gestern den Hund .", "es regnet .",
       "sie mag er ."]
REF_LINKS = ["0-0 1-1 2-2 3-3 4-4", "0-0 1-2 2-1 3-3 4-4 5-5",
             "1-1 2-2",  # "es" has no source link
             "0-0 1-1 2-2 3-3"]
HYP_LINKS = ["0-0 1-1 2-2 3-3 4-4", "0-2 1-0 2-1 3-3 4-4 5-5", "0-0 1-1 2-2",
             "0-0 1-1 2-2 3-3"]


def _write(path: Path, lines: list[str]) -> str:
    path.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    return str(path)


def _score(tmp: Path, ref=REF, hyp=HYP, nouns="auto", lang="de") -> pd.DataFrame:
    args = ["score", "--model", "m", "--lang", lang, "--nouns", nouns,
            "--src", _write(tmp / "src", SRC), "--ref", _write(tmp / "ref", ref),
            "--ref-align", _write(tmp / "ref.links", REF_LINKS),
            "--hyp", _write(tmp / "hyp", hyp),
            "--hyp-align", _write(tmp / "hyp.links", HYP_LINKS),
            "--out", str(tmp / "acc.tsv")]
    assert pronouns.main(args) == 0
    return pd.read_csv(tmp / "acc.tsv", sep="\t")


def _row(df: pd.DataFrame, category: str, word: str = "all") -> dict:
    return df[(df.category == category) & (df.word == word)].iloc[0].to_dict()


def test_words_count_only_at_aligned_positions(tmp_path):
    df = _score(tmp_path)
    assert list(df.columns) == pronouns.COLUMNS
    # pronouns: sie (hyp has ihn), ich (reordered, found through the source),
    # es (no source link), er (hyp has "er", but not where "he" is), sie (same)
    p = _row(df, "pronoun")
    assert (p["total"], p["aligned"], p["correct"]) == (5, 4, 1)
    assert p["accuracy"] == pytest.approx(0.25) and p["coverage"] == pytest.approx(0.8)
    # nouns: Katze and Hund; "Gestern" and "die" are sentence-initial or lowercase
    n = _row(df, "noun")
    assert (n["total"], n["aligned"], n["correct"], n["noun_rule"]) == (
        2, 2, 2, "capitalised")
    assert _row(df, "pronoun", "sie")["total"] == 2
    assert math.isnan(_row(df, "pronoun", "es")["accuracy"])


def test_content_rule_and_english_pronouns(tmp_path):
    ref = ["the cat sees her .", "yesterday I saw the dog .", "it rains .",
           "he likes her ."]
    df = _score(tmp_path, ref=ref, hyp=ref, lang="en")
    assert _row(df, "noun")["noun_rule"] == "content"
    # content words: cat yesterday dog rains likes (stopwordsiso lists the,
    # sees, saw; it, he, her are pronouns)
    assert _row(df, "noun")["total"] == 5
    assert _row(df, "pronoun")["total"] == 5  # her I it he her


def test_lowercased_german_needs_the_content_rule(tmp_path):
    with pytest.raises(InputError, match="looks lowercased; use --nouns content"):
        _score(tmp_path, ref=[r.lower() for r in REF])
    with pytest.raises(InputError, match="no pronoun list for language 'vi'"):
        _score(tmp_path, lang="vi")


def test_alignment_file_must_fit_the_text(tmp_path):
    bad = [*REF_LINKS[:3], "0-9"]
    args = ["score", "--model", "m", "--lang", "de",
            "--src", _write(tmp_path / "src", SRC),
            "--ref", _write(tmp_path / "r", REF),
            "--ref-align", _write(tmp_path / "ra", bad),
            "--hyp", _write(tmp_path / "h", HYP),
            "--hyp-align", _write(tmp_path / "ha", HYP_LINKS),
            "--out", str(tmp_path / "o.tsv")]
    with pytest.raises(InputError, match=r"ra:4: link 0-9 out of range"):
        pronouns.main(args)
    assert not (tmp_path / "o.tsv").exists()


def test_align_uses_training_text_and_skips_empty_lines(tmp_path):
    train_src = ["a b c", "a b", "b c", "c a", "a c b"] * 8
    train_tgt = ["x y z", "x y", "y z", "z x", "x z y"] * 8
    args = ["align", "--src", _write(tmp_path / "s", ["a b c", "c b"]),
            "--tgt", _write(tmp_path / "t", ["x y z", ""]),
            "--train-src", _write(tmp_path / "ts", train_src),
            "--train-tgt", _write(tmp_path / "tt", train_tgt),
            "--out", str(tmp_path / "links")]
    assert pronouns.main(args) == 0
    assert read_lines(tmp_path / "links") == ["0-0 1-1 2-2", ""]


def test_align_symmetrizes_with_the_heuristic_given(tmp_path, monkeypatch):
    """`--symmetrize` reaches the links (config align.symmetrize)."""
    seen = []

    def record(fwd, rev, method):
        seen.append(method)
        return fwd & rev

    monkeypatch.setattr(pronouns, "symmetrize", record)
    args = ["align", "--src", _write(tmp_path / "s", ["a b"]),
            "--tgt", _write(tmp_path / "t", ["x y"]), "--backend", "fast_align",
            "--symmetrize", "intersection", "--out", str(tmp_path / "links")]
    assert pronouns.main(args) == 0
    assert seen == ["intersection"]
