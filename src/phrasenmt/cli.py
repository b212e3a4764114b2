"""Command-line helpers every stage uses: one-line usage errors, typed options.

`ArgumentParser` prints a usage error as ONE line (prog, option, what is wrong)
and exits 2, as argparse does; the full usage stays in `--help`. The option
types below check ranges where the options are parsed, so no stage ever sees
a negative batch size, a zero beam, NaN, or a number written in non-ASCII
digits (Python's int() and float() accept '٣' and '𝟑'; a user who typed one
almost certainly did not mean 3), and output paths of the wrong kind (a folder
given for a file, a file given for a folder) are refused before any work,
as are two output options that name the same file. An option that sets a
config key takes its type and bound from that key's field (`field_type`), so
the option and the config hold a value to one bound. NAME=FILE lists are
checked whole: `named_file` takes each name once (a model given twice would
be two rows of one model, or two of its seeds), `named_path` (one entry per
seed) each entry once. Every parser has `--quiet` and `--verbose`, which set the
level of the `phrasenmt` loggers (`phrasenmt.log`) the same way in every stage.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from phrasenmt.log import get_logger, set_verbosity

_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_PYTHON_M = "python -m phrasenmt."
_log = get_logger(__name__)
# set by the `phrasenmt` command: a stage's `python -m phrasenmt.a.b` reads `phrasenmt a b`
command_progs = False


class _StoreOnce(argparse._StoreAction):
    """argparse's `store`, refusing an option given twice: argparse would keep
    the last value and silently drop the first (`--out a --out b`)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        given = getattr(parser, "_stored", None)
        shown = " ".join(map(str, values)) if isinstance(values, list) else str(values)
        if option_string is not None and given is not None:
            if self.dest in given:
                parser.error(f"argument {_option_name(self)}: given twice "
                             f"({given[self.dest]!r} and {shown!r}); give it once")
            given[self.dest] = shown
        super().__call__(parser, namespace, values, option_string)


class ArgumentParser(argparse.ArgumentParser):
    """argparse with usage errors on one line (exit status 2, as argparse), and
    an option that takes one value refused when given twice."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if command_progs and self.prog.startswith(_PYTHON_M):
            self.prog = command_prog(self.prog.removeprefix(_PYTHON_M))
        self.register("action", None, _StoreOnce)
        self.register("action", "store", _StoreOnce)
        # SUPPRESS: a subcommand's parser leaves the value given before it alone
        verbosity = self.add_mutually_exclusive_group()
        verbosity.add_argument("--quiet", action="store_true", default=argparse.SUPPRESS,
                               help="print errors only: no progress, no warnings")
        verbosity.add_argument("--verbose", action="store_true",
                               default=argparse.SUPPRESS,
                               help="print debug lines as well as progress and warnings")

    def error(self, message: str) -> NoReturn:
        """Print `prog: error: message (see --help)` and exit 2."""
        message = " ".join(message.split())  # argparse may wrap choices lists
        sys.stderr.write(f"{self.prog}: error: {message} (see --help)\n")
        sys.exit(2)

    def parse_known_args(self, args: Any = None, namespace: Any = None
                         ) -> tuple[argparse.Namespace, list[str]]:
        """argparse's parsing, then two outputs naming one file are refused."""
        self._stored: dict[str, str] = {}  # dest -> the value given to it
        namespace, extras = super().parse_known_args(args, namespace)
        clash = (same_outputs(self._actions, namespace)
                 or repeated_names(self._actions, namespace)
                 or self._unmet_need(namespace))
        if clash:
            self.error(clash)
        quiet, verbose = (getattr(namespace, k, False) for k in ("quiet", "verbose"))
        if quiet and verbose:  # one before a subcommand, one after it
            self.error("argument --verbose: not allowed with argument --quiet")
        set_verbosity(quiet, verbose)
        return namespace, extras

    def parse_args(self, args: Any = None, namespace: Any = None) -> argparse.Namespace:
        """argparse's parsing; the options are a debug line."""
        namespace = super().parse_args(args, namespace)
        _log.debug("%s: %s", self.prog, " ".join(
            f"{key}={value}" for key, value in sorted(vars(namespace).items())))
        return namespace

    def needs(self, option: str, *any_of: str) -> None:
        """Declare that `option`, when given, takes effect only with one of
        `any_of`: given alone it is a usage error, never silently ignored."""
        self._needs = [*getattr(self, "_needs", []), (option, any_of)]

    def _unmet_need(self, namespace: argparse.Namespace) -> str | None:
        """A message for an option given without any option it needs, else None."""
        dest = {o: a.dest for a in self._actions for o in a.option_strings}

        def given(option: str) -> bool:  # a flag counts when set
            return getattr(namespace, dest[option], None) not in (None, False)

        for option, any_of in getattr(self, "_needs", []):
            if given(option) and not any(given(o) for o in any_of):
                return (f"{option} needs {' or '.join(any_of)}; without it the "
                        "option does nothing")
        return None


