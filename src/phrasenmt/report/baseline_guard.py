"""Did a model learn to translate? The check behind every verdict of the claims table.

A claim compares two models; the comparison means something only if both read
their sources. A model learned (on one seed's test translations) unless

* its corpus BLEU is less than ``min_bleu_gain`` points above a trivial
  system: its own outputs, each paired with the reference of a random other
  test sentence (the mean over ``PERMUTATIONS`` seeded pairings). That
  system keeps the model's lengths, vocabulary and fluency and drops only what
  the source decides, so any system that ignores its source (one constant
  sentence, or a different source-independent line per position) scores
  about the same with and without the shuffle; or
* the most frequent output line is the output for a share of the test set
  more than ``max_output_share`` above the share of the reference's own most
  frequent line.

The thresholds, measurements and reasons are in docs/baseline-guard.md.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from phrasenmt.evaluate.multiseed import bleu_from_stats, bleu_stats
from phrasenmt.io import InputError, read_lines

PERMUTATIONS = 10  # random pairings averaged for the trivial system's BLEU


@dataclass(frozen=True)
class Guard:
    """Thresholds of the check (config evaluate.baseline_guard)."""

    min_bleu_gain: float = 5.0  # BLEU points over the shuffled pairing
    max_output_share: float = 0.2  # share of one output line, above the reference's


@dataclass(frozen=True)
class Learning:
    """The measurements of one model's test translations."""

    bleu: float  # corpus BLEU of the outputs against their references
    shuffled_bleu: float  # the same outputs paired with random other references
    top_share: float  # share of the test set given the most frequent output line
    ref_top_share: float  # the same share in the reference

    def reasons(self, guard: Guard) -> list[str]:
        """Why the model did not learn; empty when it did."""
        out = []
        if self.bleu - self.shuffled_bleu < guard.min_bleu_gain:
            out.append(f"BLEU {self.bleu:.2f} against {self.shuffled_bleu:.2f} for "
                       "its outputs paired with random test sentences, a gain "
                       f"under {guard.min_bleu_gain:g}")
        if self.top_share - self.ref_top_share > guard.max_output_share:
            out.append(f"{100 * self.top_share:.0f}% of its outputs are one line")
        return out


def top_share(lines: list[str]) -> float:
    """Share of the lines that equal the most frequent one (0 for none)."""
    if not lines:
        return 0.0
    return Counter(lines).most_common(1)[0][1] / len(lines)


def shuffled_bleu(hyps: list[str], refs: list[str], seed: int,
                  permutations: int = PERMUTATIONS, tokenize: str = "13a") -> float:
    """Mean corpus BLEU of the outputs, each paired with another line's reference.

    Each pairing is a random cycle through all lines, so no output meets its
    own reference (a plain shuffle leaves about one line in place, and that
    one line's matching 4-grams lift a near-zero BLEU).
    """
    if len(refs) < 2:
        raise ValueError("a shuffled pairing needs at least two lines")
    rng = random.Random(seed)
    scores = []
    for _ in range(permutations):
        cycle = list(range(len(refs)))
        rng.shuffle(cycle)
        other = [0] * len(refs)  # other[i]: the line whose reference output i meets
        for k, i in enumerate(cycle):
            other[i] = cycle[(k + 1) % len(cycle)]
        stats = bleu_stats(hyps, [refs[j] for j in other], tokenize).sum(axis=0)
        scores.append(float(bleu_from_stats(stats)))
    return float(np.mean(scores))


def measure(hyps: list[str], refs: list[str], seed: int,
            tokenize: str = "13a") -> Learning:
    """BLEU, shuffled BLEU and output repetition of one run's test outputs, BLEU
    with the target language's sacreBLEU tokenizer (`tokenize`)."""
    if len(hyps) != len(refs):
        raise ValueError(f"{len(hyps)} outputs but {len(refs)} references")
    bleu = float(bleu_from_stats(bleu_stats(hyps, refs, tokenize).sum(axis=0)))
    return Learning(bleu, shuffled_bleu(hyps, refs, seed, tokenize=tokenize),
                    top_share(hyps), top_share(refs))


@lru_cache(maxsize=256)
def measure_files(hyp: Path, ref: Path, seed: int, tokenize: str = "13a") -> Learning:
    """`measure` of a translation file against the reference file (cached)."""
    refs, hyps = read_lines(ref), read_lines(hyp)
    if len(refs) < 2:
        raise InputError(f"has {len(refs)} line(s); checking that a model learned "
                         "pairs its outputs with other test sentences: it needs 2 "
                         "or more", ref)
    if len(hyps) != len(refs):
        raise InputError(f"has {len(hyps)} lines but the reference {ref} has "
                         f"{len(refs)}; they must match", hyp)
    return measure(hyps, refs, seed, tokenize)
