"""Shared file handling: clear input errors, validated reading, atomic writes."""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import tempfile
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any, Self

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


BOM = "\ufeff"  # a UTF-8 byte-order mark, as Windows editors write it

# Bidirectional formatting controls (LRM, RLM, ALM, the embeddings and overrides
# LRE..RLO with PDF, the isolates LRI..PDI): invisible, they only steer how a
# renderer orders text. A tokenizer makes each one an invisible token of its own.
BIDI_CONTROLS = "\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_BIDI = re.compile(f"[{BIDI_CONTROLS}]")


def strip_bidi_controls(text: str, removed: Counter | None = None) -> str:
    """`text` without bidirectional controls; each removed one counted in `removed`."""
    if text.isascii():
        return text
    if removed is not None:
        removed.update(_BIDI.findall(text))
    return _BIDI.sub("", text)


def describe_removed(removed: Counter) -> str:
    """"3 bidirectional control characters (2 U+200F RIGHT-TO-LEFT MARK, ...)"."""
    total = sum(removed.values())
    kinds = ", ".join(f"{n} U+{ord(c):04X} {unicodedata.name(c)}"
                      for c, n in removed.most_common())
    plural = "s" if total != 1 else ""
    return f"{total} bidirectional control character{plural} ({kinds})"


def check_text(text: str, path: str | os.PathLike, line: int,
               removed: Counter | None = None) -> str:
    """One decoded line without its line end; BOM (line 1 only), NUL and CR checked,
    bidirectional controls removed (counted in `removed`).

    A byte-order mark at the very start of a file is dropped (it is an encoding
    signature, not text); anywhere else it, a NUL byte or a lone carriage return
    (old Mac line ends, or Windows line ends inside a line) would silently
    become part of a token, so they are rejected. Bidirectional controls are
    display hints common in Arabic, Hebrew and Persian text; every reader drops
    them, so no stage ever sees one as a token (the first step that reads a
    file logs how many it had: `phrasenmt.data.local` for a local corpus,
    `phrasenmt.data.clean` otherwise).
    """
    text = text.removesuffix("\n").removesuffix("\r")
    if line == 1:
        text = text.removeprefix(BOM)
    for char, what in (("\0", "NUL byte"), (BOM, "byte-order mark"),
                       ("\r", "carriage return (a line ending inside the line)")):
        if char in text:
            raise InputError(f"{what} at column {text.index(char) + 1}", path, line)
    return strip_bidi_controls(text, removed)


# The leading bytes of compressed files and archives, with the command that
# unpacks each: corpora often come as WMT's .gz, .xz or .tgz files.
COMPRESSED = ((b"\x1f\x8b", "gzip-compressed", "gunzip"),
              (b"BZh", "bzip2-compressed", "bunzip2"),
              (b"\xfd7zXZ\x00", "xz-compressed", "unxz"),
              (b"\x28\xb5\x2f\xfd", "zstd-compressed", "unzstd"),
              (b"PK\x03\x04", "a zip archive", "unzip"))


