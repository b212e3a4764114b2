"""Report tables (Markdown, LaTeX booktabs, CSV) from evaluation JSONs.

``main``: one row per (model, test set) with detokenized and tokenized BLEU,
chrF, parameters and training time; a dagger marks systems whose detokenized
BLEU is higher than the baseline's with paired-bootstrap p < alpha.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from phrasenmt.cli import ArgumentParser, alpha_level, output_file
from phrasenmt.evaluate.length import named_path
from phrasenmt.io import InputError, atomic_open, read_json, run_cli
from phrasenmt.report.style import parse_order

DAGGER = "†"
MAIN_COLUMNS = ["model", "testset", "bleu", "bleu_tok", "chrf", "params_m",
                "train_seconds", "p_value", "significant"]
HEADERS = ["model", "BLEU (detok)", "BLEU (tok)", "chrF", "params (M)",
           "train time (h:mm:ss)"]
DEFAULT_TIME_KEY = "train_seconds"


def load_json(path: Path) -> dict[str, Any]:
    """Read a JSON object; a missing file or bad JSON raises naming the file."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise InputError("expected a JSON object", path)
    return data


def get_key(data: dict[str, Any], key: str, path: Path, number: bool = False
            ) -> Any:
    """Value at a dotted key; missing (or non-numeric when `number`) raises."""
    value: Any = data
    for part in key.split("."):
        if not isinstance(value, dict) or part not in value:
            raise InputError(f"missing key {key!r}", path)
        value = value[part]
    if number and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise InputError(f"key {key!r} is not a number: {value!r}", path)
    return value


def significance(data: dict[str, Any], path: Path, baseline: str, alpha: float
                 ) -> tuple[float, bool]:
    """(p-value, better-and-significant) of one evaluation against the baseline."""
    sig = get_key(data, "significance", path)
    if sig is None:
        return math.nan, False
    named = get_key(data, "significance.baseline", path)
    if named != baseline:
        raise InputError(f"key 'significance.baseline' is {named!r} but "
                         f"--baseline is {baseline!r}", path)
    p = get_key(data, "significance.p_value", path, number=True)
    better = (get_key(data, "significance.system_score", path, number=True)
              > get_key(data, "significance.baseline_score", path, number=True))
    return float(p), bool(better and p < alpha)


def summary_fields(path: Path, time_key: str) -> tuple[float, float]:
    """(parameters in millions, training seconds) from a training summary.json."""
    data = load_json(path)
    params = get_key(data, "params", path, number=True)
    seconds = get_key(data, time_key, path, number=True)
    return params / 1e6, float(seconds)


def main_row(path: Path, summaries: dict[str, Path], args: argparse.Namespace
             ) -> list[Any]:
    """One row of the main table from an evaluation JSON."""
    data = load_json(path)
    model = get_key(data, "system", path)
    if model not in args.order:
        raise InputError(f"key 'system' is {model!r}, which is not in --order", path)
    if model not in summaries:
        raise InputError(f"no --summary given for model {model!r}", path)
    params_m, seconds = summary_fields(summaries[model], args.time_key)
    p_value, marked = significance(data, path, args.baseline, args.alpha)
    scores = [get_key(data, f"{k}.score", path, number=True)
              for k in ("bleu", "bleu_tok", "chrf")]
    return [model, get_key(data, "testset", path), *scores, params_m, seconds,
            p_value, marked]


def main_table(evals: Sequence[Path], summaries: dict[str, Path],
               args: argparse.Namespace) -> pd.DataFrame:
    """The main results table, ordered by test set (as given) and model order."""
    rows, seen = [], {}
    for path in evals:
        row = main_row(path, summaries, args)
        if (row[0], row[1]) in seen:
            raise InputError(f"model {row[0]!r} on testset {row[1]!r} is also in "
                             f"{seen[row[0], row[1]]}", path)
        seen[row[0], row[1]] = path
        rows.append(row)
    df = pd.DataFrame(rows, columns=MAIN_COLUMNS)
    testsets = list(dict.fromkeys(df["testset"]))
    df["_t"] = df["testset"].map(testsets.index)
    df["_m"] = df["model"].map(args.order.index)
    return df.sort_values(["_t", "_m"]).drop(columns=["_t", "_m"]).reset_index(
        drop=True)


