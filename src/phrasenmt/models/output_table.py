"""The frozen output embedding table of continuous-output models.

Row i is the unit-normalized fastText vector of target-vocabulary token i, read
from word2vec text files (phrasenmt.embeddings writes words.vec and
phrases.vec). Tokens found in the phrase file are flagged as phrases (their
`_`-joined words are written out at decode time). <pad> and <s> get zero
rows (they are never predicted); a token in neither file gets its vector from
the fastText model (subword n-grams) when one is given, else a fixed
pseudo-random unit vector, so that every id has a distinct direction.
"""

from __future__ import annotations

import os
import re
import struct

import numpy as np
import torch
from torch import Tensor

from phrasenmt.io import InputError, read_lines
from phrasenmt.log import get_logger
from phrasenmt.text.vocab import BOS, PAD, SPECIALS, Vocabulary

_log = get_logger(__name__)

_COUNT = re.compile(r"[0-9]+")  # ASCII digits only
JOINER = "_"  # joins the words of a phrase token (as phrasenmt.embeddings does)


def read_vec(path: str | os.PathLike, dim: int) -> dict[str, np.ndarray]:
    """word2vec text format -> {token: vector}, the whole file validated first.

    The header must be two integers, `count dim`, with `dim` the model's
    embed_dim and `count` the rows that follow (a cut file would otherwise
    train with random vectors for its missing rows); every row is a token and
    `dim` finite numbers (a NaN would become a zero vector), each token once.
    """
    lines = read_lines(path)
    if not lines:
        raise InputError("empty embedding file", path)
    header = lines[0].split()
    if len(header) != 2 or not all(_COUNT.fullmatch(h) for h in header):
        raise InputError(f"header {lines[0][:40]!r} is not two integers "
                         f"'count dim' (word2vec text format)", path, 1)
    count, width = map(int, header)
    if width != dim:
        raise InputError(f"vectors have {width} dimensions, but embed_dim is {dim}",
                         path, 1)
    if count != len(lines) - 1:
        raise InputError(f"header says {count} vectors but the file has "
                         f"{len(lines) - 1} (cut short or edited?)", path, 1)
    table = {}
    for n, line in enumerate(lines[1:], start=2):
        fields = line.rstrip().split(" ")
        if len(fields) != dim + 1:
            raise InputError(f"expected a token and {dim} numbers", path, n)
        try:
            vector = np.asarray(fields[1:], dtype=np.float32)
        except ValueError:
            raise InputError("not a number in the vector", path, n) from None
        if not np.isfinite(vector).all():
            raise InputError(f"component {int(np.argmin(np.isfinite(vector))) + 1} "
                             "is not a finite number", path, n)
        if fields[0] in table:
            raise InputError(f"token {fields[0]!r} appears twice", path, n)
        table[fields[0]] = vector
    return table


FASTTEXT_MAGIC = 793712314  # the first int32 of every fastText .bin file
_NOT_FASTTEXT = "not a fastText model, or cut short"


class _Cut(Exception):
    """The file ends inside the part of a fastText model being read."""


def _unpack(fh, fmt: str) -> tuple:
    """Read struct `fmt` from `fh`; a file that ends first raises _Cut."""
    data = fh.read(struct.calcsize(fmt))
    if len(data) < struct.calcsize(fmt):
        raise _Cut
    return struct.unpack(fmt, data)


def _skip_entries(fh, count: int) -> None:
    """Read past `count` dictionary entries: a word, NUL, int64 count, int8 type."""
    data, off = b"", 0
    for _ in range(count):
        while (end := data.find(b"\0", off)) < 0 or end + 10 > len(data):
            more = fh.read(1 << 20)
            if not more:
                raise _Cut
            data, off = data[off:] + more, 0
        off = end + 10
    fh.seek(off - len(data), os.SEEK_CUR)


def _dense_matrix_end(fh) -> tuple[int, int] | None:
    """(columns, end offset) of the dense matrix at the file position, or None
    for a quantized one (whose size the header does not give as simply)."""
    (quantized,) = _unpack(fh, "<?")
    if quantized:
        return None
    rows, cols = _unpack(fh, "<2q")
    return cols, fh.tell() + rows * cols * 4


def fasttext_expected_size(path: str | os.PathLike) -> tuple[int, int | None]:
    """(dim, file size its header implies) of a fastText .bin model (None for a
    quantized one); a file that is not one raises ValueError, one that ends
    inside its header or dictionary _Cut. The layout is fastText 0.9's:
    magic, version, 12 int32 arguments and a double, the dictionary (three
    int32 and two int64 counts, then its entries and pruned ids), then the
    input and output matrices, each a quantized flag and rows x cols floats."""
    with open(path, "rb") as fh:
        magic, _version = _unpack(fh, "<2i")
        if magic != FASTTEXT_MAGIC:
            raise ValueError("no fastText magic number")
        args = _unpack(fh, "<12id")
        size, _words, _labels, _tokens, pruned = _unpack(fh, "<3i2q")
        _skip_entries(fh, size)
        fh.seek(max(pruned, 0) * 8, os.SEEK_CUR)
        dense = _dense_matrix_end(fh)
        if dense is None:
            return args[0], None
        fh.seek(dense[1])
        output = _dense_matrix_end(fh)
        return args[0], output and output[1]