def decode_line(raw: bytes, path: str | os.PathLike, line: int) -> str:
    """UTF-8-decode one raw line; UTF-16, compressed files and other encodings
    raise naming what the file is."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        if line == 1 and raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
            raise InputError("UTF-16 text; convert it to UTF-8", path, 1) from None
        for magic, what, unpack in COMPRESSED if line == 1 else ():
            if raw.startswith(magic):
                raise InputError(f"{what}, not text: unpack it first ({unpack}) and "
                                 "give the text file", path) from None
        raise InputError(f"invalid UTF-8 at byte {err.start}", path, line) from None


def _check_input_file(path: Path) -> None:
    """A missing path or a folder given as an input file raises InputError."""
    if path.is_dir():
        raise InputError("is a folder, not a file", path)
    if not path.is_file():
        raise InputError("file not found", path)


def blank(text: str) -> bool:
    """A line with nothing to translate: empty, spaces, or only invisible format
    characters (zero-width space, word joiner, soft hyphen: Unicode category
    Cf), which a tokenizer would make tokens of their own."""
    if not text.strip():
        return True
    return not text.isascii() and all(c.isspace() or unicodedata.category(c) == "Cf"
                                      for c in text)


def blank_line_error(text: str, path: object, n: int) -> InputError:
    """"empty line", naming the invisible characters a line holds, if any."""
    codes = sorted({f"U+{ord(c):04X}" for c in text if not c.isspace()})
    if codes:
        return InputError("empty line: it holds only invisible format characters "
                          f"({', '.join(codes)})", path, n)
    return InputError("empty line", path, n)


def read_lines(path: str | os.PathLike, allow_empty: bool = True,
               max_tokens: int | None = None,
               removed: Counter | None = None) -> list[str]:
    """Read a UTF-8 text file into lines; bad bytes/empty/long lines raise.

    The bidirectional controls `check_text` removes are counted in `removed`.
    """
    path = Path(path)
    _check_input_file(path)
    lines = []
    with open(path, "rb") as fh:
        for n, raw in enumerate(fh, start=1):
            decoded = decode_line(raw, path, n)
            text = check_text(decoded, path, n, removed)
            if not allow_empty and blank(text):  # naming the controls it held too
                raise blank_line_error(decoded.rstrip("\r\n").removeprefix(BOM), path, n)
            if max_tokens is not None and len(text.split()) > max_tokens:
                raise InputError(
                    f"line has {len(text.split())} tokens, more than {max_tokens}",
                    path, n)
            lines.append(text)
    return lines


def read_nonempty_lines(path: str | os.PathLike, what: str = "lines",
                        **kwargs) -> list[str]:
    """`read_lines`, but a file without a line raises ("the file is empty: no ...")."""
    lines = read_lines(path, **kwargs)
    if not lines:
        raise InputError(f"the file is empty: no {what}", path)
    return lines


def count_lines(path: str | os.PathLike) -> int:
    """Lines of a file, counted fast (a last line without its newline counts)."""
    path = Path(path)
    _check_input_file(path)
    count, last = 0, b"\n"
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 22), b""):
            count += chunk.count(b"\n")
            last = chunk[-1:]
    return count + (last != b"\n")


def safe_yaml_loader() -> type:
    """PyYAML's safe loader, libyaml's where PyYAML was built with it (the same
    documents, about ten times faster); yaml is imported when first asked for."""
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_text(path: str | os.PathLike) -> str:
    """A whole UTF-8 text file (JSON, YAML, ...), checked line by line as above."""
    return "".join(line + "\n" for line in read_lines(path))


def parse_json(text: str, path: str | os.PathLike, line: int | None = None) -> Any:
    """Parse JSON; bad syntax, NaN/Infinity or deep nesting raise naming the file."""
    def no_constants(name: str) -> None:  # Python's json takes NaN, Infinity
        raise InputError(f"{name} is not a JSON number", path, line)

    try:
        return json.loads(text, parse_constant=no_constants)
    except json.JSONDecodeError as err:
        raise InputError(f"invalid JSON: {err.msg}", path,
                         line or err.lineno) from None
    except RecursionError:
        raise InputError("invalid JSON: nested too deeply", path, line) from None


def read_json(path: str | os.PathLike) -> Any:
    """Parse a JSON file (checked as text first: UTF-8, BOM, NUL)."""
    return parse_json(read_text(path), path)


def ends_with_newline(path: Path) -> bool:
    """Whether a file's last byte is a line feed."""
    with open(path, "rb") as fh:
        fh.seek(-1, os.SEEK_END)
        return fh.read(1) == b"\n"


def read_table_lines(path: str | os.PathLike) -> list[str]:
    """The lines of a table a stage wrote (TSV, CSV), as `read_lines`; a last line
    without its newline raises. Every writer ends each row with one, so such a
    file was cut inside its last row, which a parser would take for a whole row
    (a score `0.17` read as `0.`, a missing cell as NaN)."""
    lines = read_lines(path)
    if lines and not ends_with_newline(Path(path)):
        raise InputError("the last line has no newline: the file was cut short?",
                         path, len(lines))
    return lines


def read_table_text(path: str | os.PathLike) -> str:
    """A whole table file as text, checked by `read_table_lines`."""
    return "".join(line + "\n" for line in read_table_lines(path))


