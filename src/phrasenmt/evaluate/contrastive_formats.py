"""Readers of contrastive test sets with context, one per format, into one item list.

Every reader returns items
`{"source", "reference", "contrastive": [..], "context_src": [..],
"context_tgt": [..], "type", "distance"}` (+ `"contrastive_context_tgt"`: one
context per contrastive variant, only where it differs from the reference's),
contexts oldest first. An item is correct when its reference scores strictly
better than every contrastive variant (`phrasenmt.evaluate.contrastive`); each
reader groups its format's lines into items so that this is the comparison the
format's own evaluation script makes:

* `lingeval`: our Lingeval-format JSON whose items carry `doc`/`line` (the
  synthetic test set). One item per error, as Sennrich's Lingeval97 counts per
  contrastive pair; context = the K previous lines of the same document of the
  test split (its text and docs files). With `--mirror-pronouns` each
  pronoun_gender item is paired with its mirror (`mirror_pronoun_items`), so that
  a model that ignores the context scores exactly 50 % on them.
* `contrapro`: ContraPro (Mueller et al. 2018) after `json2text_and_context.pl
  --context N`: `contrapro.text.{src,tgt}` hold, per JSON entry, the reference
  line then one line per error; `contrapro.context.{src,tgt}` hold N lines
  (oldest first) per text line. One item per entry, as its `evaluate.py`
  (correct when the reference beats all errors); type `src pronoun:ref pronoun`,
  distance `ante distance` (bins 0..3, >3).
* `bawden`: Bawden et al. 2018 `.current`/`.prev` files from `json2rawtext.py`:
  lines 2k and 2k+1 are the correct (or semi-correct) and the incorrect
  translation of one example, each with its previous sentence, as its
  `evaluate.py` reads the scores in pairs.
* `voita`: Voita et al. 2019 consistency sets: the JSON (`src`, `dst` candidates,
  `true_ind`, `ctx_dist`) whose scoring files `X.src`/`X.dst` repeat the source
  per candidate, sentences joined by ` _eos `. One item per group, as
  `evaluate_consistency.py`, the true candidate against all others. That script
  takes `argmin` of the losses, so a tie it resolves for the first candidate
  counts as correct there and as wrong here (strictly better).

Empty context sentences (a document's start) are dropped; a context item that
has none where its format promises them is an error.

Dev and test items: `document_sides` puts a seeded share of a set's documents
on the dev side (lingeval: the test split's document ids; contrapro: its
`document id`s; bawden, voita and a contrapro entry without one: each item is
its own document). An item records its `doc` and, where another document's
sentences are its context (a mirrored pronoun item), that `context_doc`: a
mirror's donor is taken from the same side, so that no document has items on
both sides.
"""

from __future__ import annotations

import math
import os
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from phrasenmt.data.documents import context_indices, read_docs
from phrasenmt.evaluate.lingeval import MAX_BIN as LINGEVAL_MAX_BIN
from phrasenmt.evaluate.lingeval import load_items
from phrasenmt.io import InputError, read_json, read_parallel

Item = dict[str, Any]
CONTRAPRO_MAX_BIN = 3  # ContraPro's evaluate.py bins ante distance as 0..3, >3
VOITA_MAX_BIN = 3  # ctx_dist is 1..3
EOS = "_eos"


def norm(text: str) -> str:
    """Whitespace-normalised text."""
    return " ".join(text.split())


def make_item(source: str, reference: str, contrastive: list[str],
              context: tuple[list[str], list[str]], kind: str,
              distance: int | None = None,
              contrastive_context_tgt: list[list[str]] | None = None,
              doc: str | None = None) -> Item:
    """One common item; empty context sentences are dropped; `doc`: the document
    it comes from, where the format names one."""
    ctx_src, ctx_tgt = ([norm(s) for s in side if s.strip()] for side in context)
    item = {"source": norm(source), "reference": norm(reference),
            "contrastive": [norm(c) for c in contrastive], "context_src": ctx_src,
            "context_tgt": ctx_tgt, "type": kind, "distance": distance}
    if doc is not None:
        item["doc"] = doc
    if contrastive_context_tgt is not None:
        own = [[norm(s) for s in ctx if s.strip()] for ctx in contrastive_context_tgt]
        if any(ctx != ctx_tgt for ctx in own):
            item["contrastive_context_tgt"] = own
    return item


