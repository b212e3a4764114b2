"""The most pieces a SentencePiece model of a text can hold (`spm.piece_bound`),
held to SentencePiece itself: trained on the same text, it never holds more."""

from __future__ import annotations

import re

import pytest

from phrasenmt.io import InputError
from phrasenmt.text import spm

# small texts of several kinds: one-letter words, repeats, words longer than a
# piece can be, Chinese, accents, a ligature and full-width letters (which an
# NFKC fold would change: the model keeps them), digits and Cyrillic
TEXTS = {
    "letters": ["a b", "c d", "e f"],
    "repeats": ["a b c", "a b d"] * 20,
    "english": ["the cat sat on the mat", "a dog ran", "hello world"] * 5,
    "long words": ["abcdefghijklmnopqrstuvwxyz0123456789 ABCDEFGHIJ"] * 3,
    "chinese": ["我们 去 学校 。", "他们 在 家 。"] * 20,
    "mixed": ["Straße naïve ﬁle ＡＢＣ abc123def x-y", "1990–2000 km/h Москва"] * 4,
    "one line": ["supercalifragilistic expialidocious"],
}


def _largest(lines: list[str], model_type: str, size: int) -> int | None:
    """SentencePiece's own answer at `size`: None if it trains a model of that
    size, else the largest size it says the text can give."""
    try:
        spm.train(lines, model_type, size, 1)
    except InputError as err:
        found = re.search(r"SentencePiece finds at most (\d+)", str(err))
        assert found, str(err)
        return int(found.group(1))
    return None


def test_the_bound_counts_pieces_of_words_with_their_word_start():
    # ▁ab: ▁ ▁a ▁ab a ab b; ▁b adds ▁b; and <unk> <s> </s>
    assert spm.piece_bound(["ab ab", " b  "], 10**6) == 7 + 3
    word = "x" * 10 + "abcdefghij"  # 20 characters: no piece of 17 or more
    pieces = {("▁" + word)[i:j] for i in range(21) for j in range(i + 1, min(21, i + 16) + 1)}
    assert spm.piece_bound([word], 10**6) == len(pieces) + 3
    assert spm.MAX_PIECE_LENGTH == 16 and spm.META_PIECES == 3


def test_the_bound_stops_reading_once_it_reaches_the_size():
    read = []

    def lines():
        for n in range(100_000):
            read.append(n)
            yield f"w{n} v{n}"

    assert spm.piece_bound(lines(), 500) >= 500
    first = [f"w{n} v{n}" for n in read]  # it read the lines it needed, no more
    assert spm.piece_bound(first[:-1], 10**6) < 500 <= spm.piece_bound(first, 10**6)
    assert spm.piece_bound(iter(["a b"] * 100_000), 8000) == 8  # small: read whole


@pytest.mark.parametrize("model_type", spm.MODEL_TYPES)
@pytest.mark.parametrize("name", TEXTS)
def test_sentencepiece_never_holds_more_pieces_than_the_bound(name, model_type):
    """At the bound + 1 SentencePiece refuses, naming a largest size no
    greater than the bound; it trains at that size, which the start-up lets
    through. Between the two it refuses too, when the job runs."""
    lines = TEXTS[name]
    bound = spm.piece_bound(lines, 10**9)
    largest = _largest(lines, model_type, bound + 1)
    assert largest is not None and largest <= bound, (largest, bound)
    assert _largest(lines, model_type, largest) is None
    assert spm.piece_bound(lines, largest) >= largest  # the start-up's test passes
    if largest < bound:  # too large, but only training shows it
        assert _largest(lines, model_type, largest + 1) == largest
