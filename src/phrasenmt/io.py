"""Shared file handling: clear input errors, validated reading, atomic writes."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

_UMASK = os.umask(0)
os.umask(_UMASK)


class InputError(Exception):
    """A user-facing error about bad input, naming the file and (optionally) line."""

    def __init__(self, message: str, path: str | os.PathLike | None = None,
                 line: int | None = None):
        self.message, self.path, self.line = message, path, line
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = f"{self.path}:{self.line}: " if self.line else f"{self.path}: "
        return f"{where}{self.message}"


def read_lines(path: str | os.PathLike, allow_empty: bool = True,
               max_tokens: int | None = None) -> list[str]:
    """Read a UTF-8 text file into stripped lines; bad bytes/empty/long lines raise."""
    path = Path(path)
    if not path.is_file():
        raise InputError("file not found", path)
    lines = []
    with open(path, "rb") as fh:
        for n, raw in enumerate(fh, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise InputError(f"invalid UTF-8 at byte {err.start}", path, n) from None
            text = text.rstrip("\r\n")
            if not allow_empty and not text.strip():
                raise InputError("empty line", path, n)
            if max_tokens is not None and len(text.split()) > max_tokens:
                raise InputError(
                    f"line has {len(text.split())} tokens, more than {max_tokens}",
                    path, n)
            lines.append(text)
    return lines


def read_parallel(src: str | os.PathLike, tgt: str | os.PathLike,
                  **kwargs) -> tuple[list[str], list[str]]:
    """Read two line-aligned files; a line-count mismatch raises naming both files."""
    a, b = read_lines(src, **kwargs), read_lines(tgt, **kwargs)
    if len(a) != len(b):
        raise InputError(
            f"has {len(a)} lines but {tgt} has {len(b)}; parallel files must match",
            src)
    return a, b


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temp path next to `path`; rename it over `path` only on success."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes 0600; give files the usual mode
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w",
                encoding: str | None = "utf-8") -> Iterator[IO]:
    """Open a file for writing that appears at `path` only when fully written."""
    if "b" in mode:
        encoding = None
    with atomic_path(path) as tmp, open(tmp, mode, encoding=encoding) as fh:
        yield fh
        fh.flush()
        os.fsync(fh.fileno())


def write_lines(path: str | os.PathLike, lines: list[str]) -> None:
    """Atomically write lines, one per line, with a trailing newline."""
    with atomic_open(path) as fh:
        for line in lines:
            fh.write(line + "\n")


def run_cli(main: Callable[[list[str] | None], int | None],
            argv: list[str] | None = None) -> None:
    """Run a CLI entry point; InputError becomes one line on stderr and exit 1."""
    try:
        code = main(argv)
    except InputError as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(1)
    sys.exit(code or 0)
