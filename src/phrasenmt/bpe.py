"""Subwords: joint BPE with subword-nmt, or SentencePiece BPE/unigram models.

subword-nmt learns codes and vocabularies and applies them (the library also
removes them: `remove_bpe`); SentencePiece models (`spm-learn`, or a model of
the user's checked by `spm-copy`; `apply --sentencepiece`) write the same `@@ `
form (phrasenmt.text.spm)."""

from __future__ import annotations

import argparse
import functools
from pathlib import Path

from phrasenmt.cli import (
    ArgumentParser,
    field_type,
    float_range,
    output_file,
    positive_int,
)
from phrasenmt.config_entries import Bpe
from phrasenmt.io import (
    InputError,
    atomic_open,
    read_nonempty_lines,
    run_cli,
    write_all,
    write_lines,
)
from phrasenmt.log import get_logger
from phrasenmt.text import spm
from phrasenmt.text.scripts import warn_if_unsegmented
from phrasenmt.text.subwords import (
    SEPARATOR,
    Segmenter,
    learn_codes,
    read_codes,
    read_vocabulary,
    remove_bpe,
    vocabulary_lines,
    word_counts,
)

_log = get_logger(__name__)

__all__ = ["SEPARATOR", "Segmenter", "learn_codes", "read_codes", "read_vocabulary",
           "remove_bpe", "vocabulary_lines", "word_counts"]  # the library: text.subwords


def learning_text(path: Path) -> list[str]:
    """Lines of one side's training text; a side without a word raises."""
    lines = read_nonempty_lines(path, "words to learn BPE from")
    if not any(line.split() for line in lines):
        raise InputError("no words to learn BPE from (only blank lines)", path)
    return lines


def learn(args: argparse.Namespace) -> None:
    """Learn joint codes on src+tgt and write per-side BPE vocabularies."""
    src, tgt = learning_text(args.src), learning_text(args.tgt)
    for path, lines in ((args.src, src), (args.tgt, tgt)):
        warn_if_unsegmented(path, lines, "BPE (learned on whitespace-separated words)")
    counts = word_counts(src) + word_counts(tgt)
    codes = learn_codes(counts, args.merges, args.min_frequency)
    merges = codes.count("\n") - 1  # the first line is '#version: 0.2'
    if merges == 0:
        raise InputError(f"nothing to merge: no pair of symbols occurs "
                         f"--min-frequency {args.min_frequency} times (in it and "
                         f"{args.tgt})", args.src)
    if merges < args.merges:
        _log.info(f"note: learned {merges} merges, fewer than --merges {args.merges}: "
                  "no pair left occurs often enough")
    seg = Segmenter(codes)
    outputs = [(args.codes, codes.splitlines())]  # written together: all or none
    outputs += [(out, subword_vocabulary(seg, lines))
                for lines, out in ((src, args.vocab_src), (tgt, args.vocab_tgt))
                if out is not None]
    write_all(outputs)


def subword_vocabulary(seg: Segmenter, lines: list[str]) -> list[str]:
    """Vocabulary file lines of the segmented text (as learn-joint-bpe writes)."""
    return vocabulary_lines(word_counts(seg.line(line) for line in lines))


def vocab(args: argparse.Namespace) -> None:
    """Write the BPE vocabulary of one tokenized file under given codes."""
    seg = Segmenter(read_codes(args.codes), where=args.codes)
    text = read_nonempty_lines(getattr(args, "in"), "text to count subwords in")
    write_lines(args.out, subword_vocabulary(seg, text))


def apply(args: argparse.Namespace) -> None:
    """Segment a tokenized file with codes (+ vocabulary filter) or with a
    SentencePiece model."""
    if args.sentencepiece is not None:
        model = spm.load(args.sentencepiece)
        segment = functools.partial(spm.encode, model)
    else:
        codes = read_codes(args.codes)
        vocab = read_vocabulary(args.vocab, args.threshold) if args.vocab else None
        segment = Segmenter(codes, vocab, args.codes).line
    # every file BPE is applied to is a real split or item set; an empty one
    # means an earlier step lost the data, so it stops here, not in training
    text = read_nonempty_lines(getattr(args, "in"), "text to segment")
    if args.sentencepiece is not None:
        warn_unknown_pieces(model, text, getattr(args, "in"), args.sentencepiece)
    write_lines(args.out, [segment(line) for line in text])


UNKNOWN_SAMPLE_LINES = 10_000  # the lines counted: encoding a WMT-size file twice
# more to count them would cost minutes, and a foreign model shows at once


def warn_unknown_pieces(model, text: list[str], path: Path, model_path: Path) -> None:
    """Warn when more than spm.MAX_UNKNOWN_CHARACTERS of the characters of the
    text's first UNKNOWN_SAMPLE_LINES lines are ones the SentencePiece model
    never saw: a model of another language, script or corpus, which leaves
    words of them whole as its unknown piece."""
    sample = text[:UNKNOWN_SAMPLE_LINES]
    found = spm.unknown_characters(model, sample)
    if found.too_many():
        lines = f" in its first {len(sample)} lines" if len(sample) < len(text) else ""
        _log.warning(f"{path}: {found.percent()} of its characters{lines} "
                     f"({found.unknown} of {found.total}; more than "
                     f"{100 * spm.MAX_UNKNOWN_CHARACTERS:g}%) are ones {model_path} "
                     "never saw: the model was learned on another language, script "
                     "or corpus, and it leaves them whole as its unknown piece")


