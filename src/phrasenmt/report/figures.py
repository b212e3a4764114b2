"""Report figures drawn from tidy TSVs (matplotlib, Agg backend, reproducible SVG).

Figures are drawn on an explicit Agg canvas (no pyplot, no global state).
Each subcommand reads one analysis TSV and draws it with the shared helpers
here, in the fixed model order and style of ``phrasenmt.report.style``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib as mpl
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from phrasenmt.cli import ArgumentParser, add_figure_outputs
from phrasenmt.io import InputError, atomic_path, output_set, read_tsv, run_cli
from phrasenmt.report.style import (
    PNG_METADATA,
    RC_PARAMS,
    SVG_METADATA,
    model_style,
    parse_order,
)

LENGTH_COLUMNS = ("model", "testset", "group", "lower", "bleu")
_HATCHES = ("", "//", "..", "xx", "\\\\", "oo", "--", "++")  # bars in greyscale


def save_figure(fig: Figure, out_png: Path, out_svg: Path) -> None:
    """Write a figure as PNG and SVG, atomically and without run-dependent metadata."""
    for out, fmt, meta in ((out_png, "png", PNG_METADATA),
                           (out_svg, "svg", SVG_METADATA)):
        with atomic_path(out) as tmp:
            fig.savefig(tmp, format=fmt, metadata=meta, bbox_inches="tight")


def new_axes() -> tuple[Figure, Axes]:
    """A figure on an Agg canvas with one axes, using the shared rcParams."""
    fig = Figure()
    FigureCanvasAgg(fig)
    return fig, fig.subplots()


def _categories(df: pd.DataFrame, x: str) -> list:
    """The x categories in order of first appearance."""
    return list(dict.fromkeys(df[x].tolist()))


def line_plot(df: pd.DataFrame, x: str, y: str, hue: str, order: list[str],
              xlabel: str, ylabel: str, out_png: Path, out_svg: Path,
              title: str | None = None) -> None:
    """One line per `hue` value over categorical `x`, in model `order`; NaN = gap."""
    unknown = sorted(set(df[hue]) - set(order))
    if unknown:
        raise ValueError(f"{hue} value(s) {', '.join(map(str, unknown))} "
                         "not in the model order")
    if df.duplicated([hue, x]).any():
        raise ValueError(f"more than one {y} per ({hue}, {x})")
    cats = _categories(df, x)
    with mpl.rc_context(RC_PARAMS):
        fig, ax = new_axes()
        for model in [m for m in order if m in set(df[hue])]:
            rows = df[df[hue] == model].set_index(x)[y]
            values = [rows.get(c, float("nan")) for c in cats]
            st = model_style(model, order)
            ax.plot(range(len(cats)), values, label=model, color=st.colour,
                    marker=st.marker, linestyle=st.linestyle)
        ax.set_xticks(range(len(cats)), [str(c) for c in cats])
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if title:
            ax.set_title(title)
        # Outside the axes so it never hides a line, whatever the data.
        ax.legend(title=hue, loc="upper left", bbox_to_anchor=(1.02, 1.0))
        save_figure(fig, out_png, out_svg)


def length_figure(args: argparse.Namespace) -> None:
    """Draw BLEU by source length group for one test set."""
    df = read_tsv(args.tsv, LENGTH_COLUMNS)
    df = df[df["testset"] == args.testset]
    if df.empty:
        raise InputError(f"no rows for testset {args.testset!r}", args.tsv)
    unknown = sorted(set(df["model"]) - set(args.order))
    if unknown:
        raise InputError(f"model(s) {', '.join(unknown)} not in --order", args.tsv)
    df = df.sort_values("lower", kind="stable")
    line_plot(df, "group", "bleu", "model", args.order,
              xlabel="source sentence length (words)",
              ylabel="BLEU (tokenized, points)", out_png=args.out_png,
              out_svg=args.out_svg, title=f"BLEU by source length: {args.testset}")


AGREEMENT_COLUMNS = ["model", "category", "bin", "pairs", "correct", "accuracy"]


def agreement_figure(args: argparse.Namespace) -> None:
    """Draw agreement accuracy by distance bin (Xu et al. 2020, Figure 4); a test
    set without distances gets accuracy by category instead, saying so."""
    df = read_tsv(args.tsv, AGREEMENT_COLUMNS)
    if df.empty:
        raise InputError("no rows: the evaluation scored no contrastive pairs",
                         args.tsv)
    unknown = sorted(set(df["model"]) - set(args.order))
    if unknown:
        raise InputError(f"model(s) {', '.join(unknown)} not in --order", args.tsv)
    df = df.assign(bin=df["bin"].astype(str))
    binned = df[(df["category"] == args.category) & (df["bin"] != "all")]
    if binned.empty:  # real contrastive sets often carry no distances
        category_bars(df[df["bin"] == "all"], args)
        return
    df = binned.assign(_k=binned["bin"].map(
        lambda b: 99 if b.startswith(">") else int(b)))
    df = df.assign(accuracy=100 * df["accuracy"]).sort_values("_k", kind="stable")
    line_plot(df, "bin", "accuracy", "model", args.order,
              xlabel="distance between subject and verb (tokens)",
              ylabel="accuracy (%)", out_png=args.out_png, out_svg=args.out_svg,
              title="Subject-verb agreement by distance")


def category_bars(df: pd.DataFrame, args: argparse.Namespace) -> None:
    """Accuracy per error category, one bar per model in --order (no distances)."""
    cats = sorted(set(df["category"]))
    models = [m for m in args.order if m in set(df["model"])]
    width = 0.8 / len(models)
    with mpl.rc_context(RC_PARAMS):
        fig, ax = new_axes()
        for k, model in enumerate(models):
            rows = df[df["model"] == model].set_index("category")["accuracy"]
            st = model_style(model, args.order)
            ax.bar([i + (k - (len(models) - 1) / 2) * width for i in range(len(cats))],
                   [100 * rows.get(c, float("nan")) for c in cats], width,
                   label=model, color=st.colour, edgecolor="black",
                   hatch=_HATCHES[k % len(_HATCHES)])
        ax.set_xticks(range(len(cats)), cats, rotation=30, ha="right")
        ax.set_xlabel("error category")
        ax.set_ylabel("accuracy (%)")
        ax.set_title(f"Agreement accuracy by category (no distance information "
                     f"for {args.category} in this test set)", fontsize="small")
        ax.legend(title="model", loc="upper left", bbox_to_anchor=(1.02, 1.0))
        save_figure(fig, args.out_png, args.out_svg)


def _add_outputs(p: argparse.ArgumentParser) -> None:
    """Options shared by every figure subcommand."""
    p.add_argument("--order", type=parse_order, required=True,
                   help="comma-separated model order (fixes legend and style)")
    add_figure_outputs(p)


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface of the report figures."""
    p = ArgumentParser(prog="python -m phrasenmt.report.figures",
                       description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="figure", required=True)
    length = sub.add_parser("length", help="BLEU by source sentence length")
    length.add_argument("--tsv", type=Path, required=True,
                        help="tidy TSV from phrasenmt.evaluate.length")
    length.add_argument("--testset", required=True, help="test set to draw")
    _add_outputs(length)
    length.set_defaults(draw=length_figure)
    agree = sub.add_parser("agreement", help="agreement accuracy by distance")
    agree.add_argument("--tsv", type=Path, required=True,
                       help="tidy TSV from phrasenmt.evaluate.lingeval")
    agree.add_argument("--category", default="subj_verb_agreement",
                       help="error category drawn by distance (default: "
                       "%(default)s); a test set with no distances for it gets "
                       "accuracy by category instead, saying so")
    _add_outputs(agree)
    agree.set_defaults(draw=agreement_figure)
    return p


def main(argv: list[str] | None = None) -> int:
    """Draw one report figure."""
    args = build_parser().parse_args(argv)
    with output_set():  # all of its outputs, or none
        args.draw(args)
    return 0


if __name__ == "__main__":
    run_cli(main)
