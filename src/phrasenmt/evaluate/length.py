"""BLEU by source sentence length, as in the papers' length analyses.

Sentences are grouped by the number of whitespace-separated words in the
tokenized source (default groups: <=15, 16-25, 26-35, 36-45, >45) and each
group gets tokenized BLEU (sacreBLEU ``tokenize='none'``). The output is a
tidy TSV: model, testset, group, lower, upper, sentences, bleu. An empty group
keeps its row with sentences 0 and bleu NaN; the last group's upper is NaN.
"""

from __future__ import annotations

import argparse
import math
from bisect import bisect_left
from collections.abc import Callable, Hashable, Sequence
from itertools import pairwise
from pathlib import Path
from typing import TypeVar

import pandas as pd

from phrasenmt.cli import (
    ArgumentParser,
    named_file,
    output_file,
    positive_int,
)
from phrasenmt.evaluate.bleu import tok_bleu
from phrasenmt.io import InputError, atomic_open, read_lines, read_parallel, run_cli

K = TypeVar("K", bound=Hashable)

DEFAULT_BOUNDS = (15, 25, 35, 45)
COLUMNS = ["model", "testset", "group", "lower", "upper", "sentences", "bleu"]


def parse_bounds(text: str) -> list[int]:
    """Parse comma-separated, strictly increasing, positive group upper bounds."""
    bounds = [positive_int(x) for x in text.split(",")]  # ASCII digits, >= 1
    if any(a >= b for a, b in pairwise(bounds)):
        raise argparse.ArgumentTypeError(
            f"bounds must be positive and strictly increasing: {text!r}")
    return bounds


def length_groups(bounds: Sequence[int]) -> list[tuple[str, int, int | None]]:
    """(label, lower, upper) of each group; upper None means unbounded."""
    groups: list[tuple[str, int, int | None]] = [(f"≤{bounds[0]}", 0, bounds[0])]
    for lo, hi in pairwise(bounds):
        groups.append((f"{lo + 1}–{hi}", lo + 1, hi))
    groups.append((f">{bounds[-1]}", bounds[-1] + 1, None))
    return groups


def assign_group(length: int, bounds: Sequence[int]) -> int:
    """Index of the group a sentence of `length` words falls into."""
    return bisect_left(bounds, length)


def group_bleu(hyps: Sequence[str], refs: Sequence[str]) -> float:
    """Tokenized corpus BLEU of a group; NaN for an empty group."""
    if not hyps:
        return math.nan
    return tok_bleu().corpus_score(list(hyps), [list(refs)]).score


def grouped_bleu(index: Sequence[int], groups: Sequence[tuple[str, int | None, int | None]],
                 lines: Sequence[str], ref: Sequence[str]) -> list[list]:
    """[label, lower, upper, sentences, BLEU] of each group; index[i] is sentence
    i's group."""
    rows = []
    for g, (label, lower, upper) in enumerate(groups):
        members = [i for i, gi in enumerate(index) if gi == g]
        score = group_bleu([lines[i] for i in members], [ref[i] for i in members])
        rows.append([label, lower, upper, len(members), score])
    return rows


def tidy(rows: list[list], columns: list[str]) -> pd.DataFrame:
    """The rows as a table whose bounds and counts are nullable integers."""
    df = pd.DataFrame(rows, columns=columns)
    return df.astype({"lower": "Int64", "upper": "Int64", "sentences": "Int64"})


def bleu_by_length(src: Sequence[str], ref: Sequence[str],
                   hyps: dict[str, Sequence[str]], testset: str,
                   bounds: Sequence[int] = DEFAULT_BOUNDS) -> pd.DataFrame:
    """Tidy table of tokenized BLEU per (model, source length group)."""
    index = [assign_group(len(line.split()), bounds) for line in src]
    groups = length_groups(bounds)
    return tidy([[model, testset, *row] for model, lines in hyps.items()
                 for row in grouped_bleu(index, groups, lines, ref)], COLUMNS)


def read_hypotheses(named: Sequence[tuple[K, Path]], n_lines: int, ref: Path,
                    label: Callable[[K], str] = lambda name: f"model {name!r}"
                    ) -> dict[K, list[str]]:
    """Read each run's hypotheses, keyed by its name (a model, or a (model, seed)
    pair that `label` spells); keys must be unique, counts must match."""
    hyps: dict[K, list[str]] = {}
    for name, path in named:
        if name in hyps:
            raise InputError(f"{label(name)} given twice in --hyp", path)
        lines = read_lines(path)
        if len(lines) != n_lines:
            raise InputError(f"has {len(lines)} lines but the reference {ref} has "
                             f"{n_lines}; they must match", path)
        hyps[name] = lines
    return hyps


def write_tsv(df: pd.DataFrame, path: Path) -> None:
    """Write a tidy table as TSV atomically; missing values as NaN."""
    with atomic_open(path) as fh:
        df.to_csv(fh, sep="\t", index=False, na_rep="NaN", lineterminator="\n")


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface of the BLEU-by-length analysis."""
    p = ArgumentParser(prog="python -m phrasenmt.evaluate.length",
                       description=__doc__.splitlines()[0])
    p.add_argument("--src", type=Path, required=True,
                   help="tokenized source of the test set")
    p.add_argument("--ref", type=Path, required=True, help="tokenized reference")
    p.add_argument("--hyp", type=named_file, nargs="+", required=True,
                   metavar="NAME=FILE", help="tokenized hypotheses of each model")
    p.add_argument("--bins", type=parse_bounds, default=list(DEFAULT_BOUNDS),
                   help="upper bounds of the length groups in source words "
                        "(default: 15,25,35,45)")
    p.add_argument("--testset", required=True, help="name of the test set")
    p.add_argument("--out", type=output_file, required=True, help="output TSV")
    return p


def main(argv: list[str] | None = None) -> int:
    """Compute BLEU by source length group for each model and write a TSV."""
    args = build_parser().parse_args(argv)
    src, ref = read_parallel(args.src, args.ref)
    hyps = read_hypotheses(args.hyp, len(ref), args.ref)
    write_tsv(bleu_by_length(src, ref, hyps, args.testset, args.bins), args.out)
    return 0


if __name__ == "__main__":
    run_cli(main)
