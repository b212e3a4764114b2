"""Pointwise CXMI (P-CXMI, Fernandes et al. 2021, Sec. 5): which words use context.

The P-CXMI of one target token is

    log p(y_t | y_<t, x, C) - log p(y_t | y_<t, x)

(and, against a random context, the same with C' for the second term). Summed
over a sentence's tokens (</s> included) it is that sentence's CXMI; averaged
over the occurrences of a word it says how much the model's context helps it
predict that word. A word here is a target word with its BPE pieces joined
("Fisch@@ er" -> "Fischer", the value the sum of its pieces'); </s> is a word of
its own, so a sentence's words still sum to its CXMI.
"""

from __future__ import annotations

from typing import Any

from phrasenmt.io import InputError
from phrasenmt.text.subwords import BPE_MARK

EOS_WORD = "</s>"  # the end-of-sentence token, a word of its own here


def word_spans(target: str) -> list[tuple[str, int, int]]:
    """(word, first token, end token) of a BPE'd line, </s> last."""
    spans, start, pieces = [], 0, []
    tokens = target.split()
    for k, token in enumerate(tokens):
        pieces.append(token.removesuffix(BPE_MARK))
        if not token.endswith(BPE_MARK) or k == len(tokens) - 1:
            spans.append(("".join(pieces), start, k + 1))
            start, pieces = k + 1, []
    return [*spans, (EOS_WORD, len(tokens), len(tokens) + 1)]


def token_pcxmi(own: list[float], other: list[float], target: str, line: int
                ) -> list[float]:
    """P-CXMI of every token of one line: own minus other context's log-prob."""
    n = len(target.split()) + 1
    if len(own) != n or len(other) != n:
        raise InputError(f"line {line}: {len(own)} and {len(other)} token scores "
                         f"for a target of {n} tokens (</s> included)", "scores")
    return [a - b for a, b in zip(own, other, strict=True)]


def word_pcxmi(targets: list[str], own: list[list[float]],
               other: list[list[float]]) -> list[list[tuple[str, float]]]:
    """Per line, (word, P-CXMI summed over its BPE pieces) in word order."""
    out = []
    for n, (target, a, b) in enumerate(zip(targets, own, other, strict=True), 1):
        diff = token_pcxmi(a, b, target, n)
        out.append([(word, sum(diff[i:j])) for word, i, j in word_spans(target)])
    return out


def top_words(targets: list[str], own: list[list[float]], none: list[list[float]],
              rand: list[list[float]], top: int, min_count: int
              ) -> list[dict[str, Any]]:
    """The `top` words seen at least `min_count` times, by mean P-CXMI against
    no context (highest first), with their mean P-CXMI against a random context."""
    sums: dict[str, list[float]] = {}
    for vs_none, vs_random in zip(word_pcxmi(targets, own, none),
                                  word_pcxmi(targets, own, rand), strict=True):
        for (word, a), (_, b) in zip(vs_none, vs_random, strict=True):
            acc = sums.setdefault(word, [0, 0.0, 0.0])
            acc[0] += 1
            acc[1] += a
            acc[2] += b
    rows = [{"word": w, "count": int(c), "pcxmi": s / c, "pcxmi_random": r / c}
            for w, (c, s, r) in sums.items() if c >= min_count]
    rows.sort(key=lambda r: (-r["pcxmi"], r["word"]))
    return rows[:top]