def read_tsv(path: str | os.PathLike, columns: Sequence[str] = (),
             **read_csv_args) -> Any:
    """A tab-separated table as a DataFrame, checked as text first; columns needed.

    pandas alone would read carriage returns as line ends and NUL bytes as text,
    so the file goes through `read_table_text` (UTF-8, BOM, NUL, CR, a last row
    cut short) before parsing.
    """
    import io

    import pandas as pd  # here: most CLIs never read a table

    text = read_table_text(path)
    try:
        df = pd.read_csv(io.StringIO(text), sep="\t", **read_csv_args)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as err:
        msg = str(err).strip().splitlines()[0] if str(err).strip() else "no table"
        raise InputError(f"not a readable TSV ({msg})", path) from None
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise InputError(f"missing column(s) {', '.join(missing)}", path)
    return df


def read_parallel(src: str | os.PathLike, tgt: str | os.PathLike,
                  **kwargs) -> tuple[list[str], list[str]]:
    """Read two line-aligned files; a line-count mismatch raises naming both files."""
    a, b = read_lines(src, **kwargs), read_lines(tgt, **kwargs)
    if len(a) != len(b):
        raise InputError(
            f"has {len(a)} lines but {tgt} has {len(b)}; parallel files must match",
            src)
    return a, b


def make_dir(path: str | os.PathLike) -> Path:
    """Create a folder (and its parents); a file in the way raises InputError."""
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocker = next(p for p in (path, *path.parents) if p.exists())
        raise InputError(f"cannot create this folder: {blocker} is a file",
                         path) from None
    return path


def check_output_file(path: str | os.PathLike) -> None:
    """Raise if `path` cannot be written as a file: a folder, or a file in the way
    of its folder. Changes nothing on disk (unlike `make_dir`)."""
    path = Path(path)
    if path.is_dir():
        raise InputError("is a folder; expected a file path to write", path)
    blocker = next((p for p in path.parents if p.exists()), None)
    if blocker is not None and not blocker.is_dir():
        raise InputError(f"cannot create this folder: {blocker} is a file",
                         path.parent)


# The output sets open now (outermost first): each holds (temp, target) pairs
# whose renames wait until the outermost set ends; see `output_set`.
_OPEN_SETS: list[list[tuple[Path, Path]]] = []


def _same_file_key(path: Path) -> str:
    """One spelling per file: '..', symlinks and relative paths resolved."""
    return os.path.realpath(path)


@contextlib.contextmanager
def output_set() -> Iterator[None]:
    """Let the files written in this block appear together, or none of them.

    Inside it, `atomic_path` (and so `atomic_open`, `write_lines`, ...) keeps
    each finished, fsynced temp file; only when the whole block has ended
    without an error are they renamed over their targets, in the order they
    were finished. An error (a full disk on the third file, a bad value found
    after the first table was written) removes every temp file, so no target
    is touched. A set opened inside another joins it. A file named twice in
    one set raises InputError: the second write would silently replace the
    first.
    """
    if _OPEN_SETS:  # nested: the outermost set renames
        yield
        return
    pending: list[tuple[Path, Path]] = []
    _OPEN_SETS.append(pending)
    try:
        yield
    except BaseException:
        for tmp, _ in pending:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        raise
    finally:
        _OPEN_SETS.pop()
    _rename_all(pending)


def _rename_all(pending: list[tuple[Path, Path]]) -> None:
    """Rename every temp over its target; a failed rename undoes the set.

    Renames within one file system do not fail for want of space, but one can
    fail (a target made read-only meanwhile): then the targets renamed so far
    are removed too, so the set is never half old, half new.
    """
    for n, (tmp, path) in enumerate(pending):
        try:
            os.replace(tmp, path)
        except OSError as err:
            for _, done in pending[:n]:
                with contextlib.suppress(OSError):
                    os.unlink(done)
            for rest, _ in pending[n:]:
                with contextlib.suppress(OSError):
                    os.unlink(rest)
            raise naming(err, path) from None


def _claim(path: Path) -> None:
    """Refuse a second write to a file of the open output set."""
    key = _same_file_key(path)
    if any(_same_file_key(target) == key for _, target in _OPEN_SETS[0]):
        raise InputError("written twice by one command: two of its outputs name "
                         "this file", path)


