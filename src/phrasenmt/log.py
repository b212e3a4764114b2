"""Progress and warnings of every stage: the `phrasenmt` logger hierarchy.

A module logs through `get_logger(__name__)`. One handler on the `phrasenmt`
logger writes each record as one line to the stderr of the moment (so a test
that captures stderr sees it) with one formatter: progress as its text,
`warning: ...` for a warning, `debug: <module>: ...` for a debug line. The
shared command-line parser (`phrasenmt.cli.ArgumentParser`) sets the level
from `--quiet` (errors only) and `--verbose` (debug lines too); the default
shows progress and warnings. Errors that stop a command are not logged: they
stay the one `error: ...` line of `phrasenmt.io.run_cli`.
"""

from __future__ import annotations

import logging
import sys

ROOT = "phrasenmt"
DEFAULT = logging.INFO
_PREFIX = {logging.DEBUG: "debug: ", logging.WARNING: "warning: ",
           logging.ERROR: "error: ", logging.CRITICAL: "error: "}


class _Formatter(logging.Formatter):
    """`warning: text`, `debug: module: text`, progress (INFO) as plain text."""

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        if record.levelno == logging.DEBUG:
            return f"debug: {record.name.removeprefix(ROOT + '.')}: {text}"
        return _PREFIX.get(record.levelno, "") + text


class _StderrHandler(logging.StreamHandler):
    """A stream handler that writes to whatever `sys.stderr` is when it emits."""

    def __init__(self) -> None:
        logging.Handler.__init__(self)  # no stream of its own

    @property
    def stream(self):  # type: ignore[override]
        """The current stderr."""
        return sys.stderr

    def emit(self, record: logging.LogRecord) -> None:
        """One line; while a progress bar is drawn, on a line of its own (the
        bar is cleared first and drawn again below it), so that a log scanned
        line by line finds `warning: ...` at a line's start."""
        bars = sys.modules.get("tqdm")
        if bars is not None and getattr(bars.tqdm, "_instances", None):
            try:
                bars.tqdm.write(self.format(record), file=sys.stderr)
            except Exception:  # noqa: BLE001 (as StreamHandler.emit does)
                self.handleError(record)
            return
        super().emit(record)


def _root() -> logging.Logger:
    """The `phrasenmt` logger with its one handler (added once)."""
    root = logging.getLogger(ROOT)
    if not any(isinstance(h, _StderrHandler) for h in root.handlers):
        handler = _StderrHandler()
        handler.setFormatter(_Formatter("%(message)s"))
        root.addHandler(handler)
        root.setLevel(DEFAULT)
        root.propagate = False  # one line per record, whatever the root logger has
    return root


def get_logger(name: str) -> logging.Logger:
    """The logger of module `name` (a `phrasenmt.*` module), its handler set up."""
    if name == "__main__":  # run as `python -m phrasenmt.<stage>`: the module's name
        spec = getattr(sys.modules["__main__"], "__spec__", None)
        name = spec.name if spec is not None else name
    if name != ROOT and not name.startswith(ROOT + "."):
        raise ValueError(f"not a {ROOT} module: {name!r}")
    _root()
    return logging.getLogger(name)


def set_verbosity(quiet: bool = False, verbose: bool = False) -> None:
    """Errors only (quiet), debug lines too (verbose), else progress and warnings."""
    if quiet and verbose:
        raise ValueError("quiet and verbose exclude each other")
    level = logging.ERROR if quiet else logging.DEBUG if verbose else DEFAULT
    _root().setLevel(level)


def shows_progress() -> bool:
    """Whether progress (INFO) is shown: a progress bar follows the same level."""
    return _root().isEnabledFor(logging.INFO)


def share_over(part: int, total: int, limit: float) -> str:
    """`part` of `total` as a percentage next to the `limit` (a share) it is
    over: "1.02 %, more than 1%", with as many decimals as it takes not to
    round to the limit or below it ("1.0 %, more than 1%")."""
    share = 100 * part / total
    for places in range(1, 7):
        text = f"{share:.{places}f}"
        if float(text) > 100 * limit:
            break
    return f"{text} %, more than {limit:.0%}"
