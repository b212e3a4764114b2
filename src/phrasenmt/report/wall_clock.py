"""Wall-clock cells kept apart from the results, so that reruns compare equal.

A report table's CSV (``results/<dataset>/report/*.csv``) holds only what the
data, the config and the seed decide: two runs of the same commit and config on
the same machine write it byte for byte the same.  What the wall clock measures
(training time, samples or tokens per second, decoding time, and the claims
judged on training speed) moves with the machine's load; it goes to a timing
CSV of its own (``results/<dataset>/timing/*.csv``), with the key columns that
name its rows.  The Markdown and LaTeX tables, written for reading, show both.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from phrasenmt.cli import output_file
from phrasenmt.io import atomic_open


def add_timing_option(parser: argparse.ArgumentParser) -> None:
    """The required ``--out-timing-csv`` option of a table with wall-clock cells."""
    parser.add_argument("--out-timing-csv", type=output_file, required=True,
                        help="CSV of the wall-clock cells (training and decoding "
                             "times, speeds), apart from --out-csv so that that "
                             "one is the same on every rerun")


def split_columns(df: pd.DataFrame, key: Sequence[str], columns: Sequence[str]
                  ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the table without `columns`, the key columns with `columns`)."""
    timing = df[[*key, *columns]]
    return df.drop(columns=list(columns)), timing


def write_csvs(results: pd.DataFrame, timing: pd.DataFrame, out_csv: Path,
               out_timing_csv: Path, **to_csv: object) -> None:
    """Write both CSVs, each atomically, with the same pandas options."""
    for frame, path in ((results, out_csv), (timing, out_timing_csv)):
        with atomic_open(path) as fh:
            frame.to_csv(fh, index=False, lineterminator="\n", **to_csv)
