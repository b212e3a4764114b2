"""How each training run ended: its updates, what stopped it, its best dev loss.

    python -m phrasenmt.report.training_runs --summary NAME:SEED=FILE...
        --out-md MD --out-csv CSV --out-timing-csv CSV

reads each run's summary.json (`phrasenmt.train` writes it last) and writes one
row per run, in the order given:

    model  seed  steps  stopped_by  stop_note  best_dev_loss

`stopped_by` is `patience` (the dev loss stopped falling: `train.patience`
validations in a row without a gain of `train.min_delta`), `max_steps` (the
update budget) or `max_minutes` (the time budget). A comparison of runs that
all stopped by `patience` is at convergence; one that involves a run stopped by
a budget is at that budget. `stop_note` marks a run the time budget stopped
early (`json_fields.stop_note`): inside its warm-up ("stopped in warm-up at
update N of M") or before half of its max_steps ("stopped at update N of M").
The training time (`train_seconds`) goes to the
timing CSV, apart from the results CSV so that reruns compare equal; the
Markdown table shows it too.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import pandas as pd

from phrasenmt.cli import ArgumentParser, output_file
from phrasenmt.io import InputError, output_set, run_cli
from phrasenmt.report.json_fields import get_key, load_summary, stop_note
from phrasenmt.report.learning_curves import Run, add_runs_option, check_unique
from phrasenmt.report.tables import format_time, write_text
from phrasenmt.report.wall_clock import add_timing_option, split_columns, write_csvs

COLUMNS = ["model", "seed", "steps", "stopped_by", "stop_note", "best_dev_loss",
           "train_seconds"]
WALL_CLOCK_COLUMNS = ["train_seconds"]
STOPS = {"patience": "dev-loss plateau", "max_steps": "update budget",
         "max_minutes": "time budget"}


def run_row(run: Run) -> dict:
    """One run's row from its summary.json (`run.path`)."""
    path = run.path
    data = load_summary(path)
    steps = get_key(data, "steps", path, number=True)
    stop = get_key(data, "stopped_by", path)
    if stop not in STOPS:
        raise InputError(f"key 'stopped_by' is {stop!r}, not one of "
                         f"{', '.join(STOPS)}", path)
    best = get_key(data, "best_dev_loss", path)
    seconds = get_key(data, "train_seconds", path, number=True)
    return {"model": run.model, "seed": run.seed, "steps": int(steps),
            "stopped_by": stop, "stop_note": stop_note(data, path),
            "best_dev_loss": best,
            "train_seconds": float(seconds)}


def runs_table(runs: Sequence[Run]) -> pd.DataFrame:
    """One row per run, in the order given; a (model, seed) given twice raises."""
    check_unique(runs, "--summary")
    return pd.DataFrame([run_row(r) for r in runs], columns=COLUMNS)


def note() -> str:
    """What the stop column means, under the table."""
    return ("Stopped by: the dev-loss plateau (train.patience and train.min_delta), "
            "or the update budget (train.max_steps) or time budget "
            "(train.max_minutes) before it. Runs that all reached the plateau are "
            "compared at convergence, any other comparison at a budget; a time "
            "budget that ended a run inside its warm-up or before half of "
            "train.max_steps says so. Best dev "
            "loss: NLL per target token (– without validation); train time: "
            "updates and validation.")


def to_markdown(df: pd.DataFrame) -> str:
    """The Markdown table with the note."""
    out = ["# Training runs", "",
           "| model | seed | updates | stopped by | best dev loss | train time |",
           "| :--- | ---: | ---: | :--- | ---: | ---: |"]
    for row in df.itertuples():
        best = "–" if row.best_dev_loss is None or pd.isna(row.best_dev_loss) \
            else f"{row.best_dev_loss:.4f}"
        stop = STOPS[row.stopped_by] + (f": {row.stop_note}" if row.stop_note else "")
        out.append(f"| {row.model} | {row.seed} | {row.steps:,} | "
                   f"{stop} | {best} | "
                   f"{format_time(row.train_seconds)} |")
    return "\n".join([*out, "", note(), ""])


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    p = ArgumentParser(prog="python -m phrasenmt.report.training_runs",
                       description=__doc__.splitlines()[0])
    add_runs_option(p, "--summary", "summary.json")
    p.add_argument("--out-md", type=output_file, required=True, help="Markdown table")
    p.add_argument("--out-csv", type=output_file, required=True,
                   help="CSV of what the runs decide (the same on every rerun)")
    add_timing_option(p)
    return p


def main(argv: list[str] | None = None) -> int:
    """Write the training-runs table."""
    args = build_parser().parse_args(argv)
    df = runs_table(args.summary)
    with output_set():  # all of its outputs, or none
        write_text(args.out_md, to_markdown(df))
        write_csvs(*split_columns(df, ["model", "seed"], WALL_CLOCK_COLUMNS),
                   args.out_csv, args.out_timing_csv)
    return 0


if __name__ == "__main__":
    run_cli(main)
