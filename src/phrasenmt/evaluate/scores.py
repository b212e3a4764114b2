"""Score files of `python -m phrasenmt.translate score`: the one reader of them.

A score file holds one log-probability log P(target | source) per line. Every
command that reads such files (Lingeval97 and contrastive evaluation, CXMI,
the context-usage report, the claim checks) reads them here, whole, before any
use: each line a finite number (ASCII digits) <= 0, and as many lines as the
pairs scored. A positive number or NaN is no log-probability (a file of other
numbers, or one edited by hand) and would silently decide comparisons.
"""

from __future__ import annotations

import argparse
import os

from phrasenmt.cli import float_range
from phrasenmt.io import InputError, read_lines

LOG_PROBABILITY = float_range(high=0.0)


def read_log_probabilities(path: str | os.PathLike, expected: int,
                           scored: tuple[str, str] = ("items", "pairs")
                           ) -> list[float]:
    """One finite log-probability (<= 0, ASCII digits) per line, `expected`
    lines, the whole file checked first; `scored` names what the lines score
    (whose, what) for the message of a wrong count."""
    lines = read_lines(path, allow_empty=False)
    if len(lines) != expected:
        whose, what = scored
        raise InputError(f"has {len(lines)} scores but the {whose} have "
                         f"{expected} {what}", path)
    scores = []
    for n, line in enumerate(lines, start=1):
        try:
            scores.append(LOG_PROBABILITY(line))
        except argparse.ArgumentTypeError as err:
            raise InputError(f"a log-probability {err}", path, n) from None
    return scores