def _fsync(path: str | os.PathLike) -> None:
    """Flush a written file's bytes to the disk (a full disk may show here)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# Names of a process's own streams: written into, never replaced (where one is
# redirected to a file, replacing that file would cut off the shell's output).
_STREAMS = ("/dev/stdout", "/dev/stderr")


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temp path next to `path`; rename it over `path` only on success.

    Inside an `output_set` the rename waits for the end of the set.
    """
    path = Path(path)
    if str(path) in _STREAMS or str(path).startswith(("/dev/fd/", "/proc/self/fd/")) or (
            path.exists() and not path.is_file() and not path.is_dir()):
        yield path  # /dev/stdout, a pipe or a device: written as it is, no rename
        return
    if path.is_symlink():  # replace the file the link points to, not the link
        path = Path(os.path.realpath(path))
    check_output_file(path)
    if _OPEN_SETS:
        _claim(path)
    make_dir(path.parent)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp",
                                   dir=path.parent)
    except OSError as err:  # it names the temp file, which the user never gave
        raise naming(err, path) from None
    os.close(fd)
    os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes 0600; give files the usual mode
    try:
        yield Path(tmp)
        _fsync(tmp)
        if _OPEN_SETS:
            _OPEN_SETS[0].append((Path(tmp), path))
        else:
            os.replace(tmp, path)
    except BaseException as err:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(err, OSError) and (err.filename is None
                                         or str(err.filename) == tmp):
            raise naming(err, path) from None
        raise


def naming(err: OSError, path: str | os.PathLike) -> OSError:
    """`err` (a write's OS error, which names no file or a temp file) naming `path`.

    A full disk surfaces in `write()` or `flush()` of an open file, whose OSError
    carries no file name; `run_cli` can then say which file it was.
    """
    return OSError(err.errno, err.strerror or str(err), os.fspath(path))


class AppendFile:
    """A text file opened for appending whose write errors name the file.

    For logs written as training goes (metrics.tsv); every `write` is flushed,
    so a full disk is reported at the row that did not fit.
    """

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        try:
            self._fh = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
        except OSError as err:
            raise naming(err, self.path) from None

    def write(self, text: str) -> None:
        """Append `text` and flush it to the OS."""
        try:
            self._fh.write(text)
            self._fh.flush()
        except OSError as err:
            raise naming(err, self.path) from None

    def close(self) -> None:
        """Close the file."""
        try:
            self._fh.close()
        except OSError as err:
            raise naming(err, self.path) from None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w",
                encoding: str | None = "utf-8") -> Iterator[IO]:
    """Open a file for writing that appears at `path` only when fully written."""
    if "b" in mode:
        encoding = None
    if str(path) in _STREAMS:  # through this process's own stream, at its offset
        stream = sys.stdout if str(path) == "/dev/stdout" else sys.stderr
        yield stream.buffer if "b" in mode else stream
        stream.flush()
        return
    with atomic_path(path) as tmp, open(tmp, mode, encoding=encoding) as fh:
        yield fh
        fh.flush()
        if os.path.isfile(tmp):  # a pipe or a device has no disk to sync
            os.fsync(fh.fileno())


def write_lines(path: str | os.PathLike, lines: list[str]) -> None:
    """Atomically write lines, one per line, with a trailing newline."""
    with atomic_open(path) as fh:
        for line in lines:
            fh.write(line + "\n")


def write_all(outputs: list[tuple[str | os.PathLike, list[str]]]) -> None:
    """Write several files of lines; they appear only if all were written.

    Every target is checked (not a folder, folder creatable) before anything
    is written, and the files are written as one `output_set`.
    """
    for path, _ in outputs:  # before any temp file is made (or folder touched)
        check_output_file(path)
    with output_set():
        for path, lines in outputs:
            write_lines(path, lines)


def remove_created(paths: list[Path]) -> None:
    """Undo a failed start: remove these files, then these folders if empty."""
    for path in sorted(paths, key=lambda p: len(p.parts), reverse=True):
        with contextlib.suppress(OSError):  # gone already, or a folder not empty
            path.rmdir() if path.is_dir() else path.unlink()


def run_cli(main: Callable[[list[str] | None], int | None],
            argv: list[str] | None = None) -> None:
    """Run a CLI entry point; InputError or a file's OSError: one line, exit 1."""
    try:
        code = main(argv)
    except InputError as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(1)
    except OSError as err:  # a file system refusal (permissions, disk full, ...)
        if err.filename is None and err.errno is None:
            raise  # not from the OS: a bug, keep its traceback
        where = f"{err.filename}: " if err.filename is not None else ""
        print(f"error: {where}{err.strerror or err}", file=sys.stderr)
        sys.exit(1)
    sys.exit(code or 0)