def _field(obj: Any, key: str, kind: type | tuple, path: Path, where: str) -> Any:
    """obj[key] of the given type, else an error naming file, entry and key."""
    if not isinstance(obj, dict) or key not in obj:
        raise InputError(f"{where}: missing key {key!r}", path)
    value = obj[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise InputError(f"{where}: key {key!r} has the wrong type "
                         f"({type(value).__name__})", path)
    return value


# --- lingeval (our JSON with doc/line) ----------------------------------------

def document_sides(docs: list[str], dev_fraction: float | None, seed: int,
                   strata: dict[str, str] | None = None) -> dict[str, str]:
    """Each document's side, 'dev' or 'test': a seeded share `dev_fraction` of
    the documents (at least one, and one short of all) is dev, taken evenly from
    each stratum (`strata`: a document's kind, e.g. the distances of its items)
    so that every kind has both sides; None: all test."""
    names = sorted(set(docs))
    if dev_fraction is None:
        return dict.fromkeys(names, "test")
    order = list(names)
    random.Random(f"contrastive-sides:{seed}").shuffle(order)
    kinds = strata or {}
    order.sort(key=lambda d: kinds.get(d, ""))  # stable: each stratum shuffled
    dev = {d for i, d in enumerate(order)  # every 1/dev_fraction-th document
           if math.floor((i + 1) * dev_fraction) > math.floor(i * dev_fraction)}
    if not dev:
        dev = {order[-1]}
    if len(dev) == len(order):
        dev.discard(order[0])
    return {d: "dev" if d in dev else "test" for d in names}


def item_document(item: Item, i: int) -> str:
    """The document an item is split by: its `doc`, else the item itself."""
    return item.get("doc") or f"#item{i}"


def assign_sides(items: list[Item], dev_fraction: float | None, seed: int,
                 kinds: set[str] | None = None) -> None:
    """`split` of every item without one, by its document (`document_sides`),
    the documents stratified by the distances of their items (of `kinds`)."""
    keys = [item_document(item, i) for i, item in enumerate(items)]
    distances: dict[str, set[int]] = {}
    for item, key in zip(items, keys, strict=True):
        found = distances.setdefault(key, set())
        if kinds is None or item["type"] in kinds:
            found.add(item.get("distance") or 0)
    strata = {key: ",".join(map(str, sorted(d))) for key, d in distances.items()}
    sides = document_sides(keys, dev_fraction, seed, strata)
    for item, key in zip(items, keys, strict=True):
        item.setdefault("split", sides[key])


def read_lingeval(json_path: Path, src_text: Path, tgt_text: Path, docs: Path,
                  size: int, need_context: set[str], log=print,
                  mirror_pronouns: bool = False,
                  sides: tuple[float | None, int] = (None, 0)) -> list[Item]:
    """Items with doc/line, one per error; context = K previous document lines.
    `mirror_pronouns`: pair every pronoun_gender item with its mirror (see
    `mirror_pronoun_items`); `sides`: (dev fraction, seed) of `document_sides`,
    set before the mirrors are made (a mirror's donor is on its side)."""
    entries = load_items(json_path)
    src, tgt = read_parallel(src_text, tgt_text)
    doc_ids = read_docs(docs, len(src), src_text)
    before = context_indices(doc_ids, size)
    items, skipped, pronouns = [], 0, []
    for i, entry in enumerate(entries):
        if entry.get("doc") is None and entry.get("line") is None:
            skipped += 1
            continue
        line = _lingeval_line(entry, i, json_path, doc_ids, src, src_text)
        context = ([src[k] for k in before[line]], [tgt[k] for k in before[line]])
        for err in entry["errors"]:
            if err["type"] in need_context and size > 0 and not before[line]:
                raise InputError(f"item {i}: a {err['type']} item needs context but "
                                 f"line {line} opens document {entry['doc']!r}",
                                 json_path)
            items.append(make_item(entry["source"], entry["reference"],
                                   [err["contrastive"]], context, err["type"],
                                   err.get("distance"), doc=entry["doc"]))
            if mirror_pronouns and err["type"] == PRONOUN_TYPE:
                pronouns.append(PronounItem(len(items) - 1, entry["doc"], line,
                                            *_genders(err, i, json_path)))
    log(f"lingeval: {len(items)} items; skipped {skipped} entries without doc/line")
    assign_sides(items, *sides, need_context)
    if mirror_pronouns:
        items = mirror_pronoun_items(items, pronouns, log)
    return items


PRONOUN_TYPE = "pronoun_gender"


@dataclass
class PronounItem:
    """Where a pronoun_gender item came from, for its mirror."""

    index: int  # in the item list
    doc: str
    line: int
    gender: str  # the antecedent's (the reference pronoun's) gender
    contrastive_gender: str  # the gender the contrastive pronoun stands for


def _genders(err: dict, i: int, path: Path) -> tuple[str, str]:
    """An error's antecedent_gender and contrastive_gender (mirroring needs both)."""
    values = tuple(err.get(k) for k in ("antecedent_gender", "contrastive_gender"))
    if not all(isinstance(v, str) and v for v in values):
        raise InputError(f"item {i}: a {PRONOUN_TYPE} error without "
                         "antecedent_gender and contrastive_gender; mirrored "
                         "pronoun items need both (a synthetic corpus generated "
                         "by an older version lacks them: rerun its `synthetic` "
                         "rule)", path)
    return values  # type: ignore[return-value]


def mirror_pronoun_items(items: list[Item], pronouns: list[PronounItem],
                         log=print) -> list[Item]:
    """Pair each pronoun_gender item with its mirror, so that a model that ignores
    the context scores exactly half of the pronoun items.

    An item asks whether the reference pronoun (gender g) beats the other gender's
    form (g') given a context whose antecedent is g. Its mirror keeps the source
    and the two target sentences and swaps which one is right, by taking its
    context from another document's pronoun item whose antecedent is g' (the
    donor: the first such item after this one's line, cyclically, so the choice
    is fixed by the test set). A model that reads no context scores the two
    target sentences the same way under both contexts and so gets exactly one of
    the pair right: its pronoun accuracy is 50 %, whatever its pronoun prior. An
    item without a donor is dropped with its mirror, and the log says how many.
    The donor's antecedent is as far back as the item's (its mirror is in the
    item's distance bin, so that the model scores 50 % in every bin), and items
    with a `split` take their donor from their own side, and their mirror is on
    it too."""
    by_gender: dict[str, list[PronounItem]] = {}
    for p in sorted(pronouns, key=lambda p: p.line):
        by_gender.setdefault(p.gender, []).append(p)
    mirrors: dict[int, Item] = {}
    for p in pronouns:
        side, distance = items[p.index].get("split"), items[p.index]["distance"]
        donors = [d for d in by_gender.get(p.contrastive_gender, []) if d.doc != p.doc
                  and items[d.index].get("split") == side
                  and items[d.index]["distance"] == distance]
        if not donors:
            continue
        donor = items[next((d for d in donors if d.line > p.line), donors[0]).index]
        own = items[p.index]
        mirror = make_item(own["source"], own["contrastive"][0], [own["reference"]],
                           (donor["context_src"], donor["context_tgt"]),
                           PRONOUN_TYPE, donor["distance"], doc=own.get("doc"))
        if "doc" in donor:
            mirror["context_doc"] = donor["doc"]
        if side is not None:
            mirror["split"] = side
        mirrors[p.index] = mirror
    dropped = len(pronouns) - len(mirrors)
    wanted = {p.index for p in pronouns}
    out: list[Item] = []
    for k, item in enumerate(items):
        if k not in wanted:
            out.append(item)
        elif k in mirrors:
            out += [item, mirrors[k]]
    log(f"lingeval: {len(mirrors)} {PRONOUN_TYPE} items mirrored"
        + (f"; {dropped} dropped: no other document (on their side) has a pronoun "
           "item whose antecedent has the gender their mirror needs at their "
           "distance" if dropped else ""))
    return out


def _lingeval_line(entry: dict, i: int, path: Path, doc_ids: list[str],
                   src: list[str], src_text: Path) -> int:
    """The checked 0-based test line of an entry (its doc and source must match)."""
    line, doc = entry.get("line"), entry.get("doc")
    if not isinstance(line, int) or isinstance(line, bool) or not isinstance(doc, str):
        raise InputError(f"item {i}: 'doc' must be a string and 'line' an integer",
                         path)
    if not 0 <= line < len(doc_ids):
        raise InputError(f"item {i}: line {line} is outside the {len(doc_ids)} "
                         "test lines", path)
    if doc_ids[line] != doc:
        raise InputError(f"item {i}: test line {line} is in document "
                         f"{doc_ids[line]!r}, not {doc!r}", path)
    if norm(src[line]) != norm(entry["source"]):
        raise InputError(f"is not item {i}'s source; items and test text differ",
                         src_text, line + 1)
    return line


# --- ContraPro ------------------------------------------------------------------

def read_contrapro(json_path: Path, text: tuple[Path, Path],
                   context: tuple[Path, Path], extracted: int) -> list[Item]:
    """Items of ContraPro's extracted text/context files, one per JSON entry."""
    entries = read_json(json_path)
    if not isinstance(entries, list):
        raise InputError("expected a JSON list of entries", json_path)
    src, tgt = read_parallel(*text)
    ctx_src, ctx_tgt = read_parallel(*context)
    n_lines = sum(1 + len(_field(e, "errors", list, json_path, f"entry {i}"))
                  for i, e in enumerate(entries))
    if len(src) != n_lines:
        raise InputError(f"has {len(src)} lines but the entries of {json_path} have "
                         f"{n_lines} (a reference and one line per error each)",
                         text[0])
    if len(ctx_src) != extracted * n_lines:
        raise InputError(f"has {len(ctx_src)} lines, not {extracted} per text line "
                         f"({extracted * n_lines}); give the --context N used for "
                         "json2text_and_context.pl", context[0])
    items, k = [], 0
    for i, entry in enumerate(entries):
        items.append(_contrapro_item(entry, i, k, (src, tgt), (ctx_src, ctx_tgt),
                                     extracted, json_path, text[1]))
        k += 1 + len(entry["errors"])
    return items


def _contrapro_item(entry: dict, i: int, k: int, text: tuple[list[str], list[str]],
                    ctx: tuple[list[str], list[str]], n: int, path: Path,
                    tgt_path: Path) -> Item:
    """The item of entry i, whose reference is text line k."""
    where = f"entry {i}"
    errors = entry["errors"]
    distance = _field(entry, "ante distance", int, path, where)
    kind = (f"{_field(entry, 'src pronoun', str, path, where).lower()}:"
            f"{_field(entry, 'ref pronoun', str, path, where).lower()}")
    lines = range(k, k + 1 + len(errors))
    contexts = [tuple(side[j * n:(j + 1) * n] for side in ctx) for j in lines]
    for j, err in zip(lines[1:], errors, strict=True):
        want = _field(err, "contrastive", str, path, f"{where} error")
        if norm(text[1][j]) != norm(want) or text[0][j] != text[0][k]:
            raise InputError(f"is not {where}'s error line; were these files "
                             f"extracted from {path}?", tgt_path, j + 1)
        if contexts[j - k] != contexts[0]:
            raise InputError(f"{where}: its lines have different context lines",
                             tgt_path, j + 1)
    doc = entry.get("document id")
    item = make_item(text[0][k], text[1][k], [text[1][j] for j in lines[1:]],
                     contexts[0], kind, distance,
                     doc=None if doc is None else str(doc))
    if distance >= 1 and n >= 1 and not item["context_src"]:
        raise InputError(f"{where}: antecedent {distance} sentence(s) back but its "
                         f"{n} context line(s) are empty", path)
    return item


# --- Bawden et al. 2018 -----------------------------------------------------------

def read_bawden(current: tuple[Path, Path], prev: tuple[Path, Path],
                name: str) -> list[Item]:
    """Items of `.current`/`.prev` files: lines 2k (correct) and 2k+1 (incorrect)."""
    cur_src, cur_tgt = read_parallel(*current)
    prev_src, prev_tgt = read_parallel(*prev)
    if len(prev_src) != len(cur_src):
        raise InputError(f"has {len(prev_src)} lines but {current[0]} has "
                         f"{len(cur_src)}", prev[0])
    if len(cur_src) % 2:
        raise InputError(f"has {len(cur_src)} lines; examples are pairs of lines "
                         "(correct, incorrect)", current[0])
    items = []
    for k in range(0, len(cur_src), 2):
        for path, lines in ((current[0], cur_src), (prev[0], prev_src)):
            if lines[k] != lines[k + 1]:
                raise InputError("the two lines of an example differ in the source",
                                 path, k + 2)
        for path, lines in ((prev[0], prev_src), (prev[1], prev_tgt)):
            for j in (k, k + 1):
                if not lines[j].strip():
                    raise InputError("empty previous sentence; every example has "
                                     "one", path, j + 1)
        items.append(make_item(cur_src[k], cur_tgt[k], [cur_tgt[k + 1]],
                               ([prev_src[k]], [prev_tgt[k]]), name,
                               contrastive_context_tgt=[[prev_tgt[k + 1]]]))
    return items


# --- Voita et al. 2019 ------------------------------------------------------------

def split_eos(text: str) -> list[str]:
    """Sentences of an ` _eos `-joined line."""
    out, current = [], []
    for token in text.split():
        if token == EOS:
            out.append(" ".join(current))
            current = []
        else:
            current.append(token)
    return [*out, " ".join(current)]


def read_voita(json_path: Path, name: str,
               scoring: tuple[Path, Path] | None = None) -> list[Item]:
    """Items of a consistency set, one per group (the true candidate first)."""
    groups = read_json(json_path)
    if not isinstance(groups, list):
        raise InputError("expected a JSON list of groups", json_path)
    items = [_voita_item(g, i, json_path, name) for i, g in enumerate(groups)]
    if scoring is not None:
        _check_voita_lines(groups, scoring)
    return items


def _voita_item(group: Any, i: int, path: Path, name: str) -> Item:
    """The item of one group."""
    where = f"group {i}"
    src = _field(group, "src", str, path, where)
    dst = _field(group, "dst", list, path, where)
    true = _field(group, "true_ind", int, path, where)
    dist = group.get("ctx_dist")
    if len(dst) < 2 or not 0 <= true < len(dst) or not all(
            isinstance(d, str) for d in dst):
        raise InputError(f"{where}: needs two or more 'dst' strings and a 'true_ind' "
                         "among them", path)
    sentences = [split_eos(src)] + [split_eos(d) for d in dst]
    if any(len(s) < 2 for s in sentences) or not all(s[-1] for s in sentences):
        raise InputError(f"{where}: every line needs context sentences and a "
                         f"current sentence joined by ' {EOS} '", path)
    ref, others = sentences[1 + true], [s for k, s in enumerate(sentences[1:])
                                        if k != true]
    return make_item(sentences[0][-1], ref[-1], [s[-1] for s in others],
                     (sentences[0][:-1], ref[:-1]), name,
                     dist if isinstance(dist, int) else None,
                     contrastive_context_tgt=[s[:-1] for s in others])


def _check_voita_lines(groups: list[dict], scoring: tuple[Path, Path]) -> None:
    """The scoring files must be the groups' candidates in order, source repeated."""
    src, dst = read_parallel(*scoring)
    want = [(g["src"], d) for g in groups for d in g["dst"]]
    if len(src) != len(want):
        raise InputError(f"has {len(src)} lines but the groups have {len(want)} "
                         "candidates", scoring[0])
    for n, ((s, d), (ws, wd)) in enumerate(zip(zip(src, dst), want), start=1):
        for path, got, expected in ((scoring[0], s, ws), (scoring[1], d, wd)):
            if norm(got) != norm(expected):
                raise InputError("differs from the JSON's candidate line", path, n)


def max_bin(fmt: str) -> int | None:
    """The last distance bin of a format (larger distances share `>N`)."""
    return {"lingeval": LINGEVAL_MAX_BIN, "contrapro": CONTRAPRO_MAX_BIN,
            "voita": VOITA_MAX_BIN}.get(fmt)


def stem(path: str | os.PathLike, suffix: str) -> str:
    """A set's name from its file name: the part before `suffix` (or the stem)."""
    name = Path(path).name
    return name.split(suffix)[0] if suffix in name else Path(path).stem
