"""Document ids per line and the context they define.

A split's `.docs` file holds one document id per line, line-aligned with its
text (the synthetic corpus writes `{split}-{k:06d}`; any non-space string is an
id). A document's lines are contiguous: an id that comes back after another
document started is an error, never a second document of the same name. The
context of line i is up to K previous lines of the same document, oldest first;
the first line of a document has none. Context is data, not batching: it is
looked up by these indices wherever a sentence is batched.

An explicit context file (for contrastive test items, whose context is not the
previous test line) is JSON Lines, one object per text line:
`{"src": [oldest, ..., previous], "tgt": [...]}`, BPE'd strings, lists possibly
empty.
"""

from __future__ import annotations

import os

from phrasenmt.io import InputError, parse_json, read_lines

CONTEXT_SIDES = ("src", "tgt")


def check_doc_ids(doc_ids: list[str], path: str | os.PathLike) -> None:
    """Ids must be single tokens and each document's lines contiguous."""
    seen: set[str] = set()
    previous = None
    for n, doc in enumerate(doc_ids, start=1):
        if not doc or len(doc.split()) != 1 or doc != doc.strip():
            raise InputError(f"a document id must be one token, got {doc!r}", path, n)
        if doc != previous:
            if doc in seen:
                raise InputError(f"document {doc!r} reappears after document "
                                 f"{previous!r}; a document's lines must be "
                                 "contiguous", path, n)
            seen.add(doc)
            previous = doc


def read_docs(path: str | os.PathLike, n_lines: int | None = None,
              text: str | os.PathLike | None = None) -> list[str]:
    """Document id per line; `n_lines` (the lines of `text`) must match."""
    doc_ids = read_lines(path)
    if n_lines is not None and len(doc_ids) != n_lines:
        name = f" but {text}" if text is not None else " but the text"
        raise InputError(f"has {len(doc_ids)} lines{name} has {n_lines}; a docs "
                         "file needs one document id per text line", path)
    check_doc_ids(doc_ids, path)
    return doc_ids


def context_indices(doc_ids: list[str], size: int) -> list[list[int]]:
    """For each line, the indices of up to `size` previous lines of its document,
    oldest first (an empty list for a document's first line)."""
    if size < 0:
        raise ValueError(f"context size must be >= 0, got {size}")
    out: list[list[int]] = []
    start = 0
    for i, doc in enumerate(doc_ids):
        if i and doc != doc_ids[i - 1]:
            start = i
        out.append(list(range(max(start, i - size), i)))
    return out


def documents(doc_ids: list[str]) -> list[list[int]]:
    """The line indices of each document, in file order."""
    out: list[list[int]] = []
    for i, doc in enumerate(doc_ids):
        if not out or doc != doc_ids[i - 1]:
            out.append([])
        out[-1].append(i)
    return out


def _context_entry(line: str, path: str | os.PathLike, n: int) -> dict[str, list[str]]:
    """One JSON line of a context file -> {"src": [...], "tgt": [...]}."""
    item = parse_json(line, path, n)
    if not isinstance(item, dict):
        raise InputError('expected an object {"src": [...], "tgt": [...]}', path, n)
    unknown = sorted(set(item) - set(CONTEXT_SIDES))
    if unknown:
        raise InputError(f"unknown key {unknown[0]!r} (known: src, tgt)", path, n)
    entry = {}
    for side in CONTEXT_SIDES:
        sentences = item.get(side, [])
        if not isinstance(sentences, list) or not all(
                isinstance(s, str) and s.strip() for s in sentences):
            raise InputError(f"{side!r} must be a list of non-empty strings", path, n)
        entry[side] = sentences
    return entry


def read_context_file(path: str | os.PathLike, n_lines: int,
                      text: str | os.PathLike | None = None
                      ) -> list[dict[str, list[str]]]:
    """Explicit context per text line: JSON Lines of {"src": [...], "tgt": [...]}."""
    lines = read_lines(path, allow_empty=False)
    if len(lines) != n_lines:
        name = f" but {text}" if text is not None else " but the text"
        raise InputError(f"has {len(lines)} lines{name} has {n_lines}; a context "
                         "file needs one JSON object per text line", path)
    return [_context_entry(line, path, n) for n, line in enumerate(lines, start=1)]
