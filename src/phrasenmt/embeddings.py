"""Phrase-concatenated target text and fastText word+phrase embedding tables.

    concat --text F [--extra-mono F] [--phrases F.tsv] --out F
        Rewrite target text so that, scanning left to right, the longest phrase
        of the list starting at each position becomes one token joined with `_`
        (`quality of life` -> `quality_of_life`); words after a match continue
        the scan (greedy longest match, as in Park & Tsvetkov 2019, 2.2). Lines
        of --extra-mono (more target-language monolingual text) are appended.
        Input words that already contain `_` are kept as they are. Without
        --phrases the text is copied unchanged (+ --extra-mono): the un-joined
        text of CoNMT's word table.
    train --text F [--phrases F.tsv] --dim 100 --epoch 5 --min-count 1 --minn 3
          --maxn 6 --threads N --seed N --out-dir DIR
        fastText skipgram with subword n-grams on the concatenated text; writes
        DIR/model.bin, DIR/words.vec (every vocabulary token that is not a
        phrase token, `</s>` included, in word2vec text format: a "count dim"
        header, then "token v1 ... vdim") and DIR/phrases.vec (every phrase of
        the list as its `_`-joined token, same format and dimension; fastText
        builds a vector from subword n-grams even for phrases it never saw).
        Without --phrases (un-joined text): model.bin and words.vec only.

CoNMT (Kumar & Tsvetkov 2019) reads the word table of a model trained on the
un-joined text: on the joined text a word seen only inside a listed phrase
(`brigade` of `fire_brigade`) has no vector of its own. PCoNMT reads both
tables of the model trained on the joined text, as Park & Tsvetkov (2019, 2.2)
do: "From this training, we obtain both the word- and phrase-tables".
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path
from typing import IO

from phrasenmt.align.phrases import Phrase, read_phrase_list
from phrasenmt.cli import (
    ArgumentParser,
    field_type,
    nonnegative_int,
    output_dir,
    output_file,
    positive_int,
)
from phrasenmt.config_model import Embeddings
from phrasenmt.io import (
    InputError,
    atomic_open,
    atomic_path,
    output_set,
    read_lines,
    read_nonempty_lines,
    run_cli,
)

JOINER = "_"


class PhraseIndex:
    """Phrases indexed by first word, for greedy longest-match rewriting."""

    def __init__(self, phrases: Iterable[Phrase]):
        self.by_first: dict[str, set[Phrase]] = {}
        self.lengths: dict[str, list[int]] = {}
        for p in phrases:
            self.by_first.setdefault(p[0], set()).add(tuple(p))
        for first, group in self.by_first.items():
            self.lengths[first] = sorted({len(p) for p in group}, reverse=True)

    def rewrite(self, words: list[str]) -> list[str]:
        """Join the longest listed phrase at each position, left to right."""
        out, k = [], 0
        while k < len(words):
            n = self._match(words, k)
            out.append(JOINER.join(words[k:k + n]) if n > 1 else words[k])
            k += n
        return out

    def _match(self, words: list[str], k: int) -> int:
        """Length of the longest phrase starting at position k (1 if none)."""
        group = self.by_first.get(words[k])
        if group is not None:
            for n in self.lengths[words[k]]:
                if tuple(words[k:k + n]) in group:
                    return n
        return 1


def concat_lines(texts: list[list[str]], index: PhraseIndex) -> Iterable[str]:
    """Rewritten lines of every input text, in order."""
    for lines in texts:
        for line in lines:
            yield " ".join(index.rewrite(line.split()))


def run_concat(args: argparse.Namespace) -> None:
    """The `concat` subcommand."""
    index = PhraseIndex(read_phrase_list(args.phrases) if args.phrases else [])
    # every input is read (and checked) before the output's folder is made
    texts = [read_nonempty_lines(args.text, "training text for fastText")]
    if args.extra_mono:
        texts.append(read_lines(args.extra_mono))
    with atomic_open(args.out) as fh:
        for line in concat_lines(texts, index):
            fh.write(line + "\n")


def train_fasttext(text: str, args: argparse.Namespace):
    """Train a fastText skipgram model with an explicit seed."""
    from fasttext import FastText as ft

    # train_unsupervised() does not accept `seed`, so build its args ourselves
    params = dict(ft.unsupervised_default, input=str(text), model="skipgram",
                  dim=args.dim, epoch=args.epoch, minCount=args.min_count,
                  minn=args.minn, maxn=args.maxn, thread=args.threads,
                  seed=args.seed, bucket=args.bucket, verbose=0)
    fargs = ft._build_args(params, set(params))
    model = ft._FastText(args=fargs)
    ft.fasttext.train(model.f, fargs)
    model.set_args(model.f.getArgs())
    return model


def write_vec(fh: IO, tokens: list[str], vector_of) -> None:
    """Write vectors in word2vec text format with a "count dim" header."""
    rows = [(t, vector_of(t)) for t in tokens]
    dim = len(rows[0][1]) if rows else 0
    fh.write(f"{len(rows)} {dim}\n")
    fh.writelines(f"{token} {' '.join(f'{x:.6g}' for x in vec)}\n"
                  for token, vec in rows)


def run_train(args: argparse.Namespace) -> None:
    """The `train` subcommand: model.bin, words.vec (and phrases.vec), all or none."""
    listed = read_phrase_list(args.phrases) if args.phrases else []
    phrases = [JOINER.join(p) for p in listed]
    if not any(line.strip() for line in read_lines(args.text)):
        raise InputError("no text to train on", args.text)
    if args.maxn and args.minn > args.maxn:
        raise InputError(f"is {args.minn}, more than --maxn {args.maxn} (0 turns "
                         "subwords off)", "--minn")
    try:
        model = train_fasttext(args.text, args)
    except RuntimeError as err:  # fastText's C++ errors, e.g. "Empty vocabulary"
        raise InputError(f"fastText cannot train on it: {err}", args.text) from None
    phrase_set = set(phrases)
    words = [w for w in model.get_words() if w not in phrase_set]
    out = Path(args.out_dir)
    tables = [("words.vec", words)] + ([("phrases.vec", phrases)] if args.phrases
                                       else [])
    with output_set():  # the files appear together, or none of them
        with atomic_path(out / "model.bin") as tmp:
            model.save_model(str(tmp))
        for name, tokens in tables:
            with atomic_open(out / name) as fh:
                write_vec(fh, tokens, model.get_word_vector)
    print(f"{len(words)} words, {len(phrases)} phrases, dim {args.dim}")


def build_parser() -> argparse.ArgumentParser:
    """Argument parser with the `concat` and `train` subcommands."""
    parser = ArgumentParser(prog="python -m phrasenmt.embeddings",
                            description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    con = sub.add_parser("concat", help="join listed phrases into single tokens")
    con.add_argument("--text", required=True, help="tokenized target text")
    con.add_argument("--extra-mono", help="more target-language text to append")
    con.add_argument("--phrases", help="phrase list TSV (none: copy the text)")
    con.add_argument("--out", type=output_file, required=True,
                     help="output: the text with each listed phrase joined by _, "
                     "--extra-mono appended")
    tr = sub.add_parser("train", help="fastText word and phrase tables")
    tr.add_argument("--text", required=True, help="(phrase-concatenated) text")
    tr.add_argument("--phrases", help="phrase list TSV (none: no phrases.vec)")
    tr.add_argument("--out-dir", type=output_dir, required=True,
                    help="output folder: model.bin, words.vec (and phrases.vec)")
    options = [  # the config's embeddings keys: their fields' bounds
        ("dim", field_type(Embeddings, "dim"), 100,
         "vector dimension (config embeddings.dim)"),
        ("epoch", field_type(Embeddings, "epoch"), 5,
         "training epochs (config embeddings.epoch)"),
        ("min-count", field_type(Embeddings, "min_count"), 1,
         ("a word seen fewer times is left out of the vocabulary and of "
          "words.vec (config embeddings.min_count)")),
        ("minn", field_type(Embeddings, "minn"), 3,
         "shortest character n-gram (config embeddings.minn)"),
        ("maxn", field_type(Embeddings, "maxn"), 6,
         "longest character n-gram, 0: none (config embeddings.maxn)"),
        ("threads", positive_int, 1,
         ("fastText's threads; with more than one its lock-free updates race "
          "and the tables change from run to run")),
        ("seed", nonnegative_int, 1, "fastText's seed (the run's seed)"),
        ("bucket", positive_int, 200_000,
         "hash buckets of the character n-grams (fastText's own default: 2M)")]
    for name, kind, default, what in options:
        tr.add_argument(f"--{name}", type=kind, default=default,
                        help=f"{what} (default: %(default)s)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of `python -m phrasenmt.embeddings`."""
    args = build_parser().parse_args(argv)
    if args.command == "concat":
        run_concat(args)
    else:
        run_train(args)
    return 0


if __name__ == "__main__":
    run_cli(main)
