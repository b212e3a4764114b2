"""Subword tokens back into tokenized text (the check that BPE'd input lines
end on a whole word is `phrasenmt.text.subwords`)."""

from __future__ import annotations

import re

_BPE_JOINER = re.compile(r"@@( |$)")


def remove_bpe(line: str) -> str:
    """Undo subword-nmt's segmentation: "new@@ er" -> "newer".

    A hypothesis whose last subword still carries the mark ("the hou@@": the
    search stopped inside a word) keeps that subword without the mark ("the
    hou"), so the output never shows a marker.
    """
    return _BPE_JOINER.sub("", line).strip()
