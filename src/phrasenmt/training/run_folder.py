"""A training run's folder: one writer at a time, and what a crash leaves behind.

`RunLock` holds an exclusive `flock` on `<run>/.training.lock` for as long as a
training writes the folder; a second training into the same folder (two seeds
by mistake, a requeued job racing its predecessor) fails at once with one line
naming the folder and the holder's pid. The kernel drops the lock when its
process dies, so a lock file left by a killed job never blocks the next one.
Under the lock, `remove_stale_temps` deletes the temp files of writes a kill
interrupted, and `metrics_rows` reads back a metrics.tsv whose tail a crash
damaged (NUL bytes, a cut row) keeping every whole row.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import socket
from pathlib import Path
from typing import Self

from phrasenmt.io import InputError, make_dir, naming, remove_created
from phrasenmt.log import get_logger

_log = get_logger(__name__)

LOCK_NAME = ".training.lock"
# what `phrasenmt.io.atomic_path` names its temp files: .<name>.<8 random>.tmp
_TEMP = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp$")
_ROW = re.compile(r"^[0-9]+\t")  # a step, then as many fields as the header
_HELD: set[str] = set()  # run folders locked by this process


class RunLock:
    """An exclusive lock on a run folder while a training writes it (re-entrant
    within one process, so `phrasenmt.train` can lock before loading the data and
    `Trainer.run` lock again). Folders it created are removed again if empty."""

    def __init__(self, folder: str | os.PathLike):
        self.folder = Path(folder)
        self.path = self.folder / LOCK_NAME
        self._fd: int | None = None
        self._made: list[Path] = []

    def __enter__(self) -> Self:
        key = os.path.realpath(self.folder)
        if key in _HELD:
            return self  # the outer RunLock of this process holds it
        self._made = [p for p in (self.folder, *self.folder.parents)
                      if not p.exists()]
        make_dir(self.folder)
        try:
            self._fd = self._acquire()
        except BaseException:
            remove_created(self._made)
            raise
        _HELD.add(key)
        return self

    def _acquire(self) -> int:
        """Open, lock and stamp the lock file; retry if it was replaced meanwhile."""
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
            except OSError as err:
                raise naming(err, self.path) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.read(fd, 200).decode("utf-8", "replace").strip()
                os.close(fd)
                raise InputError(
                    f"another training ({holder or 'pid unknown'}) is writing to "
                    "this run folder; wait for it to finish, or give this run "
                    "another --outdir", self.folder) from None
            # The holder before us may have unlinked the file as we opened it.
            with contextlib.suppress(FileNotFoundError):
                if os.fstat(fd).st_ino == os.stat(self.path).st_ino:
                    break
            os.close(fd)
        os.ftruncate(fd, 0)
        os.write(fd, f"pid {os.getpid()} on {socket.gethostname()}\n".encode())
        return fd

    def __exit__(self, *exc: object) -> None:
        if self._fd is None:
            return
        _HELD.discard(os.path.realpath(self.folder))
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()  # while still locked: no one else can hold it
        os.close(self._fd)
        self._fd = None
        remove_created(self._made)


def remove_stale_temps(*folders: Path) -> list[Path]:
    """Delete temp files of interrupted atomic writes; call only under the lock."""
    removed = []
    for folder in folders:
        if folder.is_dir():
            for path in sorted(folder.iterdir()):
                if _TEMP.match(path.name) and path.is_file():
                    path.unlink(missing_ok=True)
                    removed.append(path)
    return removed


def metrics_rows(path: Path, up_to: int) -> list[str]:
    """Whole rows of a metrics.tsv up to step `up_to`; damaged rows are dropped.

    A crash can leave NUL bytes or a cut row at the end of the file (the
    resumed run writes those steps again); each damaged row is reported once
    on stderr, never silently kept.
    """
    raw = path.read_bytes() if path.is_file() else b""
    lines = raw.split(b"\n")
    columns = lines[0].count(b"\t")  # a row has as many fields as the header
    rows, damaged = [], []
    for n, line in enumerate(lines[1:], start=2):
        text = line.decode("utf-8", "replace").rstrip("\r")
        if not text:
            continue
        whole = _ROW.match(text) and text.count("\t") == columns
        if not whole or "\ufffd" in text or "\0" in text:
            damaged.append(n)
        elif int(text.split("\t", 1)[0]) <= up_to:
            rows.append(text)
    if damaged:
        more = " ..." if len(damaged) > 1 else ""
        _log.warning(f"{path}: dropped {len(damaged)} damaged row(s) (line "
                     f"{damaged[0]}{more}; a crash cut the file); resuming from step "
                     f"{up_to}")
    return rows
