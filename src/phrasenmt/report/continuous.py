"""Report tables of the continuous-output family (Park & Tsvetkov 2019, Tables 1-5).

    multiword  --tsv F... --order A,B --out-md/--out-tex/--out-csv
        BLEU on the test set and on its multi-word subset per model.
    fertility  --tsv F... --order A,B --out-...
        fertility precision / recall / F1 per class (Fertility 2 and 4).
    efficiency --run NAME=DIR... --train-tgt NAME=FILE... --order A,B --out-...
        samples per second, epochs until the dev loss stopped improving, and
        total training time, from each run's summary.json and metrics.tsv.

A model with several training seeds has one TSV row set (or --run) per seed:
the numbers are means over seeds, with a "seeds" column and, for BLEU, the sd
over seeds ("–" with one seed). An empty multi-word subset has no BLEU: its
cells show "–" beside the subset size 0 (a 0.00 would read as a failed model).

Samples per second = target tokens trained on / training seconds x sentences
per epoch / target tokens (</s> included) per epoch of that model's training
target, i.e. sentences per second averaged over the run (validation time
included, as in the trainer's summary). Epochs to the best dev loss = its
update step x epochs per update of the run.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from phrasenmt.cli import (
    ArgumentParser,
    add_table_outputs,
    named_file,
    named_path,
)
from phrasenmt.io import (
    InputError,
    atomic_open,
    output_set,
    read_lines,
    read_tsv,
    run_cli,
)
from phrasenmt.report import seeds as sd
from phrasenmt.report.json_fields import get_key, load_summary
from phrasenmt.report.style import parse_order
from phrasenmt.report.tables import format_time, latex_escape, write_text
from phrasenmt.report.wall_clock import add_timing_option, split_columns, write_csvs

WALL_CLOCK_COLUMNS = ["samples/s", "training time"]  # efficiency: the timing CSV
TITLES = {"multiword": "BLEU on the test set and its multi-word subset",
          "fertility": "Fertility prediction on the test set (labels: aligner, as "
                       "the paper; gold: the synthetic corpus' gold alignments)",
          "efficiency": "Training efficiency (same machine, same batch size)"}


def by_order(df: pd.DataFrame, column: str, order: list[str]) -> pd.DataFrame:
    """Rows sorted by the model order (stable); unknown models raise."""
    unknown = sorted(set(df[column]) - set(order))
    if unknown:
        raise InputError(f"model(s) {', '.join(unknown)} not in --order", "--tsv")
    key = df[column].map(order.index)
    return df.assign(_k=key).sort_values("_k", kind="stable").drop(columns="_k")


def multiword_table(paths: Sequence[Path], order: list[str]) -> pd.DataFrame:
    """One row per (model, test set): BLEU all and multi-word (mean and sd over
    the model's seeds; sd "–" with one seed), the seeds, the subset size.
    An empty subset's BLEU is NaN (shown "–"), whatever its TSV rows say."""
    cols = ["model", "testset", "subset", "sentences", "bleu"]
    df = pd.concat([read_tsv(p, cols) for p in paths], ignore_index=True)
    rows = []
    for (model, testset), group in df.groupby(["model", "testset"], sort=False):
        row = {"model": model, "testset": testset}
        for subset, name in (("all", "BLEU"), ("multiword", "BLEU multi-word")):
            rows_of = group.loc[group.subset == subset]
            if rows_of.empty:
                raise InputError(f"no {subset} row for model {model!r}", "--tsv")
            if (rows_of["sentences"] == 0).all():  # no BLEU of no sentences
                row[name], row[f"{name} sd"] = math.nan, math.nan
            else:
                row[name], row[f"{name} sd"] = sd.mean_sd(rows_of["bleu"].tolist())
        row["seeds"] = len(rows_of)
        row["multi-word sentences"] = int(rows_of["sentences"].iloc[0])
        rows.append(row)
    return by_order(pd.DataFrame(rows), "model", order).reset_index(drop=True)


def fertility_table(paths: Sequence[Path], order: list[str]) -> pd.DataFrame:
    """Rows (model, labels, classes, class, precision, recall, F1, support), the
    mean over the model's seeds."""
    cols = ["system", "labels", "classes", "class", "precision", "recall", "f1",
            "support"]
    df = pd.concat([read_tsv(p, cols) for p in paths], ignore_index=True)
    df = df.rename(columns={"system": "model"})
    keys = ["model", "labels", "classes", "class"]
    means = df.groupby(keys, sort=False)[["precision", "recall", "f1",
                                          "support"]].mean()
    means["seeds"] = df.groupby(keys, sort=False).size()
    means["support"] = means["support"].round().astype(int)
    return by_order(means.reset_index(), "model", order).reset_index(drop=True)


def epoch_tokens(path: Path) -> tuple[int, int]:
    """(sentences, target tokens with </s>) of one epoch of a training target."""
    lines = read_lines(path)
    return len(lines), sum(len(line.split()) + 1 for line in lines)


def best_dev_step(path: Path) -> int:
    """The update step of the lowest dev loss in a metrics.tsv."""
    df = read_tsv(path, ["step", "dev_loss"]).dropna(subset=["dev_loss"])
    if df.empty:
        raise InputError("no dev_loss values", path)
    return int(df.loc[df["dev_loss"].idxmin(), "step"])


def efficiency_row(name: str, run: Path, tgt: Path) -> dict:
    """Samples/s, epochs to the best dev loss, total time of one run."""
    path = run / "summary.json"
    summary = load_summary(path)
    sentences, tokens = epoch_tokens(tgt)
    epochs = get_key(summary, "target_tokens", path, number=True) / tokens
    seconds = float(get_key(summary, "train_seconds", path, number=True))
    best = best_dev_step(run / "metrics.tsv")
    if "precision" not in summary:
        raise InputError("missing key 'precision' (fp32 or bf16)", path)
    steps = get_key(summary, "steps", path, number=True)
    return {"model": name, "samples/s": epochs * sentences / max(seconds, 1e-9),
            "epochs to best dev": best * epochs / max(steps, 1),
            "epochs trained": epochs, "training time": seconds,
            "precision": str(summary["precision"])}


def efficiency_table(runs: Sequence[tuple[str, Path]], tgts: Sequence[tuple[str, Path]],
                     order: list[str]) -> pd.DataFrame:
    """One row per run, in model order."""
    targets = dict(tgts)
    missing = [n for n, _ in runs if n not in targets]
    if missing:
        raise InputError(f"no --train-tgt for {', '.join(missing)}", "--train-tgt")
    rows = [efficiency_row(n, d, targets[n]) for n, d in runs]
    precisions: dict[str, dict[str, None]] = {}  # model -> its seeds' precisions
    for row in rows:
        precisions.setdefault(row["model"], {})[row.pop("precision")] = None
    df = pd.DataFrame(rows)
    seconds = df.pop("training time")
    df = df.assign(_s=seconds).groupby("model", sort=False).mean()  # over seeds
    df["seeds"] = [sum(1 for n, _ in runs if n == m) for m in df.index]
    df["training time"] = [format_time(v) for v in df.pop("_s")]
    df["precision"] = ["/".join(precisions[m]) for m in df.index]  # fp32, fp32/bf16
    return by_order(df.reset_index(), "model", order).reset_index(drop=True)


def cell(value: object) -> str:
    """Numbers with two decimals (integers as they are), text unchanged."""
    if isinstance(value, float):
        return "–" if math.isnan(value) else f"{value:.2f}"
    return str(value)


def to_markdown(df: pd.DataFrame, title: str) -> str:
    """A Markdown pipe table under a heading."""
    head = "| " + " | ".join(df.columns) + " |"
    rule = "| :--- |" + " ---: |" * (len(df.columns) - 1)
    rows = ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(
        index=False)]
    return "\n".join([f"# {title}", "", head, rule, *rows, ""])


