"""Phrase segmentation side input: `python -m phrasenmt.segment ...`.

  --method ngram: fixed n-gram phrases over words (Xu et al. 2020, footnote 2)
  --method parse: Algorithm 1 over one PTB tree per line (--trees)
Writes one line per BPE'd source line with the phrase id of every BPE token
("0 0 1 1 1 2"), the side input `phrases` of the phrase-representation models.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from phrasenmt.cli import ArgumentParser, output_file, positive_int
from phrasenmt.io import InputError, read_nonempty_lines, run_cli, write_lines
from phrasenmt.text import segmentation as seg
from phrasenmt.text.segmentation import ngram_line


def parse_line(line: str, tree, max_phrase: int | None, path: Path,
               n: int) -> list[int]:
    """Phrase ids per BPE token of one line, Algorithm 1 on its tree."""
    tokens = line.split()
    words = seg.n_words(tokens)
    root = seg.from_stanza(tree)
    if root.size() != words:
        raise InputError(f"tree has {root.size()} leaves but the source line has "
                         f"{words} words", path, n)
    limit = max_phrase or seg.ngram_length(words)
    return seg.to_bpe(seg.tree_phrase_ids(root, limit), tokens)


def segment(bpe: Path, trees: Path | None, method: str,
            max_phrase: int | None) -> list[str]:
    """Phrase-id lines for every line of the BPE'd file."""
    lines = read_nonempty_lines(bpe, "lines to segment", allow_empty=False)
    if method == "ngram":
        rows = [ngram_line(line, max_phrase) for line in lines]
    else:
        if trees is None:
            raise InputError("--method parse needs --trees", "--trees")
        parsed = seg.read_tree_lines(trees)
        if len(parsed) != len(lines):
            raise InputError(f"has {len(parsed)} trees but {bpe} has {len(lines)} "
                             "lines", trees)
        rows = [parse_line(line, tree, max_phrase, trees, n)
                for n, (line, tree) in enumerate(zip(lines, parsed, strict=True), 1)]
    return [" ".join(map(str, row)) for row in rows]


def build_parser() -> argparse.ArgumentParser:
    """Command-line options."""
    p = ArgumentParser(prog="python -m phrasenmt.segment",
                       description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--method", choices=("ngram", "parse"), required=True,
                   help="ngram: fixed n-gram phrases over words; parse: Algorithm "
                   "1 over --trees (a phrase model's model.segmentation says which "
                   "of the two it reads)")
    p.add_argument("--bpe", type=Path, required=True, help="BPE'd source text")
    p.add_argument("--trees", type=Path, help="one PTB tree per line (parse)")
    p.add_argument("--max-phrase", type=positive_int, default=None,
                   help="fixed maximum phrase length in words (default: "
                   "max(min(8, words // 6), 3) per sentence)")
    p.add_argument("--out", type=output_file, required=True, help="side-input file")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    args = build_parser().parse_args(argv)
    if args.max_phrase is not None and args.max_phrase < 2:
        raise InputError("must be at least 2", "--max-phrase")
    write_lines(args.out, segment(args.bpe, args.trees, args.method, args.max_phrase))
    return 0


if __name__ == "__main__":
    run_cli(main)
