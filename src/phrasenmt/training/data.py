"""Training data: read parallel files, build vocabularies, encode to ids."""

from __future__ import annotations

import functools
import hashlib
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from torch import Tensor

from phrasenmt.data.documents import context_indices, read_docs
from phrasenmt.io import InputError, read_lines, read_parallel
from phrasenmt.log import get_logger
from phrasenmt.nn.batching import PackedSequences, bucket_width
from phrasenmt.text.subwords import check_whole_words
from phrasenmt.text.vocab import EOS, PAD, Vocabulary

_log = get_logger(__name__)

_INTEGER = re.compile(r"-?[0-9]+")  # a side value: ASCII digits (int() takes "١")

FertilityData = tuple[list[list[int]], list[list[int]]]  # source ids, labels


@dataclass
class DataPaths:
    """The four files a training run reads."""

    train_src: Path  # BPE'd training source, one sentence per line
    train_tgt: Path  # BPE'd training target, line-aligned with train_src
    dev_src: Path  # BPE'd development source
    dev_tgt: Path  # BPE'd development target
    side: dict[str, tuple[Path, Path]] = field(default_factory=dict)  # name -> train, dev
    docs: tuple[Path, Path] | None = None  # document ids per line: train, dev

    def files(self) -> list[Path]:
        """Every file of the run, side inputs in name order, then the docs files."""
        sides = [p for name in sorted(self.side) for p in self.side[name]]
        return [self.train_src, self.train_tgt, self.dev_src, self.dev_tgt, *sides,
                *(self.docs or ())]


@dataclass
class DocContext:
    """A split's document context: the ids of every line of the split (per side
    the model reads) and, per kept pair, the lines of its context."""

    size: int  # K: context sentences per pair at most
    sentences: dict[str, list[list[int]]]  # "src"/"tgt" -> ids of every split line
    indices: list[list[int]]  # per kept pair: context line indices, oldest first
    # also give "index" (B, K): the line of each slot, -1 where none (for a
    # models.context_cache.ContextStates of this split)
    with_index: bool = False

    def batch(self, pairs: Sequence[int], empty: Sequence[bool] | None = None,
              buckets: Sequence[int] = ()) -> dict[str, Tensor]:
        """Context tensors (B, K, Lc) per side for the kept pairs `pairs`, Lc up
        to its bucket's width (`train.length_buckets`); a pair whose `empty`
        flag (indexed by pair) is set reads an empty context, as a document's
        first sentence does."""
        slots = self._slots[np.asarray(pairs, np.int64)]  # a copy
        if empty is not None:
            slots[np.asarray([bool(empty[i]) for i in pairs], bool)] = -1
        flat = slots.reshape(-1)
        present = flat >= 0
        out = {}
        for side, packed in self._packed.items():
            rows = np.where(present, flat, len(packed) - 1)  # the empty sentence
            longest = int((packed.lengths[rows] + 1)[present].max(initial=0))
            width = bucket_width(max(longest, 1), buckets)
            ids = packed.pad(rows, PAD, width, last=EOS)  # one gather per side
            ids[torch.from_numpy(~present)] = PAD  # slots without a sentence
            out[side] = ids.view(len(slots), self.size, width)
        if self.with_index:
            out["index"] = torch.from_numpy(slots)
        return out

    @functools.cached_property
    def _packed(self) -> dict[str, PackedSequences]:
        """Each side's sentences packed (one flat id array and offsets), and
        after them an empty one that the slots without a sentence read."""
        return {side: PackedSequences([*lines, []])
                for side, lines in self.sentences.items()}

    @functools.cached_property
    def _slots(self) -> np.ndarray:
        """(pairs, K) line of each context slot, oldest first and right-aligned
        (slot K-1 the previous sentence), -1 where there is none."""
        out = np.full((len(self.indices), self.size), -1, np.int64)
        for i, row in enumerate(self.indices):
            if len(row) > self.size:
                raise ValueError(f"more than {self.size} context sentences in a row")
            if row:
                out[i, self.size - len(row):] = row
        return out

    def needed(self, pairs: Iterable[int] | None = None) -> list[int]:
        """The lines that are some pair's context (of `pairs`: default all), in
        order."""
        rows = self.indices if pairs is None else (self.indices[i] for i in pairs)
        return sorted({j for row in rows for j in row})


