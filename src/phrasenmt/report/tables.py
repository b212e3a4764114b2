"""Report tables (Markdown, LaTeX booktabs, CSV) from evaluation JSONs.

``main``: one row per (model, test set): detokenized BLEU as the mean over
training seeds with its sd (or "(1 seed)"), each seed's score, the p-value of
the all-seed test against the baseline (``phrasenmt.evaluate.multiseed``:
training seeds and test sentences both enter it), tokenized BLEU and chrF
(means over seeds), parameters and training time (mean over seeds); a dagger
marks systems whose mean BLEU is higher than the baseline's with p < alpha.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from phrasenmt.cli import (
    ArgumentParser,
    add_table_outputs,
    alpha_level,
    named_path,
)
from phrasenmt.io import InputError, atomic_open, output_set, run_cli
from phrasenmt.report import seeds as sd
from phrasenmt.report.json_fields import get_key, load_json, load_summary, stop_note
from phrasenmt.report.style import parse_order
from phrasenmt.report.wall_clock import add_timing_option, split_columns, write_csvs

__all__ = ["get_key", "load_json", "parse_order"]  # re-exported for other tables

DAGGER = "†"
MAIN_COLUMNS = ["model", "testset", "seeds", "bleu", "bleu_sd", "bleu_seeds",
                "bleu_tok", "bleu_tok_sd", "chrf", "chrf_sd", "params_m",
                "train_seconds", "precision", "p_value", "p_one_seed", "significant",
                "stop_note"]
HEADERS = ["model", "BLEU (detok)", "BLEU per seed", "p", "BLEU (tok)", "chrF",
           "params (M)", "train time (h:mm:ss)", "precision"]
DEFAULT_TIME_KEY = "train_seconds"
WALL_CLOCK_COLUMNS = ["train_seconds"]  # in the timing CSV, not the results CSV
SCORE_TOLERANCE = 0.01  # a seed's BLEU in both JSONs (sacreBLEU, same statistics)


def summary_fields(path: Path, time_key: str) -> tuple[float, float, str]:
    """(parameters in millions, training seconds, precision) from a summary.json."""
    data = load_summary(path)
    params = get_key(data, "params", path, number=True)
    seconds = get_key(data, time_key, path, number=True)
    return params / 1e6, float(seconds), str(get_key(data, "precision", path))


def summaries_fields(paths: Sequence[Path], time_key: str
                     ) -> tuple[float, float, str]:
    """(parameters in millions, mean training seconds, the seeds' precisions)."""
    fields = [summary_fields(p, time_key) for p in paths]
    precisions = "/".join(dict.fromkeys(f[2] for f in fields))  # "fp32", "fp32/bf16"
    return fields[0][0], sd.mean_sd([f[1] for f in fields])[0], precisions


def stop_notes(paths: Sequence[Path], seeds: Sequence[Any]) -> str:
    """The seeds' `stop_note`s ("seed s: ..." where seeds differ), or ""."""
    notes = [stop_note(load_summary(p), p) for p in paths]
    if len(set(notes)) == 1:
        return notes[0]
    return "; ".join(f"seed {s}: {n}" for s, n in zip(seeds, notes, strict=False)
                     if n)


def seed_runs(groups: dict, data: dict[str, Any], path: Path) -> list[dict]:
    """The per-seed JSONs of an all-seed evaluation, checked against its scores."""
    key = (data["system"], data["testset"])
    runs = groups.get(key, [])
    if len(runs) != len(data["seeds"]):
        raise InputError(f"{len(runs)} --seed-eval file(s) for model {key[0]!r} on "
                         f"{key[1]!r}, but it has seeds {data['seeds']}", path)
    for run, score in zip(runs, data["scores"], strict=True):
        own = float(get_key(run, "bleu.score", run["_path"], number=True))
        if abs(own - float(score)) > SCORE_TOLERANCE:
            raise InputError(f"key 'bleu.score' is {own}, but {path} gives this "
                             f"seed {score} (seed files out of order?)", run["_path"])
    return runs


def main_row(path: Path, groups: dict, summaries: dict[str, list[Path]],
             args: argparse.Namespace) -> list[Any]:
    """One row of the main table from an all-seed evaluation and its seeds' JSONs."""
    data = sd.load_aggregate(path)
    model = data["system"]
    if model not in args.order:
        raise InputError(f"key 'system' is {model!r}, which is not in --order", path)
    if model not in summaries:
        raise InputError(f"no --summary given for model {model!r}", path)
    params_m, seconds, precision = summaries_fields(summaries[model], args.time_key)
    p_value, marked, single = sd.significance(data, path, args.baseline, args.alpha)
    means = sd.seed_means(seed_runs(groups, data, path), ["bleu_tok.score",
                                                          "chrf.score"])
    bleu, bleu_sd = sd.mean_sd(data["scores"])
    return [model, data["testset"], sd.joined(data["seeds"]), bleu, bleu_sd,
            sd.joined(f"{v:.4f}" for v in data["scores"]),
            *means["bleu_tok.score"][:2], *means["chrf.score"][:2], params_m,
            seconds, precision, p_value, single, marked,
            stop_notes(summaries[model], data["seeds"])]


def main_table(evals: Sequence[Path], seed_evals: Sequence[Path],
               summaries: dict[str, list[Path]], args: argparse.Namespace
               ) -> pd.DataFrame:
    """The main results table, ordered by test set (as given) and model order."""
    groups = sd.group_seed_evals(seed_evals)
    rows, seen = [], {}
    for path in evals:
        row = main_row(path, groups, summaries, args)
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
    if isinstance(row.stop_note, str) and row.stop_note:
        name += f" ({row.stop_note})"
    seeds = [int(s) for s in str(row.seeds).split(";")]
    scores = [float(v) for v in str(row.bleu_seeds).split(";")]
    bleu = sd.spread(row.bleu, row.bleu_sd, len(seeds))
    bleu += mark if row.significant else ""
    return [name, bleu, sd.per_seed(seeds, scores),
            sd.p_cell(row.p_value, bool(row.p_one_seed)),
            sd.spread(row.bleu_tok, row.bleu_tok_sd, len(seeds)),
            sd.spread(row.chrf, row.chrf_sd, len(seeds)), f"{row.params_m:.2f}",
            format_time(row.train_seconds), row.precision]


def note(baseline: str, alpha: float) -> str:
    """The one-line explanation of the significance mark."""
    return (f"{DAGGER} mean detokenized BLEU better than the baseline ({baseline}) "
            f"with p < {alpha:g}. Scores: mean ± sd over training seeds, or "
            "(1 seed); p: every seed of both systems, with the variance over "
            "training seeds and over test sentences (a comparison with one seed "
            "gets no mark: one seed: indicative, no verdict). A model "
            "the time budget (train.max_minutes) stopped inside its warm-up or "
            "before half of train.max_steps says so after its name.")


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
            cells = [latex_escape(c).replace("±", r"$\pm$")
                     for c in display_cells(row, baseline, "")]
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
    summaries = sd.named_lists(args.summary)
    df = main_table(args.eval, args.seed_eval, summaries, args)
    with output_set():  # all of its outputs, or none
        write_text(args.out_md, to_markdown(df, args.baseline, args.alpha))
        write_text(args.out_tex, to_latex(df, args.baseline, args.alpha))
        write_csvs(*split_columns(df, ["model", "testset"], WALL_CLOCK_COLUMNS),
                   args.out_csv, args.out_timing_csv)


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface of the report tables."""
    p = ArgumentParser(prog="python -m phrasenmt.report.tables",
                       description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="table", required=True)
    m = sub.add_parser("main", help="main results: BLEU, chrF, size, time")
    m.add_argument("--eval", type=Path, nargs="+", required=True,
                   help="all-seed evaluation JSONs from phrasenmt.evaluate.multiseed")
    m.add_argument("--seed-eval", type=Path, nargs="+", required=True,
                   help="each seed's JSON from phrasenmt.evaluate.bleu, in the "
                        "seed order of the all-seed JSON")
    m.add_argument("--summary", type=named_path, nargs="+", required=True,
                   metavar="NAME=FILE",
                   help="training summary.json of each model, once per seed")
    m.add_argument("--baseline", required=True, help="name of the baseline model")
    m.add_argument("--order", type=parse_order, required=True,
                   help="comma-separated model order of the rows")
    m.add_argument("--alpha", type=alpha_level, default=0.01,
                   help="significance level for the dagger (default: %(default)s)")
    m.add_argument("--time-key", default=DEFAULT_TIME_KEY,
                   help="summary.json key with the training time in seconds "
                        "(default: %(default)s)")
    add_table_outputs(m, timing=True)
    add_timing_option(m)
    m.set_defaults(build=run_main)
    return p


def main(argv: list[str] | None = None) -> int:
    """Build one report table."""
    args = build_parser().parse_args(argv)
    args.build(args)
    return 0


if __name__ == "__main__":
    run_cli(main)
