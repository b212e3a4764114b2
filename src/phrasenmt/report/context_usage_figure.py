"""The context-usage figure (`python -m phrasenmt.report.context_usage figure`).

Drawn from the table's CSV: with a contrastive set, pronoun accuracy by
antecedent distance (bars) beside CXMI against a random context on the test
set and the pronoun items (points with intervals); without one, the test set's
CXMI against a random context, one point per model.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import matplotlib as mpl
import pandas as pd

from phrasenmt.io import InputError, read_table_text
from phrasenmt.report.figures import new_axes, save_figure
from phrasenmt.report.style import RC_PARAMS, model_style

BUCKETS = ("0", "1", "2", ">=3")  # antecedent distance in sentences


def bucket_label(bucket: str) -> str:
    """How a table or figure names a distance bucket: 'd = 1', 'd ≥ 3'."""
    return f"d ≥ {bucket[2:]}" if bucket.startswith(">=") else f"d = {bucket}"


def read_table_csv(path: Path) -> pd.DataFrame:
    """The table's CSV, with the columns the figure draws."""
    import io

    try:
        df = pd.read_csv(io.StringIO(read_table_text(path)))
    except (pd.errors.ParserError, pd.errors.EmptyDataError):
        raise InputError("not a readable CSV", path) from None
    need = ["model", "items", "accuracy", *(f"accuracy_d{b}" for b in BUCKETS),
            *(f"items_d{b}" for b in BUCKETS),
            *(f"{p}_cxmi_random{s}" for p in ("test", "items")
              for s in ("", "_low", "_high"))]
    missing = [c for c in need if c not in df.columns]
    if missing:
        raise InputError(f"missing column(s) {', '.join(missing)}", path)
    return df


def _cxmi_points(ax: Any, df: pd.DataFrame, models: list[str], order: list[str],
                 parts: tuple[str, ...]) -> None:
    """CXMI vs random context of each part (test set, pronoun items) per model,
    with its interval."""
    width = 0.8 / len(models)
    for k, model in enumerate(models):
        st = model_style(model, order)
        for j, part in enumerate(parts):
            key = f"{part}_cxmi_random"
            value = df.loc[model, key]
            err = [[value - df.loc[model, key + "_low"]],
                   [df.loc[model, key + "_high"] - value]]
            ax.errorbar([j + (k - (len(models) - 1) / 2) * width], [value],
                        yerr=err, fmt=st.marker, color=st.colour, capsize=3,
                        label=model if j == 0 else None)
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_xticks(range(len(parts)), [{"test": "test set", "items": "pronoun items"}[p]
                                      for p in parts])
    ax.set_ylabel("CXMI vs random context (nats/token)")


def test_set_figure(df: pd.DataFrame, models: list[str],
                    args: argparse.Namespace) -> None:
    """CXMI vs random context on the test set, one point per model (a dataset
    without a contrastive set)."""
    with mpl.rc_context({**RC_PARAMS, "figure.figsize": (
            max(4.0, 1.2 * len(models) + 1.5), 4.0)}):
        fig, ax = new_axes()
        for k, model in enumerate(models):
            st = model_style(model, args.order)
            value = df.loc[model, "test_cxmi_random"]
            err = [[value - df.loc[model, "test_cxmi_random_low"]],
                   [df.loc[model, "test_cxmi_random_high"] - value]]
            ax.errorbar([k], [value], yerr=err, fmt=st.marker, color=st.colour,
                        capsize=3)
        ax.axhline(0, color="grey", linewidth=0.8)
        ax.set_xticks(range(len(models)), models, rotation=30, ha="right")
        ax.set_xlim(-0.5, len(models) - 0.5)
        ax.set_ylabel("CXMI vs random context, test set (nats/token)")
        save_figure(fig, args.out_png, args.out_svg)


def figure(args: argparse.Namespace) -> None:
    """Accuracy by distance (bars, with a contrastive set) and CXMI vs random
    (points with intervals)."""
    df = read_table_csv(args.csv)
    models = [m for m in args.order if m in set(df["model"])]
    if not models:
        raise InputError("no model of --order in the table", args.csv)
    df = df.set_index("model")
    if df["items"].max() == 0:  # no contrastive set: the test set's CXMI alone
        test_set_figure(df, models, args)
        return
    groups = ["all", *(b for b in BUCKETS if df[f"items_d{b}"].max() > 0)]
    width = 0.8 / len(models)
    with mpl.rc_context({**RC_PARAMS, "figure.figsize": (10.0, 4.0)}):
        fig, _ = new_axes()
        fig.clear()
        left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [3, 2],
                                                      "wspace": 0.35})
        for k, model in enumerate(models):
            st = model_style(model, args.order)
            values = [df.loc[model, "accuracy" if g == "all" else f"accuracy_d{g}"]
                      for g in groups]
            left.bar([i + (k - (len(models) - 1) / 2) * width for i in
                      range(len(groups))], values, width, label=model,
                     color=st.colour, edgecolor=st.edge, hatch=st.hatch)
        _cxmi_points(right, df, models, args.order, ("test", "items"))
        left.set_xticks(range(len(groups)),
                        ["all" if g == "all" else bucket_label(g) for g in groups])
        left.set_xlabel("antecedent distance (sentences)")
        left.set_ylabel("contrastive pronoun accuracy (%)")
        left.axhline(50, color="grey", linewidth=0.8, linestyle=":")
        left.legend(loc="upper left", bbox_to_anchor=(0, -0.15), ncol=3,
                    fontsize="small")
        save_figure(fig, args.out_png, args.out_svg)
