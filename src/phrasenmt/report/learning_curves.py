"""Learning curves: every run's training and dev loss as a tidy TSV.

    python -m phrasenmt.report.learning_curves --metrics NAME:SEED=FILE...
        [--vmf NAME...] --out TSV

reads the metrics.tsv of each training run (`phrasenmt.train` writes one row
every `log_interval` updates and at every validation) and writes one row per
point, in the order given:

    model  seed  objective  split  step  train_seconds  nll

`split` is train (the NLL per target token over the updates since the previous
row; not the label-smoothed loss that is minimised) or dev (the dev NLL per
target token, on validation rows only). `train_seconds` is the training time
at that row (updates and validation; a resumed run's time goes on from its
checkpoint). `objective` is vMF for the models named by --vmf, whose NLL is a
von Mises-Fisher density's and cannot be compared with a softmax model's
cross-entropy. `phrasenmt.report.learning_curves_figure` draws the TSV.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from phrasenmt.cli import ArgumentParser, output_file, same_file
from phrasenmt.io import InputError, read_table_lines, run_cli, write_lines

COLUMNS = ("model", "seed", "objective", "split", "step", "train_seconds", "nll")
NEEDED = ("step", "nll", "dev_loss", "train_seconds")  # of a metrics.tsv
_STEP = re.compile(r"[0-9]+")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")  # a model name (the config schema's)


@dataclass(frozen=True)
class Run:
    """One training run: its model, seed and one of its files (metrics.tsv here)."""

    model: str
    seed: int
    path: Path


def run_arg(text: str) -> Run:
    """argparse type for NAME:SEED=FILE."""
    key, sep, path = text.partition("=")
    name, colon, seed = key.partition(":")
    if not (sep and colon and path and _NAME.fullmatch(name) and _STEP.fullmatch(seed)):
        raise argparse.ArgumentTypeError(
            f"expected NAME:SEED=FILE (e.g. transformer:1=run/metrics.tsv), got {text!r}")
    return Run(name, int(seed), Path(path))


def _number(text: str, column: str, path: Path, line: int) -> float:
    """A finite number from a metrics.tsv cell."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not text.strip():
        raise InputError(f"{column} is {text!r}, not a finite number", path, line)
    return value


@dataclass(frozen=True)
class Point:
    """One metrics.tsv row: its step, time, train NLL and dev NLL (if validated)."""

    step: int
    seconds: float
    train_nll: float
    dev_nll: float | None


def _header(line: str, path: Path) -> list[str]:
    """The column names of a metrics.tsv, checked for the ones drawn."""
    names = line.split("\t")
    missing = [c for c in NEEDED if c not in names]
    if "step" in missing:
        raise InputError("not a metrics.tsv: the first line is not a header with "
                         "a step column", path, 1)
    if missing == ["train_seconds"]:
        raise InputError("no train_seconds column: the run was trained before "
                         "metrics.tsv logged training time; retrain it to draw its "
                         "learning curve", path, 1)
    if missing:
        raise InputError(f"missing column(s) {', '.join(missing)}", path, 1)
    return names


def read_metrics(path: Path) -> list[Point]:
    """The rows of a metrics.tsv; steps must rise and times must not fall."""
    lines = read_table_lines(path)
    if not lines:
        raise InputError("the file is empty: no header", path)
    names = _header(lines[0], path)
    points: list[Point] = []
    for n, line in enumerate(lines[1:], start=2):
        cells = line.split("\t")
        if len(cells) != len(names):
            raise InputError(f"{len(cells)} fields, the header has {len(names)}",
                             path, n)
        row = dict(zip(names, cells, strict=True))
        if not _STEP.fullmatch(row["step"]) or int(row["step"]) == 0:
            raise InputError(f"step is {row['step']!r}, not a positive integer",
                             path, n)
        step, seconds = int(row["step"]), _number(row["train_seconds"],
                                                  "train_seconds", path, n)
        if points and step <= points[-1].step:
            raise InputError(f"step {step} does not come after step "
                             f"{points[-1].step} (a resumed run writes each step "
                             "once)", path, n)
        if seconds < (points[-1].seconds if points else 0.0):
            raise InputError(f"train_seconds {seconds:g} is less than the row "
                             "before's", path, n)
        dev = row["dev_loss"]
        points.append(Point(step, seconds, _number(row["nll"], "nll", path, n),
                            _number(dev, "dev_loss", path, n) if dev else None))
    if not points:
        raise InputError("no rows: the run logged nothing", path)
    return points


def tidy_rows(run: Run, objective: str) -> Iterator[str]:
    """The TSV rows of one run: its train points, then its dev points."""
    points = read_metrics(run.path)
    for split in ("train", "dev"):
        for p in points:
            nll = p.train_nll if split == "train" else p.dev_nll
            if nll is not None:
                yield "\t".join([run.model, str(run.seed), objective, split,
                                 str(p.step), f"{p.seconds:.3f}", f"{nll:.4f}"])


def check_unique(runs: Sequence[Run], option: str) -> None:
    """Raise, naming `option`, if a (model, seed) is given twice, or one file
    for two runs (one run's record would count as two)."""
    seen: dict[tuple[str, int], Run] = {}
    for run in runs:
        if (run.model, run.seed) in seen:
            raise InputError(f"{run.model}:{run.seed} is given twice", option)
        twin = next((r for r in seen.values() if same_file(r.path, run.path)), None)
        if twin is not None:
            raise InputError(f"{twin.model}:{twin.seed} and {run.model}:{run.seed} "
                             f"name one file ({run.path}); each run needs its own",
                             option)
        seen[(run.model, run.seed)] = run


def learning_curves(runs: Sequence[Run], vmf: Sequence[str]) -> list[str]:
    """The tidy TSV's lines (header first) for `runs`, in their order."""
    check_unique(runs, "--metrics")
    unknown = sorted(set(vmf) - {run.model for run in runs})
    if unknown:
        raise InputError(f"model(s) {', '.join(unknown)} have no --metrics", "--vmf")
    lines = ["\t".join(COLUMNS)]
    for run in runs:
        objective = "vMF" if run.model in vmf else "cross-entropy"
        lines.extend(tidy_rows(run, objective))
    return lines


def add_runs_option(parser: argparse.ArgumentParser, flag: str, what: str) -> None:
    """A required option of NAME:SEED=FILE values, one per training run."""
    parser.add_argument(flag, type=run_arg, nargs="+", required=True,
                        metavar="NAME:SEED=FILE",
                        help=f"a run's {what}, with its model name and seed")


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    p = ArgumentParser(prog="python -m phrasenmt.report.learning_curves",
                       description=__doc__.splitlines()[0])
    add_runs_option(p, "--metrics", "metrics.tsv")
    p.add_argument("--vmf", nargs="*", default=[], metavar="NAME",
                   help="models trained with the vMF loss (continuous output)")
    p.add_argument("--out", type=output_file, required=True, help="tidy TSV to write")
    return p


def main(argv: list[str] | None = None) -> int:
    """Write the learning-curve TSV."""
    args = build_parser().parse_args(argv)
    write_lines(args.out, learning_curves(args.metrics, args.vmf))
    return 0


if __name__ == "__main__":
    run_cli(main)
