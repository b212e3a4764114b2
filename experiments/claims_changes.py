"""The verdicts that differ between claims tables of the same claims.

    python experiments/claims_changes.py results/converged_en_de/report/claims.csv \\
        results/converged_en_de/report/claims_phrase-ablation.csv \\
        results/converged_en_de/report/claims_document.csv

Reads the `claims.csv` that the claims_table job writes beside its
`claims.md`: the first file is the table compared (e.g. a dataset's whole
table), the others are tables that share claims with it (e.g. its family
tables, or a table of another run). Each table's Holm correction runs over its
own tested rows, so the same comparison can keep its verdict at α and lose it
after Holm in a larger table. This prints how many rows each table's Holm
correction counts, then a Markdown row for every shared claim whose verdict
or verdict after Holm differs, with both tables' p and Holm-adjusted p
(`--all`: every shared claim). Nothing is computed again: the figures are the
CSVs'.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

from phrasenmt.io import InputError, run_cli

COLUMNS = ("claim", "verdict", "p_verdict", "p_holm", "verdict_holm")


def read_table(path: Path) -> dict[str, dict[str, str]]:
    """The rows of one claims.csv by claim id."""
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                raise InputError(f"not a claims table: no column {', '.join(missing)}",
                                 path)
            rows = list(reader)
    except OSError as err:
        raise InputError(f"cannot read the claims table ({err.strerror})", path) from None
    return {row["claim"]: row for row in rows}


def tested(table: dict[str, dict[str, str]]) -> int:
    """The rows Holm's correction counts: those with a verdict p."""
    return sum(1 for row in table.values() if row["p_verdict"])


def verdict_cell(row: dict[str, str]) -> str:
    """A row's verdict, and its verdict after Holm where that differs."""
    if row["verdict_holm"] == row["verdict"]:
        return row["verdict"]
    return f"{row['verdict']}; after Holm: {row['verdict_holm']}"


def p_cell(row: dict[str, str]) -> str:
    """'p / p_holm' of a row, '–' for a missing value."""
    def fmt(value: str) -> str:
        return f"{float(value):.3g}" if value else "–"
    return f"{fmt(row['p_verdict'])} / {fmt(row['p_holm'])}"


def changes(base: dict[str, dict[str, str]], other: dict[str, dict[str, str]],
            every: bool = False) -> list[tuple[dict[str, str], dict[str, str]]]:
    """Pairs (base row, other row) of the shared claims, in the base table's
    order, whose verdict or verdict after Holm differ (every: all shared)."""
    return [(row, other[claim]) for claim, row in base.items()
            if claim in other and (every or any(
                row[key] != other[claim][key] for key in ("verdict", "verdict_holm")))]


def report(paths: list[Path], every: bool = False) -> list[str]:
    base_path, *others = paths
    base = read_table(base_path)
    out = [f"- `{base_path}`: {tested(base)} tested rows of {len(base)}"]
    tables = [(path, read_table(path)) for path in others]
    out += [f"- `{path}`: {tested(t)} tested rows of {len(t)}, "
            f"{sum(c in base for c in t)} shared" for path, t in tables]
    for path, table in tables:
        pairs = changes(base, table, every)
        out += ["", f"`{base_path.name}` against `{path.name}`:", ""]
        if not pairs:
            out.append("no shared claim's verdict differs")
            continue
        out += ["| claim | verdict | p / Holm p | verdict there | p / Holm p there |",
                "|---|---|---|---|---|"]
        out += [f"| `{a['claim']}` | {verdict_cell(a)} | {p_cell(a)} "
                f"| {verdict_cell(b)} | {p_cell(b)} |" for a, b in pairs]
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tables", type=Path, nargs="+",
                        help="claims.csv files: the table compared, then the others")
    parser.add_argument("--all", action="store_true", dest="every",
                        help="every shared claim, not only those whose verdicts differ")
    args = parser.parse_args(argv)
    if len(args.tables) < 2:
        parser.error("give the table compared and at least one other")
    print("\n".join(report(args.tables, args.every)))


if __name__ == "__main__":
    run_cli(main)