def format_time(seconds: float) -> str:
    """Seconds as h:mm:ss."""
    s = round(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def display_cells(row: pd.Series, baseline: str, mark: str) -> list[str]:
    """The formatted cells of one table row; `mark` follows a significant BLEU."""
    name = f"{row.model} (baseline)" if row.model == baseline else row.model
    bleu = f"{row.bleu:.2f}" + (mark if row.significant else "")
    return [name, bleu, f"{row.bleu_tok:.2f}", f"{row.chrf:.2f}",
            f"{row.params_m:.2f}", format_time(row.train_seconds)]


def note(baseline: str, alpha: float) -> str:
    """The one-line explanation of the significance mark."""
    return (f"{DAGGER} detokenized BLEU better than the baseline ({baseline}) with "
            f"p < {alpha:g} (sacreBLEU paired bootstrap resampling).")


def to_markdown(df: pd.DataFrame, baseline: str, alpha: float) -> str:
    """Markdown: one pipe table per test set and a note explaining the mark."""
    out = ["# Main results", ""]
    for testset, group in df.groupby("testset", sort=False):
        out += [f"## {testset}", "", "| " + " | ".join(HEADERS) + " |",
                "| :--- |" + " ---: |" * (len(HEADERS) - 1)]
        out += ["| " + " | ".join(display_cells(row, baseline, DAGGER)) + " |"
                for row in group.itertuples()]
        out.append("")
    return "\n".join([*out, note(baseline, alpha), ""])


def latex_escape(text: str) -> str:
    """Escape LaTeX special characters."""
    special = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$",
               "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
               "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
    return "".join(special.get(c, c) for c in text)


def to_latex(df: pd.DataFrame, baseline: str, alpha: float) -> str:
    """LaTeX booktabs tabular, one block per test set, with the note below."""
    n = len(HEADERS)
    out = [rf"\begin{{tabular}}{{l{'r' * (n - 1)}}}", r"\toprule",
           " & ".join(latex_escape(h) for h in HEADERS) + r" \\"]
    for testset, group in df.groupby("testset", sort=False):
        out += [r"\midrule",
                rf"\multicolumn{{{n}}}{{l}}{{\textit{{{latex_escape(testset)}}}}} \\"]
        for row in group.itertuples():
            cells = [latex_escape(c) for c in display_cells(row, baseline, "")]
            if row.significant:
                cells[1] += r"$^\dagger$"
            out.append(" & ".join(cells) + r" \\")
    text = latex_escape(note(baseline, alpha)).replace(DAGGER, r"$^\dagger$")
    text = text.replace(" < ", " $<$ ")  # a bare < prints as an inverted ! in OT1
    out += [r"\bottomrule", rf"\multicolumn{{{n}}}{{l}}{{\footnotesize {text}}} \\",
            r"\end{tabular}", ""]
    return "\n".join(out)


def write_text(path: Path, text: str) -> None:
    """Write text atomically."""
    with atomic_open(path) as fh:
        fh.write(text)


def run_main(args: argparse.Namespace) -> None:
    """Build the main results table and write Markdown, LaTeX and CSV."""
    summaries: dict[str, Path] = {}
    for name, path in args.summary:
        if name in summaries:
            raise InputError(f"model {name!r} given twice in --summary", path)
        summaries[name] = path
    df = main_table(args.eval, summaries, args)
    write_text(args.out_md, to_markdown(df, args.baseline, args.alpha))
    write_text(args.out_tex, to_latex(df, args.baseline, args.alpha))
    with atomic_open(args.out_csv) as fh:
        df.to_csv(fh, index=False, lineterminator="\n")


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface of the report tables."""
    p = ArgumentParser(prog="python -m phrasenmt.report.tables",
                       description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="table", required=True)
    m = sub.add_parser("main", help="main results: BLEU, chrF, size, time")
    m.add_argument("--eval", type=Path, nargs="+", required=True,
                   help="evaluation JSONs from phrasenmt.evaluate.bleu")
    m.add_argument("--summary", type=named_path, nargs="+", required=True,
                   metavar="NAME=FILE", help="training summary.json of each model")
    m.add_argument("--baseline", required=True, help="name of the baseline model")
    m.add_argument("--order", type=parse_order, required=True,
                   help="comma-separated model order of the rows")
    m.add_argument("--alpha", type=alpha_level, default=0.01,
                   help="significance level for the dagger (default: %(default)s)")
    m.add_argument("--time-key", default=DEFAULT_TIME_KEY,
                   help="summary.json key with the training time in seconds "
                        "(default: %(default)s)")
    m.add_argument("--out-md", type=output_file, required=True, help="Markdown output")
    m.add_argument("--out-tex", type=output_file, required=True, help="LaTeX output")
    m.add_argument("--out-csv", type=output_file, required=True, help="CSV output")
    m.set_defaults(build=run_main)
    return p


def main(argv: list[str] | None = None) -> int:
    """Build one report table."""
    args = build_parser().parse_args(argv)
    args.build(args)
    return 0


if __name__ == "__main__":
    run_cli(main)
