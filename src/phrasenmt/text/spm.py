"""SentencePiece (Kudo & Richardson 2018) as a subword backend: BPE or unigram
pieces learned on text in any script, written in subword-nmt's `@@ ` form.

Every later step reads subwords as subword-nmt writes them (a piece that is
not the end of its word ends in '@@'), so a SentencePiece line is turned into
that form: a piece that starts with '▁' starts a word. The model is trained
with the identity normalisation (text is not NFKC-folded), so the pieces of a
word join back to exactly that word, and decoding (▁ -> space, pieces joined)
gives back the line's words: the word-level files and the subword files agree.
Training is deterministic: one thread, every sentence (no sampling), and the
run's seed given to SentencePiece's random generator.
"""

from __future__ import annotations

import io
import os
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import sentencepiece
from google.protobuf.message import DecodeError
from sentencepiece import sentencepiece_model_pb2

from phrasenmt.io import InputError

MODEL_TYPES = ("bpe", "unigram")
WORD_START = "\u2581"  # SentencePiece's "a word starts here" (▁)
SEPARATOR = "@@"
_TOO_HIGH = re.compile(r"Vocabulary size too high \((\d+)\)\. Please set it to a "
                       r"value <= (\d+)")
_TOO_LOW = re.compile(r"Vocabulary size is smaller than required_chars\. (\d+) vs "
                      r"(\d+)")
# Characters a model covers: all of them for alphabets, SentencePiece's advice
# for scripts with thousands of characters (the rarest ones become unknown)
FULL_COVERAGE, CJK_COVERAGE = 1.0, 0.9995
# `train` leaves SentencePiece's trainer defaults for these: a piece holds at
# most 16 characters, and <unk>, <s>, </s> (no <pad>) are the pieces of no text
_DEFAULTS = sentencepiece_model_pb2.TrainerSpec()
MAX_PIECE_LENGTH = _DEFAULTS.max_sentencepiece_length
META_PIECES = sum(i >= 0 for i in (_DEFAULTS.unk_id, _DEFAULTS.bos_id,
                                   _DEFAULTS.eos_id, _DEFAULTS.pad_id))
MAX_UNKNOWN_CHARACTERS = 0.1  # past this share, the model was learned on other text


def train(lines: Iterable[str], model_type: str, vocab_size: int, seed: int,
          coverage: float = FULL_COVERAGE, key: str = "bpe.vocab_size") -> bytes:
    """Train a model on lines (words separated by spaces); its serialized bytes.
    `key`: the config key of the size, which a size the text cannot fit names."""
    if model_type not in MODEL_TYPES:
        raise InputError(f"unknown SentencePiece model type {model_type!r} "
                         f"(known: {', '.join(MODEL_TYPES)})", "--model-type")
    out = io.BytesIO()
    sentencepiece.set_random_generator_seed(seed)
    try:
        sentencepiece.SentencePieceTrainer.train(
            sentence_iterator=iter(list(lines)), model_writer=out,
            model_type=model_type, vocab_size=vocab_size, num_threads=1,
            character_coverage=coverage, normalization_rule_name="identity",
            input_sentence_size=0, shuffle_input_sentence=False,
            max_sentence_length=1 << 20, minloglevel=2)
    except RuntimeError as err:
        raise InputError(vocab_size_message(str(err), vocab_size, key),
                         "--vocab-size") from None
    return out.getvalue()


def vocab_size_message(error: str, vocab_size: int, key: str = "bpe.vocab_size") -> str:
    """SentencePiece's error about a vocabulary size, as one line naming the
    config key."""
    high, low = _TOO_HIGH.search(error), _TOO_LOW.search(error)
    if high:
        return (f"{vocab_size} pieces is more than this text can give: "
                f"SentencePiece finds at most {high.group(2)} (config "
                f"{key}; lower it or give more text)")
    if low:
        return (f"{vocab_size} pieces cannot hold the {low.group(2)} characters and "
                f"markers of this text (config {key}; raise it to at least "
                f"{low.group(2)})")
    return f"SentencePiece could not train a model: {error.splitlines()[-1]}"


def load(path: str | os.PathLike) -> sentencepiece.SentencePieceProcessor:
    """A model from its file; a file that is not one raises InputError."""
    return from_bytes(read_bytes(path), path)


def read_bytes(path: str | os.PathLike) -> bytes:
    """The bytes of a model file; one that cannot be read raises InputError."""
    try:
        return Path(path).read_bytes()
    except OSError as err:
        raise InputError(f"cannot read the SentencePiece model ({err.strerror})",
                         path) from None


def from_bytes(data: bytes, path: str | os.PathLike) -> sentencepiece.SentencePieceProcessor:
    """A model from the bytes of its file `path` (named in the errors); bytes
    that are not a whole model raise InputError."""
    sp = sentencepiece.SentencePieceProcessor()
    try:
        sp.LoadFromSerializedProto(data)
    except (RuntimeError, OSError):
        raise InputError("not a SentencePiece model file", path) from None
    if sp.GetPieceSize() == 0:
        raise InputError("not a SentencePiece model file (no pieces)", path)
    check_whole(data, path)
    return sp


