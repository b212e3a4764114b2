"""BLEU by how far the reference reorders the source, from gold word alignments.

A sentence's reordering distance is the largest displacement of one source
word: the aligned source words are ranked once in source order and once in the
order in which the reference uses them (the target position of each word's
first link); a word's displacement is the difference of its two ranks.
Distance 0 means the reference keeps the source order; unaligned words and
one-to-many links are not reordering. Sentences are grouped by distance
(default groups 0, 1–3, 4–7 and >7: NPMT's reordering window of 2τ+1 = 7
positions reaches 3 either side) and every seed of every model gets tokenized
BLEU (sacreBLEU ``tokenize='none'``) per group.

The output is a tidy TSV: model, seed, testset, group, lower, upper,
sentences, bleu. An empty group keeps its rows with sentences 0 and bleu NaN;
the last group's upper is NaN.
"""

from __future__ import annotations

import argparse
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from itertools import pairwise
from pathlib import Path

import pandas as pd

from phrasenmt.align.pharaoh import Link, read_alignments, read_corpus
from phrasenmt.cli import ArgumentParser, named_path, output_file
from phrasenmt.evaluate.length import (
    grouped_bleu,
    read_hypotheses,
    tidy,
    write_tsv,
)
from phrasenmt.io import run_cli

DEFAULT_BOUNDS = (0, 3, 7)
COLUMNS = ["model", "seed", "testset", "group", "lower", "upper", "sentences", "bleu"]


def reordering_distance(links: Iterable[Link]) -> int:
    """Largest |rank in source order - rank in reference order| of a source word."""
    order: dict[int, int] = {}
    for i, _ in sorted(links, key=lambda link: (link[1], link[0])):
        order.setdefault(i, len(order))
    return max((abs(order[i] - rank) for rank, i in enumerate(sorted(order))),
               default=0)


def parse_bounds(text: str) -> list[int]:
    """Comma-separated, strictly increasing, non-negative group upper bounds."""
    try:
        bounds = [int(x) for x in text.split(",")]
    except ValueError:
        bounds = []
    if not bounds or any(b < 0 for b in bounds) or any(
            a >= b for a, b in pairwise(bounds)):
        raise argparse.ArgumentTypeError(
            f"expected non-negative, strictly increasing integers such as 0,3,7; "
            f"got {text!r}")
    return bounds


def distance_groups(bounds: Sequence[int]) -> list[tuple[str, int, int | None]]:
    """(label, lower, upper) of each group; upper None means unbounded."""
    groups: list[tuple[str, int, int | None]] = []
    lower = 0
    for upper in bounds:
        label = f"{lower}" if lower == upper else f"{lower}–{upper}"
        groups.append((label, lower, upper))
        lower = upper + 1
    groups.append((f">{bounds[-1]}", lower, None))
    return groups


def model_seed(name: str) -> tuple[str, int]:
    """MODEL:SEED of a --hyp name."""
    model, sep, seed = name.rpartition(":")
    if not sep or not model or not seed.isascii() or not seed.isdigit():
        raise argparse.ArgumentTypeError(f"expected MODEL:SEED=FILE, got name {name!r}")
    return model, int(seed)


def hyp_arg(text: str) -> tuple[str, int, Path]:
    """argparse type for MODEL:SEED=FILE."""
    name, path = named_path(text)
    return (*model_seed(name), path)


def bleu_by_reordering(distances: Sequence[int], ref: Sequence[str],
                       hyps: Sequence[tuple[str, int, Sequence[str]]], testset: str,
                       bounds: Sequence[int] = DEFAULT_BOUNDS) -> pd.DataFrame:
    """Tidy table of tokenized BLEU per (model, seed, reordering-distance group)."""
    index = [bisect_left(bounds, d) for d in distances]
    groups = distance_groups(bounds)
    return tidy([[model, seed, testset, *row] for model, seed, lines in hyps
                 for row in grouped_bleu(index, groups, lines, ref)], COLUMNS)


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface of the BLEU-by-reordering analysis."""
    p = ArgumentParser(prog="python -m phrasenmt.evaluate.reordering",
                       description=__doc__.splitlines()[0])
    p.add_argument("--src", type=Path, required=True,
                   help="tokenized source of the test set")
    p.add_argument("--ref", type=Path, required=True, help="tokenized reference")
    p.add_argument("--align", type=Path, required=True,
                   help="gold source-target alignments of the test set (Pharaoh i-j)")
    p.add_argument("--hyp", type=hyp_arg, nargs="+", required=True,
                   metavar="MODEL:SEED=FILE", help="tokenized hypotheses of each run")
    p.add_argument("--bins", type=parse_bounds, default=list(DEFAULT_BOUNDS),
                   help="upper bounds of the distance groups (default: 0,3,7)")
    p.add_argument("--testset", required=True, help="name of the test set")
    p.add_argument("--out", type=output_file, required=True, help="output TSV")
    return p


def main(argv: list[str] | None = None) -> int:
    """Compute BLEU by reordering distance for each run and write a TSV."""
    args = build_parser().parse_args(argv)
    src, ref = read_corpus(args.src, args.ref)
    links = read_alignments(args.align, src, ref)
    by_run = read_hypotheses([((model, seed), path) for model, seed, path in args.hyp],
                             len(ref), args.ref, label=lambda run: f"{run[0]}:{run[1]}")
    hyps = [(model, seed, lines) for (model, seed), lines in by_run.items()]
    distances = [reordering_distance(s) for s in links]
    refs = [" ".join(tokens) for tokens in ref]
    write_tsv(bleu_by_reordering(distances, refs, hyps, args.testset, args.bins),
              args.out)
    return 0


if __name__ == "__main__":
    run_cli(main)
