"""Reading raw corpus files: normalised lines, archive members, paired writing."""

from __future__ import annotations

import contextlib
import itertools
import re
import tarfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

from phrasenmt.io import InputError, atomic_open, output_set

# characters Python or text-mode readers treat as line breaks inside one line
_BREAKS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
DOCS = "docs"  # the `--lang` value (and file extension) of the document ids

Pair = tuple[Iterable[str], Iterable[str]]


class Split(NamedTuple):
    """One split a preparer yields: parallel lines and, where known, document ids."""

    name: str
    src: Iterable[str]
    tgt: Iterable[str]
    docs: list[str] | None = None  # None: every line is its own document


def line_docs(split: str, n: int) -> list[str]:
    """Document ids of a split without documents: one document per line."""
    return [f"{split}-{i:06d}" for i in range(n)]


def one_line(text: str) -> str:
    """Normalise a line: no embedded line breaks, no surrounding whitespace."""
    return _BREAKS.sub(" ", text).strip()


def _decode(raw: bytes, where: str, n: int) -> str:
    """Decode UTF-8 or raise naming the file and line."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(f"invalid UTF-8 at byte {err.start}", where, n) from None


def iter_text(fh, where: str) -> Iterator[str]:
    """Yield normalised lines of a binary stream, splitting on newline only."""
    for n, raw in enumerate(fh, start=1):
        yield one_line(_decode(raw, where, n))


def write_pair(out_src: Path, out_tgt: Path | None, pair: Pair) -> int:
    """Write two line iterables atomically (tgt may be None: only counted).

    Unequal lengths raise and leave nothing written.
    """
    tgt_ctx = atomic_open(out_tgt) if out_tgt else contextlib.nullcontext(None)
    with output_set(), atomic_open(out_src) as fs, tgt_ctx as ft:
        n = 0
        for n, (a, b) in enumerate(itertools.zip_longest(*pair), start=1):
            if a is None or b is None:
                short = out_src if a is None else out_tgt or "the other side"
                raise InputError(f"ends before line {n} while its parallel side "
                                 "goes on; line counts must be equal", short)
            fs.write(a + "\n")
            if ft is not None:
                ft.write(b + "\n")
    return n


def require(path: Path) -> Path:
    """Return path if it is a file, else raise saying to run the download step."""
    if not path.is_file():
        raise InputError("not found; run `python -m phrasenmt.data.download` first",
                         path)
    return path


def member(tar: tarfile.TarFile, basename: str, archive: Path) -> tarfile.TarInfo:
    """Find the archive member with this file name (any folder)."""
    for info in tar.getmembers():
        if info.isfile() and info.name.rsplit("/", 1)[-1] == basename:
            return info
    raise InputError(f"archive has no member named {basename}", archive)


def tar_lines(tar: tarfile.TarFile, info: tarfile.TarInfo, where: str) -> list[str]:
    """All normalised lines of one archive member."""
    fh = tar.extractfile(info)
    return list(iter_text(fh, f"{where}:{info.name}"))
