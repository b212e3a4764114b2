"""Source phrase segmentation for phrase representations (Xu et al. 2020, §3).

Two ways to cut a sentence's WORDS into contiguous phrases, then map the word
phrases onto the BPE tokens (a word's pieces always share a phrase):

* n-gram: fixed phrases of `ntok = max(min(8, seql // 6), 3)` words (footnote 2),
  the last one shorter. `seql` is the sentence's own length in words, never the
  padded batch length (one published implementation uses the latter, which
  makes a sentence's phrases depend on its batch mates).
* parse: Algorithm 1 over a constituency tree, with the same maximum `n`.

Trees are read with stanza's own reader. The output is the side input
`phrases`: the phrase index of every BPE token, e.g. "0 0 1 1 1 2".
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from phrasenmt.io import InputError, read_lines

BPE_JOINER = "@@"
MAX_NGRAM, MIN_NGRAM, NGRAM_DIVISOR = 8, 3, 6


def ngram_length(n_words: int) -> int:
    """Phrase length for a sentence of `n_words` words: max(min(8, n // 6), 3).

    The paper writes seql/6; we round down (integer division), so a
    sentence needs 24 words for 4-word phrases and 48 for the cap of 8.
    """
    return max(min(MAX_NGRAM, n_words // NGRAM_DIVISOR), MIN_NGRAM)


def ngram_phrases(n_words: int, length: int | None = None) -> list[int]:
    """Phrase id per word: consecutive blocks of `length` (default ngram_length)."""
    size = length or ngram_length(n_words)
    return [i // size for i in range(n_words)]


# --- Algorithm 1 ---------------------------------------------------------------

@dataclass
class Node:
    """A tree node reduced to what Algorithm 1 needs: children or one token."""

    children: list[Node] = field(default_factory=list)
    token: int | None = None  # word index for a leaf (a preterminal and its word)

    def size(self) -> int:
        """Number of tokens under this node."""
        if self.token is not None:
            return 1
        return sum(child.size() for child in self.children)

    def tokens(self) -> list[int]:
        """Word indices under this node, left to right."""
        if self.token is not None:
            return [self.token]
        return [t for child in self.children for t in child.tokens()]


def from_stanza(tree) -> Node:
    """Convert a stanza Tree; a preterminal (POS + word) becomes one leaf."""
    counter = iter(range(1 << 30))

    def convert(t) -> Node:
        if t.is_preterminal() or t.is_leaf():
            return Node(token=next(counter))
        return Node(children=[convert(c) for c in t.children])

    return convert(tree)


def _right_spine(root: Node) -> list[tuple[Node | None, Node]]:
    """(parent, node) pairs from the root down the right-most children."""
    spine: list[tuple[Node | None, Node]] = [(None, root)]
    while spine[-1][1].token is None and spine[-1][1].children:
        node = spine[-1][1]
        spine.append((node, node.children[-1]))
    return spine


def _remove(spine: list[tuple[Node | None, Node]], depth: int) -> None:
    """Remove spine[depth] (a right-most node) and any ancestors it empties."""
    for d in range(depth, 0, -1):
        parent = spine[d][0]
        parent.children.pop()
        if parent.children:
            return
    spine[0][1].children = []  # the whole tree is consumed


def parse_phrases(root: Node, n: int) -> list[list[int]]:
    """Algorithm 1: phrases (lists of word indices), left to right.

    Repeat until the tree is empty: take the largest right-most subtree ST with
    fewer than n tokens (depth d), then prepend the right-most remaining subtree
    at depth d while it fits. The listing initialises the budget mt = n and
    never lowers it by |ST|, which would allow phrases of up to 2n-1 tokens;
    we start from mt = n - |ST| so that no phrase exceeds n ("the maximum
    number of tokens allowed is consistent with the simple segmentation").
    """
    if n < 2:
        raise ValueError("Algorithm 1 needs n >= 2 (subtrees have < n tokens)")
    phrases: list[list[int]] = []
    while root.token is not None or root.children:
        spine = _right_spine(root)
        depth = next(d for d, (_, node) in enumerate(spine) if node.size() < n)
        if depth == 0:  # the whole (remaining) tree fits
            phrases.append(root.tokens())
            break
        phrase = spine[depth][1].tokens()
        _remove(spine, depth)
        budget = n - len(phrase)
        while budget > 0:
            spine = _right_spine(root)
            if len(spine) <= depth:
                break
            adjacent = spine[depth][1]
            if adjacent.size() > budget:
                break
            phrase = adjacent.tokens() + phrase
            budget -= adjacent.size()
            _remove(spine, depth)
        phrases.append(phrase)
    phrases.reverse()
    return phrases


def tree_phrase_ids(root: Node, n: int) -> list[int]:
    """Phrase id per word from Algorithm 1."""
    ids = [-1] * root.size()
    for k, phrase in enumerate(parse_phrases(root, n)):
        for t in phrase:
            ids[t] = k
    return ids


# --- words <-> BPE tokens ----------------------------------------------------------

def word_index(bpe_tokens: Sequence[str]) -> list[int]:
    """The word each BPE token belongs to ("new@@ er" is one word)."""
    out, word = [], 0
    for tok in bpe_tokens:
        out.append(word)
        if not tok.endswith(BPE_JOINER):
            word += 1
    return out


def to_bpe(word_phrases: Sequence[int], bpe_tokens: Sequence[str]) -> list[int]:
    """Map phrase ids per word to phrase ids per BPE token."""
    return [word_phrases[w] for w in word_index(bpe_tokens)]


def n_words(bpe_tokens: Sequence[str]) -> int:
    """Words in a BPE'd sentence."""
    return sum(1 for tok in bpe_tokens if not tok.endswith(BPE_JOINER)) or 0


def ngram_line(line: str, max_phrase: int | None) -> list[int]:
    """Phrase ids per BPE token of one line, n-gram method."""
    tokens = line.split()
    return to_bpe(ngram_phrases(n_words(tokens), max_phrase), tokens)


def read_tree_lines(path: str | os.PathLike) -> list:
    """One stanza tree per line; a malformed line raises InputError at that line."""
    from stanza.models.constituency.tree_reader import read_trees

    # phrasenmt.io's reader first: stanza would take bad bytes, NUL and CR as text
    lines = read_lines(path)
    try:  # one call for the whole file is much faster than one per line
        trees = read_trees("\n".join(lines))
        if len(trees) == len(lines):
            return trees
    except ValueError:
        pass
    return _read_tree_lines_one_by_one(lines, path)


def _read_tree_lines_one_by_one(lines: list[str], path: str | os.PathLike) -> list:
    """Slow path that finds the first bad line."""
    from stanza.models.constituency.tree_reader import read_trees

    trees = []
    for n, line in enumerate(lines, start=1):
        try:
            found = read_trees(line)
        except ValueError as err:  # stanza's tree errors are ValueErrors
            msg = str(err).splitlines()[0] if str(err) else type(err).__name__
            raise InputError(f"malformed tree: {msg}", path, n) from None
        if len(found) != 1:
            raise InputError(f"expected one tree, found {len(found)}", path, n)
        trees.append(found[0])
    return trees


def read_tree_text(text: str):
    """Parse exactly one tree from a string with stanza's reader."""
    from stanza.models.constituency.tree_reader import read_trees

    found = read_trees(text)
    if len(found) != 1:
        raise ValueError(f"expected one tree, found {len(found)}")
    return found[0]
