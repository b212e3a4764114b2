"""BPE'd text (subword-nmt's `@@ ` marks): the check that every line ends on a
whole word, for every reader of BPE'd files (training data, translate, score)."""

from __future__ import annotations

import os

from phrasenmt.io import InputError

BPE_MARK = "@@"  # subword-nmt's "this subword continues in the next token"


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
