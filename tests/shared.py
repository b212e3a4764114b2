"""What the test processes of one pytest run share: a folder, and work done once.

`make test` runs the suite in two worker processes (pytest-xdist), and a plain
`pytest` in one. Either way, the first process of a run creates a folder and
names it in PHRASENMT_TEST_SHARED, which the workers inherit; everything made
once per pytest run lives there: the background tiny runs
(tests/workflow/conftest.py), each config's dry run (tests/workflow/plans.py)
and the HTML report. `once(name, make)` makes a thing under a lock, so that two
workers never make it twice; the process that created the folder removes it
(and stops the runs still going) when the pytest run ends.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ENV = "PHRASENMT_TEST_SHARED"
_OWNED: list[Path] = []


def begin() -> None:
    """Create this pytest run's folder unless a parent process has (pytest_configure)."""
    if os.environ.get(ENV):
        return
    folder = Path(tempfile.mkdtemp(prefix="phrasenmt-tests-"))
    os.environ[ENV] = str(folder)
    _OWNED.append(folder)


def end() -> None:
    """Stop the background runs and remove the folder, if this process made it."""
    while _OWNED:
        folder = _OWNED.pop()
        for record in folder.glob("*.run.json"):
            stop(json.loads(record.read_text(encoding="utf-8")))
        shutil.rmtree(folder, ignore_errors=True)
        if os.environ.get(ENV) == str(folder):
            del os.environ[ENV]


def folder() -> Path:
    """This pytest run's shared folder (created on first use by a lone process)."""
    begin()
    return Path(os.environ[ENV])


@contextlib.contextmanager
def locked(name: str) -> Iterator[Path]:
    """Hold the lock `name` of this pytest run (between processes); yields the folder."""
    root = folder()
    with open(root / f"{name}.lock", "w", encoding="utf-8") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield root
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def once(name: str, make: Callable[[Path], None]) -> Path:
    """The path `name` in the shared folder, made by `make(path)` in the first
    process that asks for it; the others wait for it and read it."""
    with locked(name) as root:
        path, done = root / name, root / f"{name}.done"
        if not done.exists():
            make(path)
            done.touch()
    return path


def register(name: str, record: dict) -> None:
    """Remember a background run (its process group and folder) for `end`."""
    (folder() / f"{name}.run.json").write_text(json.dumps(record), encoding="utf-8")


def stop(record: dict) -> None:
    """End a registered run's process group if it still runs; remove its folder."""
    if not Path(record["rc"]).exists():
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(record["pgid"], signal.SIGTERM)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:  # until no process of the group is left
                with contextlib.suppress(ChildProcessError):  # reap it if it is ours
                    os.waitpid(record["pgid"], os.WNOHANG)
                os.killpg(record["pgid"], 0)
                time.sleep(0.1)
    shutil.rmtree(record["workdir"], ignore_errors=True)