def to_latex(df: pd.DataFrame) -> str:
    """A LaTeX booktabs tabular."""
    n = len(df.columns)
    out = [rf"\begin{{tabular}}{{l{'r' * (n - 1)}}}", r"\toprule",
           " & ".join(latex_escape(str(c)) for c in df.columns) + r" \\", r"\midrule"]
    out += [" & ".join(latex_escape(cell(v)).replace("±", r"$\pm$") for v in row)
            + r" \\"
            for row in df.itertuples(index=False)]
    return "\n".join([*out, r"\bottomrule", r"\end{tabular}", ""])


def write_all(df: pd.DataFrame, args: argparse.Namespace) -> None:
    """Markdown, LaTeX and CSV outputs."""
    write_text(args.out_md, to_markdown(df, TITLES[args.table]))
    write_text(args.out_tex, to_latex(df))
    if args.table != "efficiency":
        with atomic_open(args.out_csv) as fh:
            df.to_csv(fh, index=False, lineterminator="\n", float_format="%.4f")
        return
    write_csvs(*split_columns(df, ["model"], WALL_CLOCK_COLUMNS), args.out_csv,
               args.out_timing_csv, float_format="%.4f")


def build_parser() -> argparse.ArgumentParser:
    """Command-line options of the three tables."""
    p = ArgumentParser(prog="python -m phrasenmt.report.continuous",
                       description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="table", required=True)
    for name, title in TITLES.items():
        t = sub.add_parser(name, help=title)
        if name == "efficiency":
            t.add_argument("--run", type=named_path, nargs="+", required=True,
                           metavar="NAME=DIR",
                           help="training run folders (a name once per seed)")
            t.add_argument("--train-tgt", type=named_file, nargs="+", required=True,
                           metavar="NAME=FILE", help="each run's training target")
        else:
            t.add_argument("--tsv", type=Path, nargs="+", required=True,
                           help="tidy TSVs from phrasenmt.evaluate")
        t.add_argument("--order", type=parse_order, required=True,
                       help="comma-separated model order of the rows")
        add_table_outputs(t, timing=name == "efficiency")
        if name == "efficiency":
            add_timing_option(t)
    return p


def main(argv: list[str] | None = None) -> int:
    """Build one table."""
    args = build_parser().parse_args(argv)
    if args.table == "multiword":
        df = multiword_table(args.tsv, args.order)
    elif args.table == "fertility":
        df = fertility_table(args.tsv, args.order)
    else:
        df = efficiency_table(args.run, args.train_tgt, args.order)
    with output_set():  # all of its outputs, or none
        write_all(df, args)
    return 0


if __name__ == "__main__":
    run_cli(main)
