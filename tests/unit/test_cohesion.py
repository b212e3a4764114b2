"""Lexical cohesion (repetition across sentences) and LSA coherence."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from phrasenmt.evaluate import cohesion
from phrasenmt.io import InputError

STOP = frozenset({"the", "a", "is"})


def test_cohesion_counts_repeats_of_earlier_sentences_only():
    docs = [["the cat sat .", "the Cat ran , cat !", "a dog barked"],
            ["cat food is food ."]]
    total, repeated = cohesion.cohesion_counts(docs, STOP)
    # doc 1: cat sat | cat ran cat | dog barked -> both "cat" of sentence 2 repeat
    # sentence 1; doc 2: "cat" is new there, the second "food" is in the same
    # sentence, so it does not count
    assert (total, repeated) == (10, 2)


TRAIN = ["zork blip zork", "blip frob", "frob quux zork", "quux quux blip",
         "gnar frob", "gnar zork blip"] * 3


def _write(path: Path, lines: list[str]) -> str:
    path.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    return str(path)


def test_coherence_is_mean_adjacent_cosine_within_documents(tmp_path):
    lsa = cohesion.fit_lsa(TRAIN, dims=2, seed=3)
    docs = [["zork blip", "blip frob", "unknownword"], ["quux gnar"]]
    got = cohesion.adjacent_cosines(lsa, docs)
    vec = lsa["svd"].transform(lsa["vectorizer"].transform(docs[0]))
    cos = float(vec[0] @ vec[1] / np.linalg.norm(vec[0]) / np.linalg.norm(vec[1]))
    assert got == pytest.approx([cos, 0.0])  # zero vector: 0; no pair across docs
    again = cohesion.fit_lsa(TRAIN, dims=2, seed=3)
    assert np.allclose(again["svd"].components_, lsa["svd"].components_)


def test_cli_scores_systems_and_the_reference_row(tmp_path):
    assert cohesion.main(["fit", "--train", _write(tmp_path / "train", TRAIN),
                          "--dims", "2", "--out", str(tmp_path / "lsa.pkl")]) == 0
    docs = _write(tmp_path / "docs", ["d1", "d1", "d1", "d2", "d2"])
    ref = _write(tmp_path / "ref", ["zork blip", "zork frob", "blip", "gnar", "gnar"])
    hyp = _write(tmp_path / "hyp", ["zork blip", "quux frob", "blip", "gnar", "frob"])
    cohesion.main(["score", "--lsa", str(tmp_path / "lsa.pkl"), "--lang", "en",
                   "--docs", docs, "--system", f"m={hyp}", "--reference", ref,
                   "--out", str(tmp_path / "c.tsv")])
    df = pd.read_csv(tmp_path / "c.tsv", sep="\t").set_index("system")
    assert list(df.columns) == cohesion.COLUMNS[1:]
    assert df.loc["reference", "kind"] == "reference"
    # reference: zork repeats in d1 line 2, blip in line 3, gnar in d2 -> 3 of 7
    assert df.loc["reference", ["content_words", "repeated"]].tolist() == [7, 3]
    assert df.loc["m", ["content_words", "repeated"]].tolist() == [7, 1]
    assert df.loc["m", "pairs"] == 3
    assert df.loc["reference", "cohesion"] == pytest.approx(3 / 7, abs=1e-4)


def test_bad_inputs_name_the_file(tmp_path):
    cohesion.main(["fit", "--train", _write(tmp_path / "train", TRAIN),
                   "--dims", "2", "--out", str(tmp_path / "lsa.pkl")])
    docs = _write(tmp_path / "docs", ["d1", "d2", "d1"])
    hyp = _write(tmp_path / "hyp", ["a", "b", "c"])
    with pytest.raises(InputError, match=r"docs:3: document 'd1' reappears"):
        cohesion.main(["score", "--lsa", str(tmp_path / "lsa.pkl"), "--lang", "en",
                       "--docs", docs, "--system", f"m={hyp}",
                       "--out", str(tmp_path / "c.tsv")])
    short = _write(tmp_path / "short", ["a"])
    with pytest.raises(InputError, match="has 1 lines but .* has 3 document ids"):
        cohesion.main(["score", "--lsa", str(tmp_path / "lsa.pkl"), "--lang", "en",
                       "--docs", _write(tmp_path / "d", ["x", "x", "y"]),
                       "--system", f"m={short}", "--out", str(tmp_path / "c.tsv")])
    with pytest.raises(InputError) as err:
        cohesion.fit_lsa(TRAIN, dims=50, seed=1)
    vocabulary = len({w.lower() for line in TRAIN for w in line.split()})
    assert str(err.value) == (
        "--dims 50: must be between 1 and the vocabulary size of the training text "
        f"- 1 ({vocabulary - 1}) (config discourse.lsa_dims; lower it or give more text)")
    assert not (tmp_path / "c.tsv").exists()
