"""Reordering gates of one sentence as a heatmap (Huang et al. 2018, App. A, Fig. 5).

    python -m phrasenmt.report.gates --tsv GATES.tsv --segments TEST.greedy.segments
        --line N --model NAME --out-png F.png --out-svg F.svg

One row per source position (the window centred on that word; the final </s> is
n+1), one column per offset -τ..τ in the window; the grey level is the gate
σ(w_iᵀ[e_{t-τ}; ...; e_{t+τ}]) of Eq. 2 and each cell names the word it gates.
The row label is the centre word and what its position emitted in the greedy
decoding ("$" when it slept), as the paper's y axis. Cells beyond the sentence
(zero vectors, whose gates weigh nothing) are left blank and marked "∅".
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib as mpl
import numpy as np
import pandas as pd

from phrasenmt.cli import ArgumentParser, add_figure_outputs, positive_int
from phrasenmt.io import InputError, output_set, parse_json, read_lines, run_cli
from phrasenmt.report.figures import new_axes, save_figure
from phrasenmt.report.npmt import read_text_tsv
from phrasenmt.report.style import RC_PARAMS

GATE_COLUMNS = ("position", "source_token", "offset", "gate")


def gate_matrix(df: pd.DataFrame) -> tuple[np.ndarray, list[str], list[int]]:
    """(gates (positions, offsets), centre tokens, offsets) from the tidy rows."""
    try:
        df = df.astype({"position": int, "offset": int, "gate": float})
    except ValueError:
        raise ValueError("position, offset and gate must be numbers") from None
    if df.duplicated(["position", "offset"]).any():
        raise ValueError("more than one gate per (position, offset)")
    if sorted(set(df["position"])) != list(range(1, df["position"].nunique() + 1)):
        raise ValueError("positions must be 1..n without gaps")
    wide = df.pivot(index="position", columns="offset", values="gate").sort_index()
    if wide.isna().any().any():
        raise ValueError("some (position, offset) has no gate")
    tokens = df.drop_duplicates("position").set_index("position")["source_token"]
    return (wide.to_numpy(dtype=float), [str(tokens[p]) for p in wide.index],
            [int(o) for o in wide.columns])


def emitted_labels(path: Path, line: int, tokens: list[str]) -> list[str]:
    """Row labels "word → emitted" from line `line` of a segments file."""
    lines = read_lines(path)
    if not 1 <= line <= len(lines):
        raise InputError(f"has {len(lines)} lines, no line {line}", path)
    try:
        segs = parse_json(lines[line - 1], path, line)["segments"]
    except (KeyError, TypeError):
        raise InputError('not a JSON object with "segments"', path, line) from None
    if len(segs) != len(tokens):
        raise InputError(f"has {len(segs)} segments but the gates file has "
                         f"{len(tokens)} positions", path, line)
    return [f"{w} → {' '.join(s) if s else '$'}" for w, s in zip(tokens, segs,
                                                                   strict=True)]


def window_word(tokens: list[str], row: int, offset: int) -> str:
    """The word at `offset` from position `row` ("" beyond the sentence)."""
    j = row + offset
    return tokens[j] if 0 <= j < len(tokens) else ""


def draw(gates: np.ndarray, tokens: list[str], offsets: list[int],
         labels: list[str], title: str, out_png: Path, out_svg: Path) -> None:
    """The heatmap, one annotated cell per (position, offset)."""
    rows, cols = gates.shape
    style = {**RC_PARAMS, "axes.grid": False,
             "figure.figsize": (1.0 + 0.9 * cols, 1.2 + 0.42 * rows)}
    with mpl.rc_context(style):
        fig, ax = new_axes()
        shown = gates.copy()
        for r in range(rows):
            for c, off in enumerate(offsets):
                word = window_word(tokens, r, off)
                if not word:  # a zero vector beyond the edge: its gate weighs nothing
                    shown[r, c] = np.nan
                ax.text(c, r, word or "∅", ha="center", va="center", fontsize=7,
                        color="white" if shown[r, c] > 0.55 else "black")
        image = ax.imshow(shown, cmap="Greys", vmin=0.0, vmax=1.0, aspect="auto")
        ax.set_xticks(range(cols), [f"{o:+d}" if o else "0" for o in offsets])
        ax.set_yticks(range(rows), labels)
        ax.set_xlabel("offset in the reordering window (words)")
        ax.set_ylabel("centre word → emitted segment")
        ax.set_title(title)
        fig.colorbar(image, ax=ax, label="gate value σ (0–1)")
        save_figure(fig, out_png, out_svg)


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface of the gates figure."""
    p = ArgumentParser(prog="python -m phrasenmt.report.gates",
                       description=__doc__.splitlines()[0])
    p.add_argument("--tsv", type=Path, required=True,
                   help="gates TSV from phrasenmt.evaluate.gates")
    p.add_argument("--segments", type=Path, required=True,
                   help="greedy segments of the same model and test set")
    p.add_argument("--line", type=positive_int, required=True,
                   help="1-based test line the gates are of")
    p.add_argument("--model", required=True, help="model name (title)")
    add_figure_outputs(p)
    return p


def main(argv: list[str] | None = None) -> int:
    """Draw the gates heatmap."""
    args = build_parser().parse_args(argv)
    df = read_text_tsv(args.tsv, GATE_COLUMNS)
    if df.empty:
        raise InputError("no gates", args.tsv)
    try:
        gates, tokens, offsets = gate_matrix(df)
    except ValueError as err:
        raise InputError(str(err), args.tsv) from None
    labels = emitted_labels(args.segments, args.line, tokens)
    with output_set():  # all of its outputs, or none
        draw(gates, tokens, offsets, labels,
             f"Reordering gates of {args.model}, test line {args.line}",
             args.out_png, args.out_svg)
    return 0


if __name__ == "__main__":
    run_cli(main)
