"""One fixed style per model position, shared by every figure and table.

A model's style depends only on its position in the model order, so passing
the same ``--order`` to every report command gives every model the same
colour, marker, line style and hatch everywhere. Colours are the Okabe-Ito
palette (colour-blind safe); markers and line styles differ as well, so the
figures read in greyscale.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

# Okabe-Ito, ordered so neighbours differ in lightness when printed in grey.
COLOURS = ("#000000", "#E69F00", "#0072B2", "#009E73", "#D55E00", "#56B4E9",
           "#CC79A7", "#F0E442")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINESTYLES: tuple[Any, ...] = (
    "-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)), (0, (1, 3)),
    (0, (8, 3, 2, 3)))
HATCHES = ("", "//", "\\\\", "xx", "..", "oo", "--", "++")

# Fixed rcParams for every figure; svg.hashsalt makes SVG ids reproducible.
RC_PARAMS: dict[str, Any] = {
    "figure.figsize": (6.0, 4.0),
    "figure.dpi": 100,
    "savefig.dpi": 150,
    "font.size": 10,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "lines.linewidth": 1.6,
    "lines.markersize": 6,
    "legend.frameon": False,
    "svg.hashsalt": "phrasenmt",
    "svg.fonttype": "path",
}
# Metadata that would otherwise embed dates or versions and break reproducibility.
SVG_METADATA = {"Date": None, "Creator": None}
PNG_METADATA = {"Software": None}


@dataclass(frozen=True)
class ModelStyle:
    """How one model is drawn."""

    colour: str
    marker: str
    linestyle: Any
    hatch: str

    @property
    def edge(self) -> str:
        """A bar's edge and hatch colour: white on a black bar, so that its
        hatch shows."""
        return "white" if self.colour == COLOURS[0] and self.hatch else "black"


def model_style(model: str, order: list[str]) -> ModelStyle:
    """The style of `model`, fixed by its position in `order`."""
    if model not in order:
        raise ValueError(f"model {model!r} is not in the model order {order}")
    i = order.index(model)
    # from the ninth model on, colours repeat with the next marker, line style
    # and hatch, so that no two of up to 64 models look the same
    j = i + i // len(COLOURS)
    return ModelStyle(COLOURS[i % len(COLOURS)], MARKERS[j % len(MARKERS)],
                      LINESTYLES[j % len(LINESTYLES)], HATCHES[j % len(HATCHES)])


def parse_order(text: str) -> list[str]:
    """argparse type: comma-separated, non-empty, unique model names."""
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"empty model name in order {text!r}")
    if len(set(names)) != len(names):
        raise argparse.ArgumentTypeError(f"model named twice in order {text!r}")
    return names
