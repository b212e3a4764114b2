"""Turning generated subword tokens back into tokenized text."""

from __future__ import annotations

import re

_BPE_JOINER = re.compile(r"@@( |$)")


def remove_bpe(line: str) -> str:
    """Undo subword-nmt's segmentation: "new@@ er" -> "newer"."""
    return _BPE_JOINER.sub("", line).strip()
