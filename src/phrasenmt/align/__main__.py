"""Align a parallel corpus and symmetrize alignments (Pharaoh i-j, source-target).

    run        --backend eflomal|fast_align[|fast_align-bin] --src F --tgt F
               --fwd OUT --rev OUT [--seed N] [--threads N]
               [--heldout-src F --heldout-tgt F]
    symmetrize --fwd F --rev F --method grow-diag-final-and|... --out OUT
               [--src F --tgt F]   (lengths for range checks; else max index)

With --heldout-src/--heldout-tgt (a dev or test split) the aligner runs on the
training pairs followed by the held-out pairs, and --fwd/--rev get the links
of the held-out pairs only: word aligners (fast_align, eflomal) have no
separate decoding step, so a held-out set is aligned by learning from it
together with the training text, which is how Park & Tsvetkov (2019) obtain
the fertility labels of their test set "from the word alignment model".
"""

from __future__ import annotations

import argparse
import os
import shutil

from phrasenmt.align.backends import BACKENDS
from phrasenmt.align.pharaoh import (
    format_links,
    parse_line,
    read_alignments,
    read_corpus,
)
from phrasenmt.align.symmetrize import METHODS, symmetrize
from phrasenmt.cli import ArgumentParser, nonnegative_int, output_file, positive_int
from phrasenmt.io import InputError, read_lines, run_cli, write_lines


def build_parser() -> argparse.ArgumentParser:
    """Argument parser with the `run` and `symmetrize` subcommands."""
    parser = ArgumentParser(prog="python -m phrasenmt.align",
                            description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="align a tokenized parallel corpus")
    run.add_argument("--backend", choices=sorted(BACKENDS), default="eflomal")
    run.add_argument("--src", required=True, help="tokenized source text")
    run.add_argument("--tgt", required=True, help="tokenized target text")
    run.add_argument("--fwd", type=output_file, required=True,
                     help="output: source->target links")
    run.add_argument("--rev", type=output_file, required=True,
                     help="output: target->source links")
    run.add_argument("--seed", type=nonnegative_int, default=1,
                     help="random seed (eflomal cannot be seeded; ignored there)")
    run.add_argument("--threads", type=positive_int, default=1)
    run.add_argument("--heldout-src", help="held-out source text, aligned after "
                     "the training text; only its links are written")
    run.add_argument("--heldout-tgt", help="held-out target text (with --heldout-src)")
    sym = sub.add_parser("symmetrize", help="combine forward and reverse links")
    sym.add_argument("--fwd", required=True)
    sym.add_argument("--rev", required=True)
    sym.add_argument("--method", choices=METHODS, default="grow-diag-final-and")
    sym.add_argument("--out", type=output_file, required=True)
    sym.add_argument("--src", help="source text, to range-check links (optional)")
    sym.add_argument("--tgt", help="target text, to range-check links (optional)")
    return parser


def run_alignment(args: argparse.Namespace) -> None:
    """Align the corpus with the chosen backend and write both directions."""
    if args.backend == "fast_align-bin" and shutil.which("fast_align") is None:
        raise InputError("backend fast_align-bin needs a fast_align executable "
                         "on PATH; use --backend fast_align instead")
    if (args.heldout_src is None) != (args.heldout_tgt is None):
        raise InputError("give both --heldout-src and --heldout-tgt, or neither")
    src, tgt = read_corpus(args.src, args.tgt)
    held_src, held_tgt = (read_corpus(args.heldout_src, args.heldout_tgt)
                          if args.heldout_src else ([], []))
    fwd, rev = BACKENDS[args.backend](src + held_src, tgt + held_tgt,
                                      threads=args.threads, seed=args.seed)
    for name, links in (("forward", fwd), ("reverse", rev)):
        if len(links) != len(src) + len(held_src):
            raise RuntimeError(f"{args.backend} returned {len(links)} {name} "
                               f"lines for {len(src) + len(held_src)} sentence pairs")
    if args.heldout_src:  # keep the held-out pairs' links
        fwd, rev = fwd[len(src):], rev[len(src):]
    write_lines(args.fwd, [format_links(a) for a in fwd])
    write_lines(args.rev, [format_links(a) for a in rev])


def _read_unchecked(path: str | os.PathLike) -> list[set]:
    """Read a Pharaoh file checking syntax only (no sentence lengths given)."""
    big = 1 << 62
    return [parse_line(text, big, big, path, n)
            for n, text in enumerate(read_lines(path), start=1)]


def run_symmetrize(args: argparse.Namespace) -> None:
    """Symmetrize two directional alignment files."""
    if (args.src is None) != (args.tgt is None):
        raise InputError("give both --src and --tgt, or neither")
    if args.src is not None:
        src, tgt = read_corpus(args.src, args.tgt)
        fwd = read_alignments(args.fwd, src, tgt)
        rev = read_alignments(args.rev, src, tgt)
    else:
        fwd, rev = _read_unchecked(args.fwd), _read_unchecked(args.rev)
        if len(fwd) != len(rev):
            raise InputError(f"has {len(fwd)} lines but {args.rev} has {len(rev)}",
                             args.fwd)
    write_lines(args.out, [format_links(symmetrize(f, r, args.method))
                           for f, r in zip(fwd, rev)])


def main(argv: list[str] | None = None) -> int:
    """Entry point of `python -m phrasenmt.align`."""
    args = build_parser().parse_args(argv)
    if args.command == "run":
        run_alignment(args)
    else:
        run_symmetrize(args)
    return 0


if __name__ == "__main__":
    run_cli(main)
