"""The cleaning table: what each filter dropped from a dataset's training pairs.

Reads the per-rule report of `phrasenmt.data.clean` (`data/train.clean.tsv`:
rule, pairs, percent, what the rule tests) and writes it as a Markdown table.
"""

from __future__ import annotations

from pathlib import Path

from phrasenmt.cli import ArgumentParser, output_file
from phrasenmt.io import InputError, read_table_lines, run_cli, write_lines

HEADER = ["rule", "pairs", "percent", "rule_tests"]


def read_report(path: Path) -> list[list[str]]:
    """The rows of a cleaning report, header checked."""
    lines = read_table_lines(path)
    if not lines:
        raise InputError("the file is empty: no cleaning report lines", path)
    rows = [line.split("\t") for line in lines]
    if rows[0] != HEADER:
        raise InputError(f"expected the header {' '.join(HEADER)!r} (a report of "
                         "phrasenmt.data.clean)", path, 1)
    for n, row in enumerate(rows[1:], start=2):
        if len(row) != len(HEADER) or not row[1].isdigit():
            raise InputError("expected rule, pairs (a count), percent, what it "
                             "tests", path, n)
    return rows[1:]


def markdown(rows: list[list[str]], dataset: str) -> list[str]:
    """The Markdown table of one dataset's training-pair filters."""
    title = (f"Cleaning of the training pairs of {dataset} (test sets are never "
             "filtered).")
    lines = [title, "", "| rule | pairs | % | what it tests |",
             "| :--- | ---: | ---: | :--- |"]
    lines += [f"| {rule} | {int(pairs):,} | {float(pct):.2f} | {what} |"
              for rule, pairs, pct, what in rows]
    return lines


def main(argv: list[str] | None = None) -> int:
    """Write the cleaning table of one dataset."""
    p = ArgumentParser(prog="python -m phrasenmt.report.cleaning",
                       description=__doc__.splitlines()[0])
    p.add_argument("--stats", required=True, type=Path,
                   help="data/train.clean.tsv of phrasenmt.data.clean")
    p.add_argument("--dataset", required=True, help="the dataset's name")
    p.add_argument("--out", required=True, type=output_file, help="Markdown table")
    args = p.parse_args(argv)
    write_lines(args.out, markdown(read_report(args.stats), args.dataset))
    return 0


if __name__ == "__main__":
    run_cli(main)