def command_prog(module: str) -> str:
    """`phrasenmt a b`, the command of module `phrasenmt.a.b` (relative `a.b`)."""
    return " ".join(["phrasenmt", *module.split(".")])


def _option_name(action: argparse.Action) -> str:
    """How a user names an option: its long flag, else its metavar or dest."""
    if action.option_strings:
        return max(action.option_strings, key=len)
    return str(action.metavar or action.dest)


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Whether two paths name one file or folder (after '..', symlinks, hard links)."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist yet
        return False


def same_outputs(actions: list[argparse.Action], namespace: argparse.Namespace
                 ) -> str | None:
    """A message if two output options (`output_file`, `output_dir`) of one
    command name the same path, else None.

    Each output would silently overwrite the other; a file inside a folder
    output is allowed (e.g. a manifest written beside the files it lists).
    """
    given: list[tuple[str, str]] = []
    for action in actions:
        if action.type not in (output_file, output_dir):
            continue
        values = getattr(namespace, action.dest, None)
        for value in values if isinstance(values, list) else [values]:
            if value is not None:
                given.append((_option_name(action), os.fspath(value)))
    for n, (name, path) in enumerate(given):
        for other, other_path in given[:n]:
            if not same_file(path, other_path):
                continue
            shown = (repr(path) if path == other_path
                     else f"{other_path!r} and {path!r}")
            if other == name:
                return f"{name} names the same path twice ({shown})"
            return (f"{other} and {name} name the same path ({shown}); each "
                    "output needs a path of its own")
    return None


def _name_and_path(text: str) -> tuple[str, Path]:
    """NAME=FILE -> (name, path)."""
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(f"expected NAME=FILE, got {text!r}")
    return name, Path(path)


def named_file(text: str) -> tuple[str, Path]:
    """argparse type: NAME=FILE, each NAME once among its option's values."""
    return _name_and_path(text)


def named_path(text: str) -> tuple[str, Path]:
    """argparse type: NAME=FILE where a NAME comes once per seed (one entry per
    run), so only the same NAME=FILE twice is refused."""
    return _name_and_path(text)


def repeated_names(actions: list[argparse.Action], namespace: argparse.Namespace
                   ) -> str | None:
    """A message if a `named_file` option names a model twice, or a `named_path`
    option gives the same NAME=FILE twice, else None."""
    for action in actions:
        values = getattr(namespace, action.dest, None)
        if action.type not in (named_file, named_path) or not isinstance(values, list):
            continue
        seen: dict[str, list[str]] = {}
        option = _option_name(action)
        for name, path in values:
            earlier = seen.setdefault(name, [])
            if earlier and action.type is named_file:
                return (f"argument {option}: {name!r} is named twice "
                        f"({name}={earlier[0]} and {name}={path}); give each name "
                        "once")
            if any(same_file(other, os.fspath(path)) for other in earlier):
                return (f"argument {option}: {name}={path} is given twice (one "
                        "run counted twice)")
            earlier.append(os.fspath(path))
    return None


def _bounds(low: float | None, high: float | None, low_open: bool = False,
            high_open: bool = False) -> str:
    """Human-readable range, e.g. '>= 1', '> 0', 'in [0, 1)'."""
    if high is None:
        return f"{'>' if low_open else '>='} {low}"
    if low is None:
        return f"{'<' if high_open else '<='} {high}"
    return f"in {'(' if low_open else '['}{low}, {high}{')' if high_open else ']'}"


def _read_int(text: str) -> int:
    """An integer written in ASCII digits, else ArgumentTypeError."""
    if not _INT.fullmatch(text.strip()):
        raise argparse.ArgumentTypeError(
            f"expected an integer (ASCII digits), got {text!r}")
    return int(text)


def _read_float(text: str) -> float:
    """A finite number written in ASCII digits, else ArgumentTypeError."""
    if not _FLOAT.fullmatch(text.strip()):
        raise argparse.ArgumentTypeError(
            f"expected a finite number (ASCII digits), got {text!r}")
    value = float(text)
    if not math.isfinite(value):  # e.g. 1e999
        raise argparse.ArgumentTypeError(f"must be finite, got {text!r}")
    return value


def int_range(low: int, high: int | None = None) -> Callable[[str], int]:
    """argparse type: an integer (ASCII digits) in [low, high]."""

    def parse(text: str) -> int:
        value = _read_int(text)
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(
                f"must be {_bounds(low, high, False)}, got {value}")
        return value

    parse.__name__ = "integer"
    return parse


def float_range(low: float | None = None, high: float | None = None,
                low_open: bool = False, high_open: bool = False
                ) -> Callable[[str], float]:
    """argparse type: a finite number (ASCII digits) between low and high."""

    def parse(text: str) -> float:
        value = _read_float(text)
        too_low = low is not None and (value <= low if low_open else value < low)
        too_high = high is not None and (value >= high if high_open else value > high)
        if too_low or too_high:
            raise argparse.ArgumentTypeError(
                f"must be {_bounds(low, high, low_open, high_open)}, got {value:g}")
        return value

    parse.__name__ = "number"
    return parse


