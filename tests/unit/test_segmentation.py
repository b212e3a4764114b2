"""Phrase segmentation: the n-gram formula, Algorithm 1, BPE mapping, the CLI."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from phrasenmt import segment
from phrasenmt.io import InputError
from phrasenmt.text import segmentation as seg

TREE = ("(ROOT (S (NP (DT the) (JJ big) (NN dog)) (VP (VBD chased) (NP (DT a) "
        "(NN cat)) (PP (IN into) (NP (DT the) (NN garden)))) (. .)))")
WORDS = "the big dog chased a cat into the garden ."


@pytest.mark.parametrize("n, expected", [(1, 3), (17, 3), (23, 3), (24, 4),
                                         (30, 5), (47, 7), (48, 8), (200, 8)])
def test_ngram_length_follows_the_formula_with_floor(n, expected):
    assert seg.ngram_length(n) == expected


def test_ngram_phrases_last_phrase_shorter():
    assert seg.ngram_phrases(7) == [0, 0, 0, 1, 1, 1, 2]
    assert seg.ngram_phrases(5, length=2) == [0, 0, 1, 1, 2]


def test_bpe_pieces_stay_in_their_words_phrase():
    tokens = ["a", "b", "c@@", "d@@", "e", "f", "g"]  # words: a b cde f g
    assert seg.word_index(tokens) == [0, 1, 2, 2, 2, 3, 4]
    assert seg.to_bpe(seg.ngram_phrases(5), tokens) == [0, 0, 0, 0, 0, 1, 1]


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_ngram_segmentation_does_not_depend_on_other_lines(tmp_path):
    short = "one two thr@@ ee four five six"
    long = " ".join(f"w{i}" for i in range(60))
    alone = segment.segment(_write(tmp_path / "a", [short]), None, "ngram", None)
    mixed = segment.segment(_write(tmp_path / "b", [long, short]), None, "ngram", None)
    assert mixed[1] == alone[0] == "0 0 0 0 1 1 1"
    assert mixed[0].split()[-1] == str(59 // 8)  # the long line uses 8-grams


def _tree(text: str = TREE) -> seg.Node:
    return seg.from_stanza(seg.read_tree_text(text))


def test_algorithm1_worked_example():
    words = WORDS.split()
    phrases = seg.parse_phrases(_tree(), 3)
    assert [" ".join(words[i] for i in p) for p in phrases] == [
        "the big dog", "chased a cat", "into the garden", "."]
    assert seg.tree_phrase_ids(_tree(), 4) == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3]


def test_algorithm1_prepends_same_depth_subtrees_only_while_they_fit():
    # n=5: "." (depth 2) cannot take the 7-token VP; VP's PP (3) is taken whole
    # and its left neighbour NP "a cat" (2) fits the remaining budget of 2; the
    # 4 tokens left ("the big dog chased") are then a subtree under 5 tokens.
    phrases = seg.parse_phrases(_tree(), 5)
    assert phrases == [[0, 1, 2, 3], [4, 5, 6, 7, 8], [9]]


def _random_tree(rng: random.Random, counter: list[int], depth: int = 0) -> str:
    if depth > 3 or rng.random() < 0.3:
        counter[0] += 1
        return f"(NN w{counter[0]})"
    kids = " ".join(_random_tree(rng, counter, depth + 1)
                    for _ in range(rng.randint(1, 4)))
    return f"(X {kids})"


@pytest.mark.parametrize("seed", range(20))
def test_algorithm1_covers_every_token_once_in_order_within_n(seed):
    rng = random.Random(seed)
    text = f"(ROOT {_random_tree(rng, [0])})"
    for n in (2, 3, 5, 8):
        root = _tree(text)
        size = root.size()
        phrases = seg.parse_phrases(root, n)
        assert [t for p in phrases for t in p] == list(range(size))
        assert all(1 <= len(p) <= n for p in phrases)


def test_parse_cli_maps_tree_phrases_to_bpe(tmp_path):
    bpe = _write(tmp_path / "src.bpe", ["the big d@@ og chased a cat into the "
                                        + "gar@@ den ."])
    trees = _write(tmp_path / "src.trees", [TREE])
    out = tmp_path / "out"
    assert segment.main(["--method", "parse", "--bpe", str(bpe), "--trees", str(trees),
                         "--max-phrase", "3", "--out", str(out)]) == 0
    assert out.read_text() == "0 0 0 0 1 1 1 2 2 2 2 3\n"


def test_unbalanced_tree_names_file_and_line(tmp_path):
    bpe = _write(tmp_path / "src.bpe", [WORDS, WORDS])
    trees = _write(tmp_path / "bad.trees", [TREE, TREE[:-2]])
    with pytest.raises(InputError, match=r"bad\.trees:2: malformed tree"):
        segment.segment(bpe, trees, "parse", None)


def test_tree_with_wrong_leaf_count_is_rejected(tmp_path):
    bpe = _write(tmp_path / "src.bpe", ["the big dog"])
    trees = _write(tmp_path / "t.trees", [TREE])
    with pytest.raises(InputError, match=r"t\.trees:1: tree has 10 leaves"):
        segment.segment(bpe, trees, "parse", None)
