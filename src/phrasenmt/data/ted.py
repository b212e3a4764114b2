"""IWSLT TED files: talk-segmented `train.tags` and `<doc>`/`<seg>` XML/sgm sets.

A `train.tags.*` file is a run of talks, each opened by a header of tag lines
(`<url>`, `<keywords>`, `<speaker>`, `<talkid>`, `<title>`, `<description>`,
...). A talk starts at its `<url>` line (or at a `<talkid>` line when the talk
being read already has an id); its document id is the text of its `<talkid>`.
Which lines survive is the caller's filter (fairseq's for IWSLT14, text lines
only for IWSLT17); each kept line carries the id of the talk it is in. A talk id
seen twice in one file gets `.2`, `.3`, ... so every document is contiguous.

In the dev/test XML (and WMT sgm) files each `<seg>` belongs to the `<doc
docid="...">` that encloses it.
"""

from __future__ import annotations

import re
import tarfile
from collections.abc import Callable, Iterable
from pathlib import Path

from phrasenmt.data.archives import Split, member, tar_lines
from phrasenmt.io import InputError

_SEG = re.compile(r'<seg id="?\d+"?>\s*(.*?)\s*</seg>')
_DOC = re.compile(r'<doc\b[^>]*\bdocid="([^"]*)"')
_TALKID = re.compile(r"<talkid>\s*(.*?)\s*</talkid>")
_FAIRSEQ_DROP = ("<url>", "<talkid>", "<keywords>")
_FAIRSEQ_STRIP = re.compile(r"</?(title|description)>")
IWSLT_VALID_EVERY = 23  # fairseq: every 23rd training pair is dev

# line -> the text to keep, or None to drop the line
LineFilter = Callable[[str], str | None]


def fairseq_filter(line: str) -> str | None:
    """fairseq's prepare-iwslt14.sh: drop url/talkid/keywords, strip title tags."""
    if any(tag in line for tag in _FAIRSEQ_DROP):
        return None
    return _FAIRSEQ_STRIP.sub("", line).strip()


def text_only_filter(line: str) -> str | None:
    """Keep only text lines: every line that opens with a tag is header."""
    return None if line.lstrip().startswith("<") else line


def talk_lines(lines: Iterable[str], keep: LineFilter, where: str
               ) -> tuple[list[str], list[str]]:
    """(kept lines, talk id of each kept line) of one train.tags file."""
    kept: list[str] = []
    talk_of: list[int] = []  # per kept line, the index of its talk in `ids`
    ids: list[str | None] = []
    for n, line in enumerate(lines, start=1):
        m = _TALKID.search(line)
        if "<url>" in line or (m and (not ids or ids[-1] is not None)):
            ids.append(None)
        if m:
            ids[-1] = m.group(1)
        text = keep(line)
        if text is None:
            continue
        if not ids:
            raise InputError("text before the first talk header (<url> or "
                             "<talkid>)", where, n)
        kept.append(text)
        talk_of.append(len(ids) - 1)
    return kept, [_names(ids, where)[k] for k in talk_of]


def _names(ids: list[str | None], where: str) -> list[str]:
    """One unique, one-token name per talk: its talk id, `.k` on repeats."""
    seen: dict[str, int] = {}
    names = []
    for k, talk in enumerate(ids, start=1):
        if talk is None or not talk.split():
            raise InputError(f"talk {k} has no <talkid>", where)
        base = "_".join(talk.split())
        seen[base] = seen.get(base, 0) + 1
        names.append(base if seen[base] == 1 else f"{base}.{seen[base]}")
    return names


def sgm_documents(lines: Iterable[str], where: str, prefix: str = ""
                  ) -> tuple[list[str], list[str]]:
    """(segments, document id of each) of an sgm/xml file, curly apostrophe fixed.

    Ids are `prefix` + docid, so sets concatenated into one split stay distinct.
    """
    segs: list[str] = []
    docs: list[str] = []
    doc = None
    for n, line in enumerate(lines, start=1):
        if m := _DOC.search(line):
            doc = prefix + "_".join(m.group(1).split())
        if m := _SEG.search(line):
            if doc is None:
                raise InputError("<seg> outside any <doc docid=...>", where, n)
            segs.append(m.group(1).replace("\u2019", "'"))
            docs.append(doc)
    return segs, docs


def sgm_segments(lines: Iterable[str]) -> list[str]:
    """Contents of the <seg> elements of an sgm/xml file, curly apostrophe fixed."""
    return [m.group(1).replace("\u2019", "'") for line in lines
            if (m := _SEG.search(line))]


def iwslt_split(src: list[str], tgt: list[str], docs: list[str]) -> list[Split]:
    """Drop pairs with an empty side, then every 23rd pair is dev, the rest train.

    Document ids follow their lines, so dev documents are every 23rd line of a talk.
    """
    kept = [i for i, (a, b) in enumerate(zip(src, tgt, strict=True)) if a and b]
    parts = {"train": [i for n, i in enumerate(kept, 1) if n % IWSLT_VALID_EVERY],
             "dev": [i for n, i in enumerate(kept, 1) if not n % IWSLT_VALID_EVERY]}
    return [Split(name, [src[i] for i in rows], [tgt[i] for i in rows],
                  [docs[i] for i in rows]) for name, rows in parts.items()]


def _tags_side(tar: tarfile.TarFile, archive: Path, basename: str,
               keep: LineFilter) -> tuple[list[str], list[str]]:
    """Kept lines and talk ids of one train.tags member."""
    info = member(tar, basename, archive)
    return talk_lines(tar_lines(tar, info, str(archive)), keep,
                      f"{archive}:{info.name}")


def ted_train(tar: tarfile.TarFile, archive: Path, stem: str, langs: tuple[str, str],
              keep: LineFilter) -> tuple[list[str], list[str], list[str]]:
    """(src lines, tgt lines, talk ids) of `{stem}.{lang}`; both sides must agree."""
    (a, docs_a), (b, docs_b) = (_tags_side(tar, archive, f"{stem}.{lang}", keep)
                                for lang in langs)
    if len(a) != len(b):
        raise InputError(f"{stem}.{langs[0]}/.{langs[1]} differ in line count "
                         "after dropping tag lines", archive)
    if docs_a != docs_b:
        n = next(i for i, (x, y) in enumerate(zip(docs_a, docs_b), 1) if x != y)
        raise InputError(f"{stem}.{langs[0]}/.{langs[1]}: talk boundaries differ at "
                         f"kept line {n}", archive)
    return a, b, docs_a


def ted_set(tar: tarfile.TarFile, archive: Path, names: Iterable[str],
            pattern: str, langs: tuple[str, str]) -> tuple[list[str], ...]:
    """(src, tgt, doc ids) of XML sets concatenated; ids are `SET#docid`."""
    out: tuple[list[str], ...] = ([], [], [])
    for name in names:
        sides = []
        for lang in langs:
            info = member(tar, pattern.format(name=name, lang=lang), archive)
            sides.append(sgm_documents(tar_lines(tar, info, str(archive)),
                                       f"{archive}:{info.name}", f"{name}#"))
        (a, docs), (b, _) = sides
        if len(a) != len(b):
            raise InputError(f"{name}: .{langs[0]} has {len(a)} segments but "
                             f".{langs[1]} has {len(b)}", archive)
        for part, lines in zip(out, (a, b, docs), strict=True):
            part.extend(lines)
    return out
