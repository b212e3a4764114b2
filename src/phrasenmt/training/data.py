"""Training data: read parallel files, build vocabularies, encode to ids."""

from __future__ import annotations

import hashlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from phrasenmt.io import InputError, read_parallel
from phrasenmt.text.vocab import Vocabulary


@dataclass
class DataPaths:
    """The four files a training run reads."""

    train_src: Path  # BPE'd training source, one sentence per line
    train_tgt: Path  # BPE'd training target, line-aligned with train_src
    dev_src: Path  # BPE'd development source
    dev_tgt: Path  # BPE'd development target


@dataclass
class Corpus:
    """Parallel sentences as id lists (no <s>/</s>)."""

    src: list[list[int]]
    tgt: list[list[int]]

    def __len__(self) -> int:
        return len(self.src)


def fingerprint(paths: DataPaths) -> str:
    """sha256 over the four files' bytes: a run's identity includes its data."""
    digest = hashlib.sha256()
    for path in (paths.train_src, paths.train_tgt, paths.dev_src, paths.dev_tgt):
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
        digest.update(b"\0")
    return digest.hexdigest()


def encode_corpus(src: list[str], tgt: list[str], src_vocab: Vocabulary,
                  tgt_vocab: Vocabulary, max_len: int | None = None) -> Corpus:
    """Encode line pairs, dropping pairs with a side longer than `max_len`."""
    out = Corpus([], [])
    for s, t in zip(src, tgt, strict=True):
        s_ids, t_ids = src_vocab.encode(s), tgt_vocab.encode(t)
        if max_len is None or max(len(s_ids), len(t_ids)) <= max_len:
            out.src.append(s_ids)
            out.tgt.append(t_ids)
    return out


def load_data(paths: DataPaths, max_len: int, vocabs: tuple | None = None
              ) -> tuple[Vocabulary, Vocabulary, Corpus, Corpus]:
    """Read and validate all files; build vocabularies from train unless given."""
    train = read_parallel(paths.train_src, paths.train_tgt, allow_empty=False)
    dev = read_parallel(paths.dev_src, paths.dev_tgt, allow_empty=False)
    if vocabs is None:
        vocabs = (Vocabulary.build(train[0]), Vocabulary.build(train[1]))
    src_vocab, tgt_vocab = vocabs
    train_corpus = encode_corpus(*train, src_vocab, tgt_vocab, max_len)
    skipped = len(train[0]) - len(train_corpus)
    if skipped:
        print(f"note: skipped {skipped} training pairs longer than {max_len} tokens",
              file=sys.stderr)
    if not len(train_corpus):
        raise InputError(f"no training pairs of at most {max_len} tokens",
                         os.fspath(paths.train_src))
    return src_vocab, tgt_vocab, train_corpus, encode_corpus(*dev, src_vocab, tgt_vocab)