def field_type(cls: type, name: str) -> Callable[[str], Any]:
    """argparse type of an option that sets field `name` of config class `cls`
    (a pydantic model or a dataclass; `phrasenmt.fields`): a number in ASCII
    digits of the field's type, held to the bound declared on the field, with
    the line start-up validation gives (`must be >= 1, got 0`). The option
    and the config key cannot disagree: the bound is written once."""
    from phrasenmt import fields  # pydantic: only for the stages that use it

    kind = fields.value_type(fields.field_info(cls, name))
    if kind not in (int, float):
        raise TypeError(f"{cls.__name__}.{name}: field_type takes int and float "
                        f"fields, not {kind!r}")
    read = _read_int if kind is int else _read_float

    def parse(text: str) -> Any:
        value = read(text)
        try:
            return fields.check_value(cls, name, value,
                                      shown=f"{value:g}" if kind is float else None)
        except ValueError as err:  # fields.FieldError
            raise argparse.ArgumentTypeError(str(err)) from None

    parse.__name__ = "integer" if kind is int else "number"
    parse.field = (cls, name)  # type: ignore[attr-defined]  (the key it sets)
    return parse


positive_int = int_range(1)  # counts, sizes, beams
# Threads: more than a few per core only wait, and tens of thousands crash
# OpenMP (a segmentation fault, or libgomp's "Thread creation failed").
MAX_THREADS = max(64, 8 * (os.cpu_count() or 1))
thread_count = int_range(1, MAX_THREADS)
nonnegative_int = int_range(0)  # seeds, thresholds, optional counts
finite_float = float_range()  # weights that may be negative (lambda1)
nonnegative_float = float_range(0.0)  # penalties, length factors
positive_float = float_range(0.0, low_open=True)  # learning rates, timeouts
rate = float_range(0.0, 1.0)  # probabilities
alpha_level = float_range(0.0, 1.0, low_open=True, high_open=True)  # alpha


def control_pair(text: str) -> tuple[str, str]:
    """argparse type: CONTROL=MODEL, a random-context control and its model."""
    control, sep, model = text.partition("=")
    if not sep or not control or not model:
        raise argparse.ArgumentTypeError(f"expected CONTROL=MODEL, got {text!r}")
    return control, model


def _first_existing(path: Path) -> Path:
    """`path` itself or its nearest existing ancestor."""
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path(".")


def output_file(text: str) -> Path:
    """argparse type: a file path to write (not a folder, its folder creatable)."""
    path = Path(text)
    if not text:
        raise argparse.ArgumentTypeError("an empty path; give a file path")
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a folder; give a file path")
    existing = _first_existing(path.parent)
    if not existing.is_dir():
        raise argparse.ArgumentTypeError(
            f"cannot write {text!r}: {existing} is a file, not a folder")
    if text in ("/dev/stdout", "/dev/stderr") or (path.exists() and not path.is_file()):
        # a stream or a pipe: written into, so it must be writable itself
        if not os.access(path, os.W_OK):
            raise argparse.ArgumentTypeError(f"cannot write {text!r}")
    elif not os.access(existing, os.W_OK | os.X_OK):  # before the work, not after it
        raise argparse.ArgumentTypeError(
            f"cannot write {text!r}: the folder {existing} is not writable")
    return path


def add_table_outputs(parser: argparse.ArgumentParser, timing: bool = False) -> None:
    """The required --out-md, --out-tex and --out-csv options of a report table;
    `timing`: its wall-clock cells go to a CSV of their own (`--out-timing-csv`,
    `phrasenmt.report.wall_clock`), not to --out-csv."""
    csv = "the table's values as CSV, unformatted"
    if timing:
        csv += (", without its wall-clock cells (those are in --out-timing-csv), so "
                "that it is the same on every rerun")
    for ext, what in (("md", "the table in Markdown"),
                      ("tex", "the table as a LaTeX tabular"), ("csv", csv)):
        parser.add_argument(f"--out-{ext}", type=output_file, required=True, help=what)


def add_figure_outputs(parser: argparse.ArgumentParser) -> None:
    """The required --out-png and --out-svg options of a report figure."""
    for ext in ("png", "svg"):
        parser.add_argument(f"--out-{ext}", type=output_file, required=True,
                            help=f"the figure as {ext.upper()}")


def output_dir(text: str) -> Path:
    """argparse type: a folder to write into (created if missing; not a file)."""
    path = Path(text)
    existing = _first_existing(path)
    if not text or not existing.is_dir():
        what = "is a file" if existing == path else f"is inside {existing}, a file"
        raise argparse.ArgumentTypeError(f"{text!r} {what}; give a folder")
    return path