def check_whole(data: bytes, path: str | os.PathLike) -> None:
    """Refuse a model cut short. Its pieces come first in the file and the
    trainer and normalizer specs after them, so a file cut at a piece boundary
    still loads, with fewer pieces and the default normalization: it would
    segment differently without a word."""
    proto = sentencepiece_model_pb2.ModelProto()
    try:
        proto.ParseFromString(data)
    except DecodeError:
        raise InputError("not a SentencePiece model file", path) from None
    if not proto.HasField("trainer_spec"):
        raise InputError("the SentencePiece model looks truncated: it has "
                         f"{len(proto.pieces)} pieces and no trainer spec (the "
                         "file was cut short?); learn it again", path)
    if len(proto.pieces) != proto.trainer_spec.vocab_size:
        raise InputError("the SentencePiece model looks truncated: it has "
                         f"{len(proto.pieces)} pieces, but its trainer spec says "
                         f"vocab_size {proto.trainer_spec.vocab_size} (the file "
                         "was cut short?); learn it again", path)


def piece_bound(lines: Iterable[str], enough: int) -> int:
    """At most how many pieces a model that `train` learns on these lines can
    hold, counted until the count reaches `enough` (so a large text is read
    only that far): the meta pieces and every distinct substring of at most
    MAX_PIECE_LENGTH characters of a word with its '▁' before it.

    SentencePiece, as `train` runs it, splits a line at its spaces only, with
    the identity normalisation (the characters are the text's own: an NFKC
    fold here could merge two pieces SentencePiece keeps apart), and makes
    every piece of one word (a '▁' only at its start: split_by_whitespace),
    no longer than MAX_PIECE_LENGTH; splitting by script and number, the
    character coverage and the frequencies only rule out more. No byte
    fallback, user-defined or control symbol adds a piece that is not text.
    """
    pieces: set[str] = set()
    seen: set[str] = set()
    count = META_PIECES
    for line in lines:
        for word in line.split(" "):
            if not word or word in seen:
                continue
            seen.add(word)
            word = WORD_START + word
            for start in range(len(word)):
                for end in range(start + 1, min(len(word), start + MAX_PIECE_LENGTH) + 1):
                    pieces.add(word[start:end])
            count = META_PIECES + len(pieces)
            if count >= enough:
                return count
    return count


def trainer_settings(path: str | os.PathLike) -> tuple[str, int]:
    """A model file's (model type, vocabulary size): 'bpe', 'unigram', 'word'
    or 'char', and its number of pieces, as its trainer spec says."""
    proto = sentencepiece_model_pb2.ModelProto()
    proto.ParseFromString(Path(path).read_bytes())
    spec = proto.trainer_spec
    return (sentencepiece_model_pb2.TrainerSpec.ModelType.Name(spec.model_type).lower(),
            spec.vocab_size)


@dataclass
class Unknown:
    """The characters of some lines that a model never saw."""

    unknown: int  # characters in unknown pieces
    total: int  # all characters but spaces
    chars: Counter  # each unknown character: how often

    def too_many(self) -> bool:
        """More than MAX_UNKNOWN_CHARACTERS of them: a model of other text."""
        return bool(self.total) and self.unknown / self.total > MAX_UNKNOWN_CHARACTERS

    def percent(self) -> str:
        return f"{100 * self.unknown / self.total:.1f}%" if self.total else "0%"

    def examples(self, n: int = 5) -> str:
        """The `n` most frequent unknown characters, as "'x', 'y', ..."."""
        return ", ".join(repr(c) for c, _ in self.chars.most_common(n))


def unknown_characters(sp: sentencepiece.SentencePieceProcessor,
                       lines: list[str]) -> Unknown:
    """The characters of these lines the model never saw: such characters
    make the model's unknown piece, written as their text (a word of them
    stays whole)."""
    unknown = total = 0
    chars: Counter = Counter()
    unk = sp.unk_id()
    for pieces in sp.encode(lines, out_type=str):  # an unknown piece: its text
        for piece in pieces:
            text = piece.removeprefix(WORD_START)
            total += len(text)
            if sp.piece_to_id(piece) == unk:
                unknown += len(text)
                chars.update(text)
    return Unknown(unknown, total, chars)


def encode(sp: sentencepiece.SentencePieceProcessor, line: str) -> str:
    """One line of words as subword-nmt-form pieces, one word of pieces for
    each word of the line. A model's own normalisation may put a space into a
    word (nmt_nfkc turns '¨' into a space and a combining mark) or remove all
    of it; either would shift every later word against the word-level files,
    so each word is encoded alone, its pieces stay one word, and a word with
    no pieces stays as it is."""
    words = line.split()
    if not words:
        return ""
    out = []
    for word, pieces in zip(words, sp.encode(words, out_type=str), strict=True):
        pieces = [p for p in (p.removeprefix(WORD_START) for p in pieces) if p] or [word]
        out += [p + SEPARATOR for p in pieces[:-1]] + pieces[-1:]
    return " ".join(out)


def decode(subwords: str) -> str:
    """The text of subword-nmt-form pieces, as SentencePiece decodes its pieces
    (a word-initial piece's '▁' becomes the space before it)."""
    pieces, start = [], True
    for token in subwords.split():
        cont = token.endswith(SEPARATOR)
        text = token.removesuffix(SEPARATOR) if cont else token
        pieces.append((WORD_START if start else "") + text)
        start = not cont
    return "".join(pieces).replace(WORD_START, " ").strip()
