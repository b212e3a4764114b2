"""BLEU on the whole test set and on its multi-word subset (Park & Tsvetkov 2019).

    python -m phrasenmt.evaluate.multiword --phrases phrases.tsv --ref test.en
        --hyp NAME=FILE [NAME=FILE ...] --testset test --out F.tsv

The multi-word subset holds the test sentences whose (tokenized) reference
contains a phrase of the phrase list as a contiguous token sequence. BLEU is
the tokenized, case-sensitive corpus BLEU (the papers' multi-bleu number) of
the tokenized hypotheses. Writes a tidy TSV: model, testset, subset
(all | multiword), sentences, bleu. An empty subset (no reference contains a
listed phrase) has no BLEU: its row keeps sentences 0 and bleu NaN, as an empty
group of BLEU by length, never a 0.00 that would read as a failed model.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from phrasenmt.align.phrases import Phrase, read_phrase_list
from phrasenmt.cli import ArgumentParser, named_path, output_file
from phrasenmt.evaluate.bleu import tok_bleu
from phrasenmt.io import InputError, atomic_open, read_lines, run_cli

COLUMNS = ["model", "testset", "subset", "sentences", "bleu"]


def contains_phrase(words: list[str], by_first: dict[str, list[Phrase]]) -> bool:
    """Whether any listed phrase occurs in `words` as a contiguous n-gram."""
    for k, word in enumerate(words):
        for phrase in by_first.get(word, ()):
            if tuple(words[k:k + len(phrase)]) == phrase:
                return True
    return False


def multiword_subset(refs: Sequence[str], phrases: Sequence[Phrase]) -> list[int]:
    """Indices of the references that contain a listed phrase."""
    by_first: dict[str, list[Phrase]] = {}
    for p in phrases:
        by_first.setdefault(p[0], []).append(p)
    return [i for i, ref in enumerate(refs) if contains_phrase(ref.split(), by_first)]


def corpus_bleu(hyps: Sequence[str], refs: Sequence[str]) -> float:
    """Tokenized case-sensitive corpus BLEU (NaN, undefined, for an empty subset)."""
    if not refs:
        return math.nan
    return tok_bleu().corpus_score(list(hyps), [list(refs)]).score


def score_rows(name: str, hyps: list[str], refs: list[str], subset: list[int],
               testset: str) -> list[tuple]:
    """The two rows (all, multiword) of one model."""
    sub_h, sub_r = [hyps[i] for i in subset], [refs[i] for i in subset]
    return [(name, testset, "all", len(refs), corpus_bleu(hyps, refs)),
            (name, testset, "multiword", len(subset), corpus_bleu(sub_h, sub_r))]


def build_parser() -> argparse.ArgumentParser:
    """Command-line options."""
    p = ArgumentParser(prog="python -m phrasenmt.evaluate.multiword",
                       description=__doc__.splitlines()[0])
    p.add_argument("--phrases", required=True, type=Path, help="phrase list TSV")
    p.add_argument("--ref", required=True, type=Path, help="tokenized reference")
    p.add_argument("--hyp", required=True, nargs="+", type=named_path,
                   metavar="NAME=FILE",
                   help="tokenized hypotheses of each model, once per seed")
    p.add_argument("--testset", required=True, help="test set name for the table")
    p.add_argument("--out", required=True, type=output_file, help="TSV to write")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    args = build_parser().parse_args(argv)
    refs = read_lines(args.ref)
    subset = multiword_subset(refs, read_phrase_list(args.phrases))
    rows = []
    for name, path in args.hyp:
        hyps = read_lines(path)
        if len(hyps) != len(refs):
            raise InputError(f"has {len(hyps)} lines but the reference {args.ref} "
                             f"has {len(refs)}", path)
        rows += score_rows(name, hyps, refs, subset, args.testset)
    with atomic_open(args.out) as fh:
        pd.DataFrame(rows, columns=COLUMNS).to_csv(fh, sep="\t", index=False,
                                                   float_format="%.2f", na_rep="NaN")
    print(f"{len(subset)} of {len(refs)} references contain a listed phrase")
    return 0


if __name__ == "__main__":
    run_cli(main)
