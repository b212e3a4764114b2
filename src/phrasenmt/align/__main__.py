"""Align a parallel corpus and symmetrize alignments (Pharaoh i-j, source-target).

    run        --backend eflomal|fast_align[|fast_align-bin] --src F --tgt F
               --fwd OUT --rev OUT [--seed N] [--threads N]
               [--samplers N] [--rel-iterations X]   (eflomal's)
               [--heldout NAME SRC TGT ... --heldout-dir DIR]
    symmetrize --fwd F --rev F --method grow-diag-final-and|... --out OUT
               [--src F --tgt F]   (lengths for range checks; else max index)

With --heldout (a dev or test split, repeatable) the aligner runs on the
training pairs followed by each held-out split's pairs, in one run; --fwd/--rev
get the training links and DIR/NAME.fwd, DIR/NAME.rev each split's. Word
aligners (fast_align, eflomal) have no separate decoding step, so held-out
text is aligned by learning from it together with the training text (one
model for all splits), which is how Park & Tsvetkov (2019) obtain the
fertility labels of their test set "from the word alignment model".
"""

from __future__ import annotations

import argparse
import os
import shutil

from phrasenmt.align.backends import THREADS_HELP, add_aligner_options, align
from phrasenmt.align.pharaoh import (
    format_links,
    parse_line,
    read_alignments,
    read_corpus,
)
from phrasenmt.align.symmetrize import METHODS, symmetrize
from phrasenmt.cli import (
    ArgumentParser,
    nonnegative_int,
    output_dir,
    output_file,
    thread_count,
)
from phrasenmt.io import InputError, read_lines, run_cli, write_all, write_lines
from phrasenmt.text.scripts import warn_if_unsegmented


def build_parser() -> argparse.ArgumentParser:
    """Argument parser with the `run` and `symmetrize` subcommands."""
    parser = ArgumentParser(prog="python -m phrasenmt.align",
                            description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="align a tokenized parallel corpus")
    add_aligner_options(run, "eflomal")
    run.add_argument("--src", required=True, help="tokenized source text")
    run.add_argument("--tgt", required=True, help="tokenized target text")
    run.add_argument("--fwd", type=output_file, required=True,
                     help="output: source->target links")
    run.add_argument("--rev", type=output_file, required=True,
                     help="output: target->source links")
    run.add_argument("--seed", type=nonnegative_int, default=1,
                     help="random seed (eflomal: seeds its sampler; fast_align: unused, it is deterministic)")
    run.add_argument("--threads", type=thread_count, default=1, help=THREADS_HELP)
    run.add_argument("--heldout", nargs=3, action="append", default=[],
                     metavar=("NAME", "SRC", "TGT"),
                     help="a held-out split aligned in the same run (repeatable)")
    run.add_argument("--heldout-dir", type=output_dir,
                     help="folder for NAME.fwd and NAME.rev of each --heldout")
    run.add_argument("--segmented", choices=("src", "tgt"), action="append",
                     default=[], help="a side whose words cleaning cut with its "
                     "language's word segmenter (clean --raw): no warning that "
                     "its text looks unsegmented (repeatable)")
    sym = sub.add_parser("symmetrize", help="combine forward and reverse links")
    sym.add_argument("--fwd", required=True,
                     help="source->target links (Pharaoh i-j; run's --fwd)")
    sym.add_argument("--rev", required=True,
                     help="target->source links, indexed source-target (run's --rev)")
    sym.add_argument("--method", choices=METHODS, default="grow-diag-final-and",
                     help="symmetrization heuristic (config align.symmetrize; "
                     "default: %(default)s)")
    sym.add_argument("--out", type=output_file, required=True,
                     help="output: the symmetrized links, Pharaoh i-j per line")
    sym.add_argument("--src", help="source text, to range-check links (optional)")
    sym.add_argument("--tgt", help="target text, to range-check links (optional)")
    return parser


def run_alignment(args: argparse.Namespace) -> None:
    """Align the corpus with the chosen backend and write both directions."""
    if args.backend == "fast_align-bin" and shutil.which("fast_align") is None:
        raise InputError("backend fast_align-bin needs a fast_align executable "
                         "on PATH; use --backend fast_align instead")
    if bool(args.heldout) != (args.heldout_dir is not None):
        raise InputError("give --heldout and --heldout-dir together, or neither")
    names = [name for name, _, _ in args.heldout]
    if len(set(names)) != len(names) or not all(n.isidentifier() for n in names):
        raise InputError(f"held-out names must be distinct words, got {names}",
                         "--heldout")
    parts = [("", *read_corpus(args.src, args.tgt))]
    parts += [(name, *read_corpus(s, t)) for name, s, t in args.heldout]
    files = [args.src, args.tgt, *(p for _, s, t in args.heldout for p in (s, t))]
    sides = [(name, side) for _, src, tgt in parts
             for name, side in (("src", src), ("tgt", tgt))]
    for path, (name, sentences) in zip(files, sides, strict=True):
        if name not in args.segmented:  # a segmenter's words may be long: names
            warn_if_unsegmented(path, (" ".join(s) for s in sentences),
                                "word alignment")
    src = [s for _, part, _ in parts for s in part]
    tgt = [t for _, _, part in parts for t in part]
    fwd, rev = align(args.backend, src, tgt, threads=args.threads,
                     seed=args.seed, samplers=args.samplers,
                     rel_iterations=args.rel_iterations)
    for name, links in (("forward", fwd), ("reverse", rev)):
        if len(links) != len(src):
            raise RuntimeError(f"{args.backend} returned {len(links)} {name} "
                               f"lines for {len(src)} sentence pairs")
    outputs, start = [], 0
    for name, part, _ in parts:  # training first, then each held-out split
        end = start + len(part)
        paths = ((args.fwd, args.rev) if not name else
                 (args.heldout_dir / f"{name}.fwd", args.heldout_dir / f"{name}.rev"))
        outputs += [(paths[0], [format_links(a) for a in fwd[start:end]]),
                    (paths[1], [format_links(a) for a in rev[start:end]])]
        start = end
    write_all(outputs)  # all files or none


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