EMPTY_CONTEXT_STREAM = 0x0C7  # keeps context dropout's draws apart from batching's


def empty_context_mask(n_pairs: int, rate: float, seed: int, epoch: int
                       ) -> list[bool]:
    """Context dropout: which training pairs read an empty context in `epoch`,
    each with probability `rate`, drawn from (seed, epoch) alone so that a
    resumed run draws the same."""
    rng = np.random.default_rng([seed, epoch, EMPTY_CONTEXT_STREAM])
    return (rng.random(n_pairs) < rate).tolist()


@dataclass
class Corpus:
    """Parallel sentences as id lists (no <s>/</s>)."""

    src: list[list[int]]
    tgt: list[list[int]]
    side: dict[str, list[list[int]]] = field(default_factory=dict)  # per source token
    lines: list[int] = field(default_factory=list)  # file line index of each pair
    context: DocContext | None = None  # document context, for models that read it

    def __len__(self) -> int:
        return len(self.src)


def fingerprint(paths: DataPaths) -> str:
    """sha256 over the data files' bytes: a run's identity includes its data."""
    digest = hashlib.sha256()
    for path in paths.files():
        if not Path(path).is_file():
            raise InputError("file not found", path)
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
        digest.update(b"\0")
    return digest.hexdigest()


def read_side(path: str | os.PathLike, src: list[str],
              classes: int | None = None) -> list[list[int]]:
    """Integer sequences, one per source line and one value per source token.

    Every value is checked before anything is allocated from it: ASCII digits,
    not negative, and below `classes` (labels) or, without it, below the
    line's token count (a phrase id: n tokens make at most n phrases).
    """
    lines = read_lines(path)
    if len(lines) != len(src):
        raise InputError(f"has {len(lines)} lines but the source has {len(src)}", path)
    rows = []
    for n, (line, sentence) in enumerate(zip(lines, src, strict=True), start=1):
        values, tokens = line.split(), len(sentence.split())
        if len(values) != tokens:
            raise InputError(f"has {len(values)} values but the source line has "
                             f"{tokens} tokens", path, n)
        high = tokens if classes is None else classes
        for k, value in enumerate(values, start=1):
            if not _INTEGER.fullmatch(value):
                raise InputError("side input must be integers (ASCII digits) "
                                 f"separated by spaces; value {k} is {value!r}",
                                 path, n)
            if not 0 <= int(value) < high:
                what = (f"labels of {classes} classes" if classes is not None
                        else f"phrase ids of a line of {tokens} tokens")
                raise InputError(f"value {k} is {value}, out of range: {what} are "
                                 f"0..{high - 1}", path, n)
        rows.append([int(v) for v in values])
    return rows


def parse_side(values: list[str], parts: int) -> dict[str, tuple[Path, ...]]:
    """NAME=FILE[,FILE] options -> {name: paths}; malformed ones raise."""
    side: dict[str, tuple[Path, ...]] = {}
    for value in values:
        name, _, files = value.partition("=")
        paths = tuple(Path(f) for f in files.split(",")) if files else ()
        if not name or len(paths) != parts or name in side:
            shape = "NAME=TRAIN,DEV" if parts == 2 else "NAME=FILE"
            raise InputError(f"expected {shape} (each name once), got {value!r}",
                             "--side")
        side[name] = paths
    return side


def load_labelled(src_path: Path, labels_path: Path, vocab: Vocabulary,
                  classes: int) -> FertilityData:
    """Encoded source sentences and their labels; labels >= classes raise."""
    src = read_lines(src_path, allow_empty=False)
    labels = read_side(labels_path, src, classes)
    return [vocab.encode(s) for s in src], labels


