"""Joint BPE with subword-nmt: learn codes + vocabularies, apply, remove."""

from __future__ import annotations

import argparse
import io
import re
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from unittest import mock

from subword_nmt import apply_bpe, learn_bpe

from phrasenmt.io import InputError, atomic_open, read_lines, run_cli, write_lines

SEPARATOR = "@@"
_BPE_MARK = re.compile(r"@@( |$)")


def remove_bpe(line: str) -> str:
    """Undo BPE segmentation: join subwords ending in '@@'."""
    return _BPE_MARK.sub("", line.rstrip())


def word_counts(lines: Iterable[str]) -> Counter:
    """Whitespace-token frequencies of some lines."""
    counts: Counter = Counter()
    for line in lines:
        counts.update(line.split())
    return counts


def learn_codes(counts: Counter, merges: int, min_frequency: int = 2) -> str:
    """Learn BPE merge operations from joint word counts; returns the codes text."""
    out = io.StringIO()
    vocab = [f"{word} {freq}" for word, freq in counts.items()]
    # learn_bpe draws a tqdm bar per merge on stderr, which floods rule logs
    with mock.patch.object(learn_bpe, "tqdm", lambda it, *a, **k: it):
        learn_bpe.learn_bpe(vocab, out, merges, min_frequency=min_frequency,
                            is_dict=True)
    return out.getvalue()


class Segmenter:
    """Apply BPE codes to tokenized lines, caching each word's segmentation."""

    def __init__(self, codes: str, vocab: set[str] | None = None):
        self.bpe = apply_bpe.BPE(io.StringIO(codes), separator=SEPARATOR, vocab=vocab)
        self.cache: dict[str, list[str]] = {}

    def word(self, word: str) -> list[str]:
        """Subwords of one word (all but the last end with '@@')."""
        pieces = self.cache.get(word)
        if pieces is None:
            pieces = self.bpe.segment_tokens([word])
            self.cache[word] = pieces
        return pieces

    def line(self, line: str) -> str:
        """Segment one whitespace-tokenized line."""
        return " ".join(p for w in line.split() for p in self.word(w))


def vocabulary_lines(counts: Counter) -> list[str]:
    """subword-nmt vocabulary file lines, most frequent first (ties by string)."""
    return [f"{w} {c}" for w, c in sorted(counts.items(), key=lambda x: (-x[1], x[0]))]


def read_vocabulary(path: Path, threshold: int | None) -> set[str]:
    """Subwords whose count in a vocabulary file is at least threshold."""
    vocab = set()
    for n, line in enumerate(read_lines(path), start=1):
        parts = line.split(" ")
        if len(parts) != 2 or not parts[1].isdigit():
            raise InputError("expected 'SUBWORD COUNT'", path, n)
        if threshold is None or int(parts[1]) >= threshold:
            vocab.add(parts[0])
    return vocab


def read_codes(path: Path) -> str:
    """Read and check a BPE codes file."""
    lines = read_lines(path)
    for n, line in enumerate(lines, start=1):
        if not (n == 1 and line.startswith("#version")) and len(line.split(" ")) != 2:
            raise InputError("expected two space-separated symbols", path, n)
    return "\n".join(lines) + "\n"


def learn(args: argparse.Namespace) -> None:
    """Learn joint codes on src+tgt and write per-side BPE vocabularies."""
    src, tgt = read_lines(args.src), read_lines(args.tgt)
    if args.merges < 1:
        raise InputError("--merges must be positive")
    codes = learn_codes(word_counts(src) + word_counts(tgt), args.merges,
                        args.min_frequency)
    seg = Segmenter(codes)
    with atomic_open(args.codes) as fh:
        fh.write(codes)
    for lines, out in ((src, args.vocab_src), (tgt, args.vocab_tgt)):
        if out is not None:
            write_lines(out, subword_vocabulary(seg, lines))


def subword_vocabulary(seg: Segmenter, lines: list[str]) -> list[str]:
    """Vocabulary file lines of the segmented text (as learn-joint-bpe writes)."""
    return vocabulary_lines(word_counts(seg.line(line) for line in lines))


def vocab(args: argparse.Namespace) -> None:
    """Write the BPE vocabulary of one tokenized file under given codes."""
    seg = Segmenter(read_codes(args.codes))
    write_lines(args.out, subword_vocabulary(seg, read_lines(getattr(args, "in"))))


def apply(args: argparse.Namespace) -> None:
    """Segment a tokenized file with codes (+ vocabulary filter)."""
    codes = read_codes(args.codes)
    vocab = read_vocabulary(args.vocab, args.threshold) if args.vocab else None
    seg = Segmenter(codes, vocab)
    write_lines(args.out, [seg.line(line) for line in read_lines(getattr(args, "in"))])


def build_parser() -> argparse.ArgumentParser:
    """Command-line interface: `learn`, `vocab` and `apply` subcommands."""
    p = argparse.ArgumentParser(prog="python -m phrasenmt.bpe", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    lp = sub.add_parser("learn", help="learn joint BPE codes and vocabularies")
    lp.add_argument("--src", required=True, type=Path, help="tokenized source")
    lp.add_argument("--tgt", required=True, type=Path, help="tokenized target")
    lp.add_argument("--merges", required=True, type=int, help="merge operations")
    lp.add_argument("--min-frequency", type=int, default=2,
                    help="stop when the best pair is rarer than this")
    lp.add_argument("--codes", required=True, type=Path)
    lp.add_argument("--vocab-src", type=Path, help="BPE vocabulary of the source")
    lp.add_argument("--vocab-tgt", type=Path, help="BPE vocabulary of the target")
    vp = sub.add_parser("vocab", help="BPE vocabulary of one file under codes")
    vp.add_argument("--codes", required=True, type=Path)
    vp.add_argument("--in", required=True, type=Path, metavar="IN")
    vp.add_argument("--out", required=True, type=Path)
    ap = sub.add_parser("apply", help="segment a tokenized file")
    ap.add_argument("--codes", required=True, type=Path)
    ap.add_argument("--vocab", type=Path, help="vocabulary of this side (optional)")
    ap.add_argument("--threshold", type=int, default=None,
                    help="subwords rarer than this in --vocab are split further")
    ap.add_argument("--in", required=True, type=Path, metavar="IN")
    ap.add_argument("--out", required=True, type=Path)
    return p


def main(argv: list[str] | None = None) -> int:
    """Learn or apply BPE."""
    args = build_parser().parse_args(argv)
    {"learn": learn, "vocab": vocab, "apply": apply}[args.command](args)
    print(f"bpe {args.command}: done", file=sys.stderr)
    return 0


if __name__ == "__main__":
    run_cli(main)
