"""BPE'd text (subword-nmt's `@@ ` marks): learning and applying codes, reading
codes and vocabulary files (for `phrasenmt.bpe` and every command that segments
text itself: translate_text, the contrastive scorer), and the check that every
line ends on a whole word, for every reader of BPE'd files (training data,
translate, score)."""

from __future__ import annotations

import contextlib
import io
import os
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from unittest import mock

from subword_nmt import apply_bpe, learn_bpe

from phrasenmt.io import InputError, read_lines, read_nonempty_lines

BPE_MARK = "@@"  # subword-nmt's "this subword continues in the next token"
SEPARATOR = BPE_MARK
_BPE_MARK = re.compile(r"@@( |$)")
_VERSION = re.compile(r"#version: [0-9]+(\.[0-9]+)*")
_COUNT = re.compile(r"[0-9]+")


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
    if not any(len(word) > 1 for word in counts):  # no pair of symbols at all:
        return "#version: 0.2\n"  # learn_bpe would fail on max() of nothing
    out = io.StringIO()
    vocab = [f"{word} {freq}" for word, freq in counts.items()]
    # learn_bpe draws a tqdm bar per merge on stderr, which floods rule logs, and
    # says why it stopped early there (learn() says it in one line instead)
    with (mock.patch.object(learn_bpe, "tqdm", lambda it, *a, **k: it),
          contextlib.redirect_stderr(io.StringIO())):
        learn_bpe.learn_bpe(vocab, out, merges, min_frequency=min_frequency,
                            is_dict=True)
    return out.getvalue()


class Segmenter:
    """Apply BPE codes to tokenized lines, caching each word's segmentation."""

    def __init__(self, codes: str, vocab: set[str] | None = None,
                 where: str | os.PathLike = "codes"):
        if vocab is not None and not vocab:
            # no subword reaches the threshold: every word goes back to its
            # characters; subword-nmt takes an empty vocabulary for none at all
            vocab = {""}
        try:  # subword-nmt exits (or raises) on codes it cannot read
            self.bpe = apply_bpe.BPE(io.StringIO(codes), separator=SEPARATOR,
                                     vocab=vocab)
        except (SystemExit, ValueError) as err:
            raise InputError(f"subword-nmt cannot read these BPE codes ({err})",
                             where) from None
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
    for n, line in enumerate(read_nonempty_lines(path, "subwords"), start=1):
        parts = line.split(" ")
        if len(parts) != 2 or not parts[0] or not _COUNT.fullmatch(parts[1]):
            raise InputError("expected 'SUBWORD COUNT' (count in ASCII digits)",
                             path, n)
        if threshold is None or int(parts[1]) >= threshold:
            vocab.add(parts[0])
    return vocab


def read_codes(path: Path) -> str:
    """Read and check a BPE codes file: a '#version: X.Y' line, then merges."""
    lines = read_lines(path)
    if lines and not lines[0].startswith("#version"):
        raise InputError("expected '#version: 0.2' as the first line, the header "
                         "bpe learn writes (without it subword-nmt applies the "
                         "merges with its version 0.1 end-of-word rule: a codes "
                         "file cut or edited?)", path, 1)
    for n, line in enumerate(lines, start=1):
        if n == 1 and line.startswith("#version"):
            if not _VERSION.fullmatch(line):
                raise InputError("expected '#version: X.Y'", path, n)
            continue
        if len(line.split(" ")) != 2 or not all(line.split(" ")):
            raise InputError("expected two space-separated symbols", path, n)
    if not [line for line in lines if not line.startswith("#version")]:
        raise InputError("no merge operations in the codes file", path)
    return "\n".join(lines) + "\n"




def check_whole_words(lines: list[str], path: str | os.PathLike) -> None:
    """Refuse BPE'd input whose line ends inside a word (a last subword "hou@@").

    subword-nmt never writes such a line; it comes from a file cut short or
    edited after segmentation, and reading it would silently drop the rest of
    the word (translated, scored or trained on without it).
    """
    for n, line in enumerate(lines, start=1):
        last = line.rsplit(None, 1)[-1] if line.strip() else ""
        if last.endswith(BPE_MARK):
            raise InputError(f"the line ends inside a word: its last subword "
                             f"{last[:40]!r} carries the continuation mark "
                             f"'{BPE_MARK}' (a line cut short after BPE?)", path, n)
