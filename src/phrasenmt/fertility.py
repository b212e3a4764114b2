"""Gold fertility labels of a split from its alignment and the phrase list.

    python -m phrasenmt.fertility --src F --tgt F --alignment F(Pharaoh i-j)
        --phrases phrases.tsv [--max-length 6] --out-fert4 F --out-fert2 F

The labels the phrase stage writes for the training data (phrasenmt.align.phrases:
a source word's label is the length of its one-to-many target phrase, capped
at 3, when the phrase is in the filtered list; else its number of aligned
target words, at most 1 for an unlisted phrase), computed here for any split
whose alignment is known, e.g. the synthetic corpus' gold test alignments, the
reference of the fertility evaluation (Park & Tsvetkov 2019, Tables 4-5).
Fertility 2 labels are 0 (word: 0 or 1 target words) and 1 (phrase: 2 or 3).
"""

from __future__ import annotations

import argparse

from phrasenmt.align.pharaoh import read_alignments, read_corpus
from phrasenmt.align.phrases import Phrase, extract, fertility, read_phrase_list
from phrasenmt.cli import ArgumentParser, output_file, positive_int
from phrasenmt.io import output_set, run_cli, write_lines


def gold_labels(src: list[list[str]], tgt: list[list[str]], alignments: list[set],
                kept: set[Phrase], max_length: int) -> list[list[int]]:
    """Four-class fertility label of every source token, per sentence."""
    spans = extract(tgt, alignments, max_length).spans
    return [fertility(len(s), t, links, sp, kept)
            for s, t, links, sp in zip(src, tgt, alignments, spans, strict=True)]


def binary(labels: list[int]) -> list[int]:
    """Fertility 4 -> Fertility 2: 0 = word (0 or 1), 1 = phrase (2 or 3)."""
    return [1 if x >= 2 else 0 for x in labels]


def build_parser() -> argparse.ArgumentParser:
    """Command-line options."""
    p = ArgumentParser(prog="python -m phrasenmt.fertility",
                       description=__doc__.splitlines()[0])
    p.add_argument("--src", required=True, help="tokenized source text")
    p.add_argument("--tgt", required=True, help="tokenized target text")
    p.add_argument("--alignment", required=True, help="Pharaoh source-target links")
    p.add_argument("--phrases", required=True, help="phrase list TSV")
    p.add_argument("--max-length", type=positive_int, default=6,
                   help="longest phrase (as in the phrase stage)")
    p.add_argument("--out-fert4", type=output_file, required=True,
                   help="labels 0..3 per source token")
    p.add_argument("--out-fert2", type=output_file, required=True,
                   help="labels 0/1 per source token")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    args = build_parser().parse_args(argv)
    src, tgt = read_corpus(args.src, args.tgt)
    alignments = read_alignments(args.alignment, src, tgt)
    kept = set(read_phrase_list(args.phrases))
    labels = gold_labels(src, tgt, alignments, kept, args.max_length)
    with output_set():  # all of its outputs, or none
        write_lines(args.out_fert4, [" ".join(map(str, f)) for f in labels])
        write_lines(args.out_fert2, [" ".join(map(str, binary(f))) for f in labels])
    phrases = sum(x >= 2 for f in labels for x in f)
    print(f"{sum(map(len, labels))} source tokens, {phrases} yield a phrase")
    return 0


if __name__ == "__main__":
    run_cli(main)