def spm_learn(args: argparse.Namespace) -> None:
    """Train one SentencePiece model on one or more files (joint: both sides)."""
    lines = []
    for path in args.inputs:
        text = learning_text(path)
        warn_if_unsegmented(path, text, "word alignment and phrase extraction")
        lines += text
    model = spm.train(lines, args.model_type, args.vocab_size, args.seed,
                      args.character_coverage, args.config_key)
    with atomic_open(args.model, "wb") as fh:
        fh.write(model)


def spm_copy(args: argparse.Namespace) -> None:
    """Check a SentencePiece model of the user's (it loads, whole) and copy it:
    the bytes written are the bytes checked, read once."""
    data = spm.read_bytes(args.input)
    spm.from_bytes(data, args.input)
    with atomic_open(args.model, "wb") as fh:
        fh.write(data)


def build_parser() -> argparse.ArgumentParser:
    """Command-line interface: `learn`, `vocab` and `apply` subcommands."""
    p = ArgumentParser(prog="python -m phrasenmt.bpe", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    lp = sub.add_parser("learn", help="learn joint BPE codes and vocabularies")
    lp.add_argument("--src", required=True, type=Path, help="tokenized source")
    lp.add_argument("--tgt", required=True, type=Path, help="tokenized target")
    lp.add_argument("--merges", required=True, type=field_type(Bpe, "merges"),
                    help="merge operations")
    lp.add_argument("--min-frequency", type=positive_int, default=2,
                    help="stop when the best pair is rarer than this")
    lp.add_argument("--codes", required=True, type=output_file,
                    help="output: the joint BPE codes (subword-nmt's format)")
    lp.add_argument("--vocab-src", type=output_file,
                    help="BPE vocabulary of the source")
    lp.add_argument("--vocab-tgt", type=output_file,
                    help="BPE vocabulary of the target")
    vp = sub.add_parser("vocab", help="BPE vocabulary of one file under codes")
    vp.add_argument("--codes", required=True, type=Path,
                    help="subword-nmt codes (learn's --codes)")
    vp.add_argument("--in", required=True, type=Path, metavar="IN",
                    help="tokenized text to count subwords in")
    vp.add_argument("--out", required=True, type=output_file,
                    help="output: the vocabulary, 'subword count' per line, most "
                    "frequent first")
    ap = sub.add_parser("apply", help="segment a tokenized file")
    how = ap.add_mutually_exclusive_group(required=True)
    how.add_argument("--codes", type=Path, help="subword-nmt codes")
    how.add_argument("--sentencepiece", type=Path, metavar="MODEL",
                     help="a SentencePiece model (from spm-learn)")
    ap.add_argument("--vocab", type=Path, help="vocabulary of this side (optional)")
    ap.add_argument("--threshold", type=field_type(Bpe, "vocab_threshold"), default=None,
                    help="subwords rarer than this in --vocab are split further")
    ap.add_argument("--in", required=True, type=Path, metavar="IN",
                    help="tokenized text to segment")
    ap.add_argument("--out", required=True, type=output_file,
                    help="output: the segmented text ('@@ ' between the subwords "
                    "of a word), line for line")
    ap.needs("--threshold", "--vocab")
    ap.needs("--vocab", "--codes")
    _spm_parser(sub)
    cp = sub.add_parser("spm-copy", help="check a SentencePiece model and copy it")
    cp.add_argument("--in", dest="input", required=True, type=Path, metavar="IN",
                    help="a trained SentencePiece model (config bpe.model)")
    cp.add_argument("--model", required=True, type=output_file,
                    help="output: the same model, once it loads whole (apply's "
                    "--sentencepiece)")
    return p


def _spm_parser(sub) -> None:
    """The `spm-learn` subcommand's options."""
    sp = sub.add_parser("spm-learn", help="train a SentencePiece model")
    sp.add_argument("--in", dest="inputs", required=True, type=Path, nargs="+",
                    metavar="IN", help="training text: one side, or both (joint)")
    sp.add_argument("--model", required=True, type=output_file,
                    help="output: the SentencePiece model (apply's --sentencepiece)")
    sp.add_argument("--model-type", choices=spm.MODEL_TYPES, default="bpe",
                    help="the model type (config bpe.model_type; default: "
                    "%(default)s)")
    sp.add_argument("--vocab-size", required=True, type=positive_int,
                    help="pieces in the model, at most what the text can give "
                    "(config bpe.vocab_size)")
    sp.add_argument("--seed", type=positive_int, default=1,
                    help="SentencePiece's random generator seed")
    sp.add_argument("--config-key", default="bpe.vocab_size",
                    help="the config key a vocabulary size the text cannot fit "
                    "names (the workflow: datasets.NAME.bpe.vocab_size; default: "
                    "%(default)s)")
    sp.add_argument("--character-coverage", type=float_range(0.9, 1.0),
                    default=spm.FULL_COVERAGE,
                    help="share of characters the model covers (1.0; 0.9995 for "
                    "Chinese or Japanese)")


def main(argv: list[str] | None = None) -> int:
    """Learn or apply BPE."""
    args = build_parser().parse_args(argv)
    {"learn": learn, "vocab": vocab, "apply": apply, "spm-learn": spm_learn,
     "spm-copy": spm_copy}[args.command](args)
    _log.info(f"bpe {args.command}: done")
    return 0


if __name__ == "__main__":
    run_cli(main)
