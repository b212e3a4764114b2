"""Learning-curve figure: training and dev NLL of every model against updates
and against training time.

    python -m phrasenmt.report.learning_curves_figure --tsv TSV --order A,B
        --dataset NAME --out-png PNG --out-svg SVG

draws the TSV of `phrasenmt.report.learning_curves`: the left panel against
updates, the right one against training time, one row of panels per objective
(a vMF model's NLL has another scale than a softmax model's cross-entropy).
Each model has its fixed colour, marker and line style
(`phrasenmt.report.style`); its dev NLL is drawn with markers, its training NLL
as a thin line without them, so the figure reads in greyscale. Every seed of a
model is drawn, in the same style.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib as mpl
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from phrasenmt.cli import ArgumentParser, add_figure_outputs
from phrasenmt.io import InputError, output_set, read_tsv, run_cli
from phrasenmt.report.figures import save_figure
from phrasenmt.report.learning_curves import COLUMNS
from phrasenmt.report.style import RC_PARAMS, model_style, parse_order

OBJECTIVES = {"cross-entropy": "cross-entropy per target token (nats)",
              "vMF": "vMF NLL per target token (nats)"}
SPLITS = ("train", "dev")


def time_unit(max_seconds: float) -> tuple[str, float]:
    """(unit, seconds per unit) that keeps the time axis' numbers short."""
    if max_seconds >= 3 * 3600:
        return "h", 3600.0
    if max_seconds >= 3 * 60:
        return "min", 60.0
    return "s", 1.0


def check_tsv(df: pd.DataFrame, order: list[str], path: Path) -> None:
    """Known models, objectives and splits; one point per (run, split, step)."""
    unknown = sorted(set(df["model"]) - set(order))
    if unknown:
        raise InputError(f"model(s) {', '.join(map(str, unknown))} not in --order",
                         path)
    for column, allowed in (("objective", OBJECTIVES), ("split", SPLITS)):
        bad = sorted(set(df[column].astype(str)) - set(allowed))
        if bad:
            raise InputError(f"unknown {column} value(s) {', '.join(bad)}", path)
    if df.duplicated(["model", "seed", "split", "step"]).any():
        raise InputError("more than one point per (model, seed, split, step)", path)
    for column in ("step", "train_seconds", "nll"):
        if not pd.api.types.is_numeric_dtype(df[column]) or df[column].isna().any():
            raise InputError(f"column {column} has a value that is not a number",
                             path)


def draw_row(axes: tuple[Axes, Axes], df: pd.DataFrame, order: list[str],
             unit: tuple[str, float], ylabel: str) -> None:
    """One objective's panels: NLL against updates, and against training time."""
    for (model, seed, split), run in df.groupby(["model", "seed", "split"],
                                                sort=False):
        st, dev = model_style(model, order), split == "dev"
        run = run.sort_values("step")
        for ax, x in zip(axes, (run["step"], run["train_seconds"] / unit[1]),
                         strict=True):
            ax.plot(x, run["nll"], color=st.colour, linestyle=st.linestyle,
                    marker=st.marker if dev else None, markevery=max(len(run) // 12, 1),
                    linewidth=None if dev else 0.8, alpha=1.0 if dev else 0.6)
    axes[0].set_xlabel("updates")
    axes[1].set_xlabel(f"training time ({unit[0]}; validation included)")
    for ax in axes:
        ax.set_ylabel(ylabel)


def legend_handles(models: list[str], order: list[str]) -> list[Line2D]:
    """One entry per model in model order, then what markers and thin lines mean."""
    handles = []
    for model in models:
        st = model_style(model, order)
        handles.append(Line2D([], [], color=st.colour, linestyle=st.linestyle,
                              marker=st.marker, label=model))
    handles.append(Line2D([], [], color="0.3", marker="o", label="dev (markers)"))
    handles.append(Line2D([], [], color="0.3", linewidth=0.8, alpha=0.6,
                          label="train (thin line)"))
    return handles


def draw(df: pd.DataFrame, order: list[str], dataset: str, out_png: Path,
         out_svg: Path) -> None:
    """The figure: a row of two panels per objective present, a shared legend."""
    objectives = [o for o in OBJECTIVES if o in set(df["objective"])]
    models = [m for m in order if m in set(df["model"])]
    unit = time_unit(float(df["train_seconds"].max()))
    with mpl.rc_context(RC_PARAMS):
        fig = Figure(figsize=(11.0, 3.6 * len(objectives) + 0.6))
        FigureCanvasAgg(fig)
        grid = fig.subplots(len(objectives), 2, squeeze=False)
        for row, objective in zip(grid, objectives, strict=True):
            draw_row((row[0], row[1]), df[df["objective"] == objective], order, unit,
                     OBJECTIVES[objective])
        fig.suptitle(f"Learning curves: {dataset}")
        # Outside the panels so it never hides a curve, whatever the data.
        grid[0][1].legend(handles=legend_handles(models, order), title="model",
                          loc="upper left", bbox_to_anchor=(1.02, 1.0))
        fig.tight_layout()
        save_figure(fig, out_png, out_svg)


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    p = ArgumentParser(prog="python -m phrasenmt.report.learning_curves_figure",
                       description=__doc__.splitlines()[0] + " "
                       + __doc__.splitlines()[1])
    p.add_argument("--tsv", type=Path, required=True,
                   help="tidy TSV from phrasenmt.report.learning_curves")
    p.add_argument("--order", type=parse_order, required=True,
                   help="comma-separated model order (fixes legend and style)")
    p.add_argument("--dataset", required=True, help="dataset name for the title")
    add_figure_outputs(p)
    return p


def main(argv: list[str] | None = None) -> int:
    """Draw the learning-curve figure."""
    args = build_parser().parse_args(argv)
    df = read_tsv(args.tsv, COLUMNS, keep_default_na=False, na_values=[""],
                  dtype={"model": str, "objective": str, "split": str})
    if df.empty:
        raise InputError("no points to draw", args.tsv)
    check_tsv(df, args.order, args.tsv)
    with output_set():  # all of its outputs, or none
        draw(df, args.order, args.dataset, args.out_png, args.out_svg)
    return 0


if __name__ == "__main__":
    run_cli(main)
