"""Lingeval97 evaluation: pairs, accuracy by category and distance, bad JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from phrasenmt.evaluate import lingeval
from phrasenmt.io import InputError

ITEMS = [
    {"source": "the dog sleeps", "reference": "der Hund schläft",
     "errors": [{"type": "subj_verb_agreement", "contrastive": "der Hund schlafen",
                 "distance": 1},
                {"type": "pronoun_gender", "contrastive": "die Hund schläft",
                 "distance": 1}]},
    {"source": "the dogs in the big house sleep", "reference": "die Hunde schlafen",
     "errors": [{"type": "subj_verb_agreement", "contrastive": "die Hunde schläft",
                 "distance": 17}]},
    {"source": "a b", "reference": "x y",
     "errors": [{"type": "subj_verb_agreement", "contrastive": "x z", "distance": 1}]},
]
# per line: ref, c, c | ref, c | ref, c  (log-probabilities, higher = better)
SCORES = [-1.0, -2.0, -0.5, -3.0, -3.0, -1.0, -4.0]


def _write(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.write_text(text, encoding="utf-8")
    return path


def test_pairs_are_reference_then_contrastives():
    src = [s for s, _ in lingeval.pairs(ITEMS)]
    tgt = [t for _, t in lingeval.pairs(ITEMS)]
    assert len(tgt) == 7 and tgt[0] == "der Hund schläft" and tgt[3] == ITEMS[1][
        "reference"]
    assert src[:3] == ["the dog sleeps"] * 3


def test_accuracy_per_category_and_bin_with_stub_scores(tmp_path):
    items = _write(tmp_path, "items.json", json.dumps(ITEMS))
    scores = _write(tmp_path, "m.txt", "".join(f"{s}\n" for s in SCORES))
    out = tmp_path / "agreement.tsv"
    assert lingeval.main(["evaluate", "--json", str(items), "--scores",
                          f"m={scores}", "--out", str(out)]) == 0
    df = pd.read_csv(out, sep="\t", dtype={"bin": str}).set_index(["category", "bin"])
    # agreement: item 0 correct (-1 > -2), item 1 tie is NOT correct, item 2 correct
    assert df.loc[("subj_verb_agreement", "all"), "pairs"] == 3
    assert df.loc[("subj_verb_agreement", "all"), "correct"] == 2
    assert df.loc[("subj_verb_agreement", "1"), "accuracy"] == 1.0
    assert df.loc[("subj_verb_agreement", ">15"), "accuracy"] == 0.0
    assert df.loc[("pronoun_gender", "all"), "accuracy"] == 0.0  # -1 < -0.5


def test_score_count_must_match(tmp_path):
    items = _write(tmp_path, "items.json", json.dumps(ITEMS))
    scores = _write(tmp_path, "m.txt", "-1\n")
    with pytest.raises(InputError, match="has 1 scores but the items have 7"):
        lingeval.main(["evaluate", "--json", str(items), "--scores", f"m={scores}",
                       "--out", str(tmp_path / "o.tsv")])


def test_missing_key_names_file_item_and_key(tmp_path):
    bad = json.loads(json.dumps(ITEMS))
    del bad[1]["errors"][0]["contrastive"]
    items = _write(tmp_path, "bad.json", json.dumps(bad))
    with pytest.raises(InputError, match=r"bad\.json: item 1 error 0: missing key "
                       r"'contrastive'"):
        lingeval.load_items(items)


def test_prepare_writes_trees_per_pair(tmp_path):
    items = [dict(it, source_tree=f"(ROOT (X {it['source'].split()[0]}))")
             for it in ITEMS]
    path = _write(tmp_path, "items.json", json.dumps(items))
    lingeval.main(["prepare", "--json", str(path), "--out-src", str(tmp_path / "s"),
                   "--out-tgt", str(tmp_path / "t"), "--out-trees", str(tmp_path / "tr")])
    assert len((tmp_path / "tr").read_text().splitlines()) == 7
    assert (tmp_path / "s").read_text().splitlines()[3] == ITEMS[1]["source"]


@pytest.mark.parametrize("mode, source, reference", [
    ("--tokenize", "It 's the dog .", "Es ist der Hund ."),
    ("--raw", "It's the dog.", "Es ist der Hund."),  # SentencePiece's text
])
def test_prepare_cleans_the_items_as_the_dataset_s_text(tmp_path, mode, source, reference):
    """Moses tokens for a subword-nmt dataset, raw text for a SentencePiece one:
    the items reach the model as its training text did."""
    items = [{"source": "It's the dog.", "reference": "Es ist der Hund.",
              "errors": [{"type": "subj_verb_agreement", "distance": 1,
                          "contrastive": "Es sind der Hund."}]}]
    path = _write(tmp_path, "items.json", json.dumps(items))
    lingeval.main(["prepare", "--json", str(path), "--out-src", str(tmp_path / "s"),
                   "--out-tgt", str(tmp_path / "t"), mode])
    assert (tmp_path / "s").read_text().splitlines()[0] == source
    assert (tmp_path / "t").read_text().splitlines()[0] == reference


def test_the_workflow_prepares_items_in_its_dataset_s_mode():
    from phrasenmt.workflow.phrase_repr import lingeval_prepare_args

    def config(**ds):
        return {"datasets": {"d": {"source": "local", "src": "en", "tgt": "de",
                                   "tokenize": True, "lowercase": False,
                                   "bpe": {"backend": "subword-nmt"}, **ds}}}

    assert lingeval_prepare_args(config(), "d") == "--tokenize"
    assert lingeval_prepare_args(config(bpe={"backend": "sentencepiece"}), "d") == "--raw"
    assert lingeval_prepare_args(config(tokenize=False, lowercase=True), "d") == "--lowercase"


def test_distance_given_as_digits_is_read_as_a_number(tmp_path):
    items = json.loads(json.dumps(ITEMS))
    items[0]["errors"][0]["distance"] = "1"
    items[1]["errors"][0]["distance"] = "17"
    path = _write(tmp_path, "items.json", json.dumps(items))
    loaded = lingeval.load_items(path)
    assert loaded[1]["errors"][0]["distance"] == 17
    bins = [r["bin"] for r in lingeval.outcomes(loaded, SCORES)]
    assert bins == ["1", "1", ">15", "1"]


@pytest.mark.parametrize("value", ["12a", "", "-3", "1.5", True, 2.0, [1]])
def test_distance_that_is_not_digits_names_file_item_and_key(tmp_path, value):
    bad = json.loads(json.dumps(ITEMS))
    bad[2]["errors"][0]["distance"] = value
    path = _write(tmp_path, "bad.json", json.dumps(bad))
    with pytest.raises(InputError, match=r"bad\.json: item 2 error 0: key 'distance'"
                       r" must be int or a string of digits") as err:
        lingeval.load_items(path)
    assert "\n" not in str(err.value)
