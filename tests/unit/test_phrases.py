"""Tests for phrasenmt.align.phrases and its stage, phrasenmt.phrases: extraction, PMI, the five filters, fertility."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import pytest

from phrasenmt.align.phrases import (
    apply_filters,
    extract,
    fertility,
    pmi_scores,
    read_phrase_list,
)
from phrasenmt.io import InputError
from phrasenmt.phrases import main

STOP = {"of", "the", "in", "is"}


def test_extract_absorbs_unaligned_gap_and_drops_aligned_gap():
    tgt = [["quality", "of", "life", "is", "good"]] * 2
    links = [{(0, 0), (0, 2), (1, 3), (2, 4)},           # "of" unaligned
             {(0, 0), (0, 2), (1, 1), (2, 4)}]           # "of" aligned to 1
    ex = extract(tgt, links, max_length=6)
    assert ex.counts == Counter({("quality", "of", "life"): 1})
    assert ex.one_to_many == 2 and ex.non_contiguous == 1
    assert ex.spans == [{0: (0, 2)}, {}]


def test_extract_drops_too_long_spans():
    ex = extract([list("abcdefg")], [{(0, 0), (0, 6)}], max_length=6)
    assert not ex.counts and ex.too_long == 1


def test_pmi_hand_computed():
    sents = [s.split() for s in ("quality of life is good", "quality of life",
                                 "the life is good")]
    pmi = pmi_scores(sents, {("quality", "of", "life"), ("is", "good")})
    # trigram: c = 2 of N_3 = 3 + 1 + 2 positions; unigrams over N_1 = 12 tokens
    expected3 = math.log((2 / 6) / ((2 / 12) * (2 / 12) * (3 / 12)))
    assert pmi[("quality", "of", "life")] == pytest.approx(expected3)
    assert expected3 == pytest.approx(math.log(48))
    # bigram: c = 2 of N_2 = 4 + 2 + 3 positions
    assert pmi[("is", "good")] == pytest.approx(math.log((2 / 9) / (2 / 12) ** 2))


def test_pmi_negative_and_unseen():
    sents = [s.split() for s in ("a a a a", "b b b b", "a b")]
    pmi = pmi_scores(sents, {("a", "b"), ("b", "a")})
    assert pmi[("a", "b")] == pytest.approx(math.log((1 / 7) / 0.25))
    assert pmi[("a", "b")] < 0
    assert pmi[("b", "a")] == float("-inf")


def _filter(phrase, freq=5, pmi=1.0):
    counts = Counter({tuple(phrase.split()): freq})
    kept, rows = apply_filters(counts, {tuple(phrase.split()): pmi}, 2, STOP)
    return kept, {name: alone for name, _, alone, _, _ in rows}


@pytest.mark.parametrize("phrase,freq,pmi,removed_by", [
    ("quality of life", 5, 1.0, None),
    ("quality of life", 1, 1.0, "min_count"),
    ("quality , life", 5, 1.0, "punctuation"),
    ("don &apos;t", 5, 1.0, "punctuation"),
    ("quality of life", 5, 0.0, "positive_pmi"),
    ("quality of life", 5, -2.0, "positive_pmi"),
    ("very very", 5, 1.0, "bigram_repeat"),
    ("of the", 5, 1.0, "stopwords_only"),
    ("in the", 5, 1.0, "stopwords_only"),
])
def test_each_filter_on_crafted_candidate(phrase, freq, pmi, removed_by):
    kept, alone = _filter(phrase, freq, pmi)
    assert (not kept) == (removed_by is not None)
    assert {k for k, v in alone.items() if v} == ({removed_by} if removed_by else set())


def test_repeat_only_matters_for_bigrams_and_stopwords_need_all_words():
    assert _filter("very very good")[0]
    assert _filter("the house")[0]


def test_filter_counts_alone_and_in_order():
    counts = Counter({("of", "the"): 1, ("a", "b"): 5, ("x", ","): 1})
    pmi = {p: 1.0 for p in counts}
    kept, rows = apply_filters(counts, pmi, 2, STOP | {"a"})
    table = {r[0]: r[2:] for r in rows}
    assert kept == {("a", "b")}
    assert table["min_count"] == (2, 2, 1)
    assert table["punctuation"] == (1, 0, 1)
    assert table["stopwords_only"] == (1, 0, 1)


def test_fertility_on_hand_aligned_sentence():
    # source a b c d e; target x y | z w v | u | p q
    tgt = ["x", "y", "z", "w", "v", "u", "p", "q"]
    links = {(0, 0), (0, 1), (1, 2), (1, 3), (1, 4), (3, 5), (4, 6), (4, 7)}
    spans = {0: (0, 1), 1: (2, 4), 4: (6, 7)}
    kept = {("x", "y"), ("z", "w", "v")}               # "p q" was filtered out
    assert fertility(5, tgt, links, spans, kept) == [2, 3, 0, 1, 1]
    assert fertility(5, tgt, links, spans, kept, True) == [2, 3, 0, 1, 2]


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_cli_end_to_end(tmp_path):
    src = _write(tmp_path, "src", "lebensqualität ist gut\nlebensqualität\nja\n")
    tgt = _write(tmp_path, "tgt", "quality of life is good\nquality of life\nyes\n")
    ali = _write(tmp_path, "ali", "0-0 0-1 0-2 1-3 2-4\n0-0 0-2\n0-0\n")
    out = {k: str(tmp_path / k) for k in ("p", "f", "f4", "f2")}
    assert main(["--src", src, "--tgt", tgt, "--alignment", ali, "--tgt-lang", "en",
                 "--out-phrases", out["p"], "--out-filters", out["f"],
                 "--out-fertility", out["f4"], "--out-fertility2", out["f2"]]) == 0
    assert read_phrase_list(out["p"]) == [("quality", "of", "life")]
    assert Path(out["f4"]).read_text() == "3 1 1\n3\n1\n"
    assert Path(out["f2"]).read_text() == "1 0 0\n1\n0\n"
    rows = [r.split("\t") for r in Path(out["f"]).read_text().splitlines()]
    assert rows[0][0] == "filter" and rows[-1] == ["kept", "types", "0", "0", "1"]
    ali_bad = _write(tmp_path, "bad", "0-0 0-1 0-2 1-3 2-4\n0-0 0-3\n0-0\n")
    with pytest.raises(InputError, match=r"/bad:2: link 0-3 out of range"):
        main(["--src", src, "--tgt", tgt, "--alignment", ali_bad, "--tgt-lang",
              "en", "--out-phrases", out["p"], "--out-filters", out["f"],
              "--out-fertility", out["f4"], "--out-fertility2", out["f2"]])
    with pytest.raises(InputError, match="no stopword list"):
        main(["--src", src, "--tgt", tgt, "--alignment", ali, "--tgt-lang", "xx",
              "--out-phrases", out["p"], "--out-filters", out["f"],
              "--out-fertility", out["f4"], "--out-fertility2", out["f2"]])


def _run_phrases(tmp_path, src, tgt, ali, min_count=2):
    out = {k: str(tmp_path / k) for k in ("p", "f", "f4", "f2")}
    main(["--src", _write(tmp_path, "src", src), "--tgt", _write(tmp_path, "tgt", tgt),
          "--alignment", _write(tmp_path, "ali", ali), "--tgt-lang", "en",
          "--min-count", str(min_count), "--out-phrases", out["p"],
          "--out-filters", out["f"], "--out-fertility", out["f4"],
          "--out-fertility2", out["f2"]])
    rows = [r.split("\t") for r in Path(out["p"]).read_text().splitlines()[1:]]
    return {r[0]: int(r[1]) for r in rows}


def test_min_count_drops_a_phrase_seen_once_in_a_two_by_two_block(tmp_path):
    # "feuer wehr" <-> "fire brigade" as a 2x2 block: each source word proposes
    # the phrase, so it is extracted twice from its one occurrence
    src = "die feuer wehr kommt\nein hund\nein haus\n"
    tgt = "the fire brigade comes\na dog\na house\n"
    ali = "0-0 1-1 1-2 2-1 2-2 3-3\n0-0 1-1\n0-0 1-1\n"
    assert _run_phrases(tmp_path, src, tgt, ali) == {}
    assert _run_phrases(tmp_path, src, tgt, ali, min_count=1) == {"fire brigade": 1}


def test_min_count_counts_occurrences_in_the_target_text(tmp_path):
    # extracted once, but the second sentence holds it again (aligned word by word)
    src = "die feuerwehr kommt\ndie feuer wehr\nein hund\n"
    tgt = "the fire brigade comes\nthe fire brigade\na dog\n"
    ali = "0-0 1-1 1-2 2-3\n0-0 1-1 2-2\n0-0 1-1\n"
    assert _run_phrases(tmp_path, src, tgt, ali) == {"fire brigade": 2}