def check_fasttext_file(path: str, dim: int) -> None:
    """Refuse a file that is not a whole fastText model of `dim` dimensions
    before fastText reads it: it would raise std::bad_alloc or "wrong file
    format" on junk, and read a model cut inside its matrices as a whole one."""
    try:
        width, expected = fasttext_expected_size(path)
    except (ValueError, _Cut):
        raise InputError(_NOT_FASTTEXT, path) from None
    except OSError as err:
        raise InputError(f"cannot read the fastText model ({err.strerror})",
                         path) from None
    if expected is not None and expected != os.path.getsize(path):
        raise InputError(f"{_NOT_FASTTEXT}: its header implies {expected:,} bytes, "
                         f"the file has {os.path.getsize(path):,}", path)
    if width != dim:
        raise InputError(f"the fastText model has {width} dimensions, but "
                         f"embed_dim is {dim}", path)


def _fallback_vectors(tokens: list[str], dim: int, fasttext_model: str
                      ) -> list[np.ndarray]:
    """Vectors for tokens in neither file: fastText subwords, else seeded random."""
    if fasttext_model:
        import fasttext

        if not os.path.isfile(fasttext_model):
            raise InputError("fastText model not found", fasttext_model)
        check_fasttext_file(fasttext_model, dim)
        try:
            model = fasttext.load_model(fasttext_model)
        except (ValueError, MemoryError, RuntimeError) as err:
            raise InputError(f"{_NOT_FASTTEXT} (fastText: {err})",
                             fasttext_model) from None
        return [np.asarray(model.get_word_vector(t), dtype=np.float32) for t in tokens]
    rng = np.random.default_rng(0)
    return [rng.standard_normal(dim).astype(np.float32) for _ in tokens]


def build_output_table(vocab: Vocabulary, dim: int, word_vec: str,
                       phrase_vec: str = "", fasttext_model: str = "",
                       center: bool = False) -> tuple[Tensor, Tensor]:
    """(table (V, dim) unit rows, is_phrase (V,) bool) aligned with `vocab` ids.

    With `center` the mean row is subtracted before normalizing.
    """
    words = read_vec(word_vec, dim)
    if not words:
        raise InputError("header says 0 vectors: a word table without words leaves "
                         "every row of the output table to the fallback vectors; "
                         "give the words.vec of this data's fastText run",
                         word_vec, 1)
    phrases = read_vec(phrase_vec, dim) if phrase_vec else {}
    rows = np.zeros((len(vocab), dim), dtype=np.float32)
    is_phrase = np.zeros(len(vocab), dtype=bool)
    missing = []
    for i, token in enumerate(vocab.itos):
        if i in (PAD, BOS):
            continue
        if token in phrases:
            rows[i], is_phrase[i] = phrases[token], True
        elif token in words:
            rows[i] = words[token]
        else:
            missing.append(i)
    check_coverage(vocab, missing, word_vec)
    fallback = _fallback_vectors([vocab.itos[i] for i in missing], dim, fasttext_model)
    for i, vec in zip(missing, fallback, strict=True):
        rows[i] = vec
    if missing:
        _log.info(f"note: {len(missing)} target tokens have no table vector "
                  f"(e.g. {vocab.itos[missing[0]]!r}); "
                  f"{'fastText subwords' if fasttext_model else 'random'} used")
    if center:
        real = np.ones(len(vocab), dtype=bool)
        real[[PAD, BOS]] = False
        rows[real] -= rows[real].mean(axis=0)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    rows = np.where(norms > 0, rows / np.maximum(norms, 1e-12), 0.0)
    return torch.from_numpy(rows.astype(np.float32)), torch.from_numpy(is_phrase)


def check_coverage(vocab: Vocabulary, missing: list[int], word_vec: str) -> None:
    """Refuse tables that give a vector to none of the vocabulary's own tokens.

    Some tokens are legitimately missing (</s>, <unk>, subwords fastText never
    saw): they get fallback vectors and a note. A table that covers none of
    them was made for other data or another tokenization, and the model would
    learn to predict vectors that mean nothing.
    """
    own = [i for i in range(len(vocab)) if vocab.itos[i] not in SPECIALS]
    if own and set(own) <= set(missing):
        raise InputError(f"covers none of the {len(own)} target tokens (e.g. "
                         f"{vocab.itos[own[0]]!r} is not in it): a table made for "
                         "other data or another tokenization?", word_vec)


def phrase_words(token: str) -> list[str]:
    """The words of a `_`-joined phrase token."""
    return token.split(JOINER)