def encode_corpus(src: list[str], tgt: list[str], src_vocab: Vocabulary,
                  tgt_vocab: Vocabulary, max_len: int | None = None,
                  side: dict[str, list[list[int]]] | None = None) -> Corpus:
    """Encode line pairs, dropping pairs with a side longer than `max_len`."""
    side = side or {}
    out = Corpus([], [], {name: [] for name in side})
    for i, (s, t) in enumerate(zip(src, tgt, strict=True)):
        s_ids, t_ids = src_vocab.encode(s), tgt_vocab.encode(t)
        if max_len is None or max(len(s_ids), len(t_ids)) <= max_len:
            out.src.append(s_ids)
            out.tgt.append(t_ids)
            out.lines.append(i)
            for name, rows in side.items():
                out.side[name].append(rows[i])
    return out


def doc_context(docs: Path, text: tuple[list[str], list[str]], src_path: Path,
                vocabs: tuple[Vocabulary, Vocabulary], corpus: Corpus,
                sides: tuple[str, ...], size: int,
                mode: tuple[str, int] = ("real", 1)) -> DocContext:
    """The context of a split's kept pairs: K previous lines of their document
    (or a control's context: `mode`, see `context_mode`).

    Context sentences come from the whole split (a pair skipped as too long
    still serves as its successor's context), encoded with the run's vocabularies.
    """
    doc_ids = read_docs(docs, len(text[0]), src_path)
    indices = context_indices(doc_ids, size, *mode)
    sentences = {side: [vocab.encode(line) for line in lines]
                 for side, lines, vocab in zip(("src", "tgt"), text, vocabs,
                                               strict=True) if side in sides}
    return DocContext(size, sentences, [indices[i] for i in corpus.lines])


def load_data(paths: DataPaths, max_len: int, vocabs: tuple | None = None,
              context_sides: tuple[str, ...] = (), context_size: int = 0,
              context: tuple[str, int] = ("real", 1),
              side_classes: dict[str, int] | None = None, min_freq: int = 1
              ) -> tuple[Vocabulary, Vocabulary, Corpus, Corpus]:
    """Read and validate all files; build vocabularies from train unless given.

    `side_classes` bounds the values of side inputs (`Seq2Seq.side_classes`).
    Tokens seen fewer than `min_freq` times in training are left out of built
    vocabularies (they read and predict <unk>, whose embedding is then trained).

    With `paths.docs` and `context_sides`, both corpora get their `context`.
    """
    train = read_parallel(paths.train_src, paths.train_tgt, allow_empty=False)
    dev = read_parallel(paths.dev_src, paths.dev_tgt, allow_empty=False)
    for lines, path, split in ((train, paths.train_src, "training"),
                               (dev, paths.dev_src, "dev")):
        if not lines[0]:  # else the first validation would divide by zero
            raise InputError(f"no {split} sentence pairs (the file is empty)", path)
    for lines, path in ((train[0], paths.train_src), (train[1], paths.train_tgt),
                        (dev[0], paths.dev_src), (dev[1], paths.dev_tgt)):
        check_whole_words(lines, path)  # a word cut after BPE would train as is
    if vocabs is None:
        vocabs = (Vocabulary.build(train[0], min_freq),
                  Vocabulary.build(train[1], min_freq))
    src_vocab, tgt_vocab = vocabs
    classes = side_classes or {}
    train_side = {n: read_side(f[0], train[0], classes.get(n))
                  for n, f in sorted(paths.side.items())}
    dev_side = {n: read_side(f[1], dev[0], classes.get(n))
                for n, f in sorted(paths.side.items())}
    train_corpus = encode_corpus(*train, src_vocab, tgt_vocab, max_len, train_side)
    skipped = len(train[0]) - len(train_corpus)
    if skipped:
        _log.info(f"note: skipped {skipped} training pairs longer than {max_len} "
                  "tokens")
    if not len(train_corpus):
        raise InputError(f"no training pairs of at most {max_len} tokens (train.max_len"
                         f" {max_len}, in BPE pieces): raise it", os.fspath(paths.train_src))
    dev_corpus = encode_corpus(*dev, src_vocab, tgt_vocab, side=dev_side)
    if paths.docs is not None and context_sides:
        for corpus, text, docs, src_path in (
                (train_corpus, train, paths.docs[0], paths.train_src),
                (dev_corpus, dev, paths.docs[1], paths.dev_src)):
            corpus.context = doc_context(docs, text, src_path, vocabs, corpus,
                                         context_sides, context_size, context)
    return src_vocab, tgt_vocab, train_corpus, dev_corpus
