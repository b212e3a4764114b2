"""Soft local reordering gates of one source sentence, for the Appendix A heatmap.

    python -m phrasenmt.evaluate.gates --checkpoint M --input SRC --line N
        --out OUT.tsv

Huang et al. (2018), Appendix A: the gates of the reordering layer
(`phrasenmt.models.reordering`) at every window position of one test sentence,
as a tidy TSV (position, source_token, offset, gate) that
`phrasenmt.report.gates` draws.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch
from torch import Tensor, nn

from phrasenmt.cli import ArgumentParser, output_file, positive_int
from phrasenmt.io import InputError, read_lines, run_cli, write_lines
from phrasenmt.models.reordering import SoftLocalReordering
from phrasenmt.text.vocab import EOS
from phrasenmt.training.checkpoint import load_model


def reordering_layer(model: nn.Module) -> SoftLocalReordering:
    """The model's (first) reordering layer; InputError if it has none."""
    for module in model.modules():
        if isinstance(module, SoftLocalReordering):
            return module
    raise InputError("the model has no reordering layer", "--checkpoint")


@torch.no_grad()
def sentence_gates(model: nn.Module, ids: list[int]) -> Tensor:
    """Gates (S + 1, W) of one encoded sentence (its </s> position included)."""
    layer, captured = reordering_layer(model), []
    hook = layer.register_forward_hook(lambda _m, _i, out: captured.append(out[1]))
    try:
        device = next(model.parameters()).device
        model.encode(torch.tensor([[*ids, EOS]], device=device))
    finally:
        hook.remove()
    return captured[0][0].float().cpu()


def gate_rows(tokens: list[str], gates: Tensor) -> list[str]:
    """Tidy TSV rows: position (1-based), source_token, offset (−τ..τ), gate."""
    tau = gates.size(1) // 2
    rows = ["position\tsource_token\toffset\tgate"]
    for pos, token in enumerate([*tokens, "</s>"], start=1):
        for i in range(gates.size(1)):
            rows.append(f"{pos}\t{token}\t{i - tau}\t{float(gates[pos - 1, i]):.6f}")
    return rows


def build_parser() -> argparse.ArgumentParser:
    """Options of the gates command."""
    g = ArgumentParser(prog="python -m phrasenmt.evaluate.gates",
                       description="Reordering gates of one source sentence: "
                       "position (1-based; the final </s> is n+1), source_token, "
                       "offset (-tau..tau), gate.")
    g.add_argument("--checkpoint", required=True, type=Path, help="model file")
    g.add_argument("--input", required=True, type=Path, help="source text")
    g.add_argument("--line", required=True, type=positive_int,
                   help="1-based line number")
    g.add_argument("--out", required=True, type=output_file, help="TSV to write")
    return g


def main(argv: list[str] | None = None) -> int:
    """Entry point: `--checkpoint M --input SRC --line N --out OUT.tsv`."""
    args = build_parser().parse_args(argv)
    lines = read_lines(args.input, allow_empty=False)
    if not 1 <= args.line <= len(lines):
        raise InputError(f"must be between 1 and {len(lines)} (lines in "
                         f"{args.input}), got {args.line}", "--line")
    model, src_vocab, _, _ = load_model(args.checkpoint)
    reordering_layer(model)  # fail before any work if there is none
    line = lines[args.line - 1]
    gates = sentence_gates(model, src_vocab.encode(line))
    write_lines(args.out, gate_rows(line.split(), gates))
    return 0


if __name__ == "__main__":
    run_cli(main)
