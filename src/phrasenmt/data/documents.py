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

Context controls. A document model's `context` setting says what it reads:
`real` (the K previous lines, above), `none` (no context at all: every line is
treated as a document's first) or `random` (a random-context control, Li et al.
2020: each line gets as many context sentences as its real context has, taken
from another document, chosen with the run's seed). A random context is the
same in training, scoring and decoding; its sentences sit at earlier positions
of their document than the line itself, so documents decoded in rounds already
have them translated.
"""

from __future__ import annotations

import json
import os
import random

from phrasenmt.io import InputError, parse_json, read_lines

CONTEXT_SIDES = ("src", "tgt")
CONTEXT_MODES = ("real", "random", "none")  # what a document model reads as context


def context_mode(model_cfg: object) -> tuple[str, int]:
    """What a model config reads as context (`real`/`random`/`none`) and the seed
    of a random context; sentence-level configs read nothing (`real`, unused)."""
    return getattr(model_cfg, "context", "real"), getattr(model_cfg, "context_seed", 1)


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


def context_indices(doc_ids: list[str], size: int, mode: str = "real",
                    seed: int = 1, avoid_seed: int | None = None) -> list[list[int]]:
    """For each line, the indices of its context lines, oldest first: up to `size`
    previous lines of its document (`real`), none (`none`), or as many lines of
    another document (`random`, see `random_context_indices`; `avoid_seed`: not
    the document the draw with that seed gives the line, where a third exists)."""
    if size < 0:
        raise ValueError(f"context size must be >= 0, got {size}")
    if mode not in CONTEXT_MODES:
        raise ValueError(f"context mode must be one of {CONTEXT_MODES}, got {mode!r}")
    if mode == "none":
        return [[] for _ in doc_ids]
    real = _previous_lines(doc_ids, size)
    if mode == "real":
        return real
    return random_context_indices(doc_ids, real, seed, avoid_seed)


def _previous_lines(doc_ids: list[str], size: int) -> list[list[int]]:
    """For each line, up to `size` previous lines of its document."""
    out: list[list[int]] = []
    start = 0
    for i, doc in enumerate(doc_ids):
        if i and doc != doc_ids[i - 1]:
            start = i
        out.append(list(range(max(start, i - size), i)))
    return out


def random_context_indices(doc_ids: list[str], real: list[list[int]], seed: int,
                           avoid_seed: int | None = None) -> list[list[int]]:
    """Random-context control: line i at position p of its document, with n real
    context lines, gets n consecutive lines of another document that has at least
    n lines, ending at position min(p, its length) - 1 (so at earlier positions
    than p). The other document is drawn with `random.Random(seed)` in line order:
    the same seed and ids give the same contexts. With `avoid_seed`, the document
    the draw with that seed gives a line is not drawn either where the pool holds
    a third: a control scored against a random context then never meets the
    context it reads. With a single document there is no other to draw from: an
    error."""
    docs = documents(doc_ids)
    if len(docs) < 2 and any(real):
        raise InputError("a random-context control needs at least two documents; "
                         "the data has one", "context")
    doc_of = [d for d, lines in enumerate(docs) for _ in lines]
    longest = max((len(lines) for lines in docs), default=0)
    at_least = {n: [d for d, lines in enumerate(docs) if len(lines) >= n]
                for n in range(1, longest + 1)}
    avoid = (None if avoid_seed is None
             else _random_documents(doc_of, at_least, real, avoid_seed))
    out: list[list[int]] = []
    for i, (ctx, other) in enumerate(zip(
            real, _random_documents(doc_of, at_least, real, seed, avoid), strict=True)):
        if other is None:
            out.append([])
            continue
        lines, n = docs[other], len(ctx)
        end = min(i - docs[doc_of[i]][0], len(lines))
        out.append(lines[max(0, end - n):end])
    return out


def _random_documents(doc_of: list[int], at_least: dict[int, list[int]],
                      real: list[list[int]], seed: int,
                      avoid: list[int | None] | None = None) -> list[int | None]:
    """Per line, the document its random context comes from (None: no context):
    one of the documents with at least as many lines as its context (`at_least`),
    not its own (`doc_of`) nor, where a third exists, `avoid`'s."""
    rng = random.Random(seed)
    out: list[int | None] = []
    for i, ctx in enumerate(real):
        n = len(ctx)
        if not n:
            out.append(None)
            continue
        own = doc_of[i]
        pool = at_least[n] if len(at_least[n]) > 1 else at_least[1]
        barred = {own}
        if avoid is not None and avoid[i] is not None and len(pool) > 2:
            barred.add(avoid[i])  # own and avoid[i] are in the pool (n lines or more)
        other = own
        while other in barred:
            other = pool[rng.randrange(len(pool))]
        out.append(other)
    return out


def random_explicit_context(entries: list[dict[str, list[str]]], seed: int,
                            avoid_seed: int | None = None
                            ) -> list[dict[str, list[str]]]:
    """Random-context control for explicit contexts (contrastive items): every
    distinct non-empty context is replaced by another distinct one (drawn with
    `seed`, cut to as many sentences as it had), the same replacement for every
    line that shares it, so an item's variants keep one context. `avoid_seed`:
    not the one the draw with that seed gives it either, where a third exists."""
    keys = [json.dumps(e, sort_keys=True) for e in entries]
    distinct = [k for k in dict.fromkeys(keys) if any(json.loads(k).values())]
    if len(distinct) < 2:
        if distinct:
            raise InputError("a random-context control needs at least two "
                             "different contexts; the context file has one",
                             "--context")
        return entries
    avoid = None if avoid_seed is None else _other_contexts(distinct, avoid_seed)
    swap = {}
    for k, other in _other_contexts(distinct, seed, avoid).items():
        own, new = json.loads(k), json.loads(other)
        swap[k] = {side: new[side][-len(own[side]):] if own[side] else []
                   for side in CONTEXT_SIDES}
    return [swap.get(k, e) for k, e in zip(keys, entries, strict=True)]


def _other_contexts(distinct: list[str], seed: int,
                    avoid: dict[str, str] | None = None) -> dict[str, str]:
    """Each context of `distinct` -> another, drawn with `random.Random(seed)` in
    order; not `avoid[k]` either where a third exists."""
    rng = random.Random(seed)
    out = {}
    for k in distinct:
        barred = {k}
        if avoid is not None and len(distinct) > 2:
            barred.add(avoid[k])
        other = k
        while other in barred:
            other = distinct[rng.randrange(len(distinct))]
        out[k] = other
    return out


def drawn_again_often(again: dict[str, int] | None) -> bool:
    """Whether at least a tenth of a control's lines with a context drew their
    own random context again (`decoding.context.random_drawn_again`): worth a
    warning and a note in the context-usage table. The scoring draw avoids the
    control's own wherever a third document exists, so this happens with two."""
    return bool(again and again["lines"] and again["same"] * 10 >= again["lines"])


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
