"""Subword tokens and text: generated subwords back into tokenized text, and the
check that BPE'd input lines end on a whole word."""

from __future__ import annotations

import os
import re

from phrasenmt.io import InputError

BPE_MARK = "@@"  # subword-nmt's "this subword continues in the next token"
_BPE_JOINER = re.compile(r"@@( |$)")


def remove_bpe(line: str) -> str:
    """Undo subword-nmt's segmentation: "new@@ er" -> "newer".

    A hypothesis whose last subword still carries the mark ("the hou@@": the
    search stopped inside a word) keeps that subword without the mark ("the
    hou"), so the output never shows a marker.
    """
    return _BPE_JOINER.sub("", line).strip()


def check_whole_words(lines: list[str], path: str | os.PathLike) -> None:
    """Refuse BPE'd input whose line ends inside a word (a last subword "hou@@").

    subword-nmt never writes such a line; it comes from a file cut short or
    edited after segmentation, and translating it would silently drop the
    rest of the word.
    """
    for n, line in enumerate(lines, start=1):
        last = line.rsplit(None, 1)[-1] if line.strip() else ""
        if last.endswith(BPE_MARK):
            raise InputError(f"the line ends inside a word: its last subword "
                             f"{last[:40]!r} carries the continuation mark "
                             f"'{BPE_MARK}' (a line cut short after BPE?)", path, n)
