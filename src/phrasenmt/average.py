"""Average the weights of the last N checkpoints (Vaswani et al. 2017).

`python -m phrasenmt.average --checkpoint-dir DIR/checkpoints --last N --out F`
(or `--summary DIR/summary.json` to take N from the run's preset) writes a loadable model file (arch, model args, vocabularies, averaged weights).
Sums are taken in float64, so averaging identical checkpoints is exact.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import torch

from phrasenmt.cli import ArgumentParser, output_file, positive_int
from phrasenmt.io import InputError, read_json, run_cli
from phrasenmt.log import get_logger
from phrasenmt.training.checkpoint import list_checkpoints, load_file, save_file

_log = get_logger(__name__)

MODEL_KEYS = ("format", "arch", "model_args", "src_vocab", "tgt_vocab", "spec")


def average_state_dicts(states: list[dict[str, torch.Tensor]]
                        ) -> dict[str, torch.Tensor]:
    """Element-wise mean of state dicts with the same keys and shapes."""
    out = {}
    for key, first in states[0].items():
        if not first.is_floating_point():
            out[key] = first.clone()
            continue
        total = torch.zeros_like(first, dtype=torch.float64)
        for state in states:
            total += state[key].to(torch.float64)
        out[key] = (total / len(states)).to(first.dtype)
    return out


def average_checkpoints(paths: list[Path]) -> dict[str, Any]:
    """A model payload whose weights are the mean of the given checkpoints."""
    payloads = [load_file(p) for p in paths]
    first = payloads[0]
    for path, payload in zip(paths[1:], payloads[1:], strict=True):
        for key in ("arch", "model_args", "src_vocab", "tgt_vocab"):
            if payload.get(key) != first.get(key):
                raise InputError(f"{key} differs from {paths[0].name}; cannot average",
                                 path)
    averaged = {key: first[key] for key in MODEL_KEYS if key in first}
    averaged["model"] = average_state_dicts([p["model"] for p in payloads])
    averaged["averaged_from"] = [p.name for p in paths]
    return averaged


def last_from_summary(path: Path) -> int:
    """The `average_last` a finished training run recorded in summary.json."""
    try:
        value = read_json(path)["average_last"]
    except (KeyError, TypeError):
        raise InputError("not a training summary with an 'average_last' key",
                         path) from None
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise InputError(f"average_last must be a positive integer, got {value!r}",
                         path)
    return value


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options."""
    p = ArgumentParser(prog="python -m phrasenmt.average",
                       description=__doc__.split("\n")[0])
    p.add_argument("--checkpoint-dir", required=True, type=Path,
                   help="folder with checkpoint_{step}.pt files")
    how_many = p.add_mutually_exclusive_group(required=True)
    how_many.add_argument("--last", type=positive_int,
                          help="average the N checkpoints with the highest steps")
    how_many.add_argument("--summary", type=Path,
                          help="take N from this run's summary.json (average_last)")
    p.add_argument("--out", required=True, type=output_file, help="averaged model file")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    args = parse_args(argv)
    if args.summary is not None:
        args.last = last_from_summary(args.summary)
    if args.last < 1:
        raise InputError("must be at least 1", "--last")
    found = list_checkpoints(args.checkpoint_dir)
    if not found:
        raise InputError("no checkpoint_{step}.pt files", args.checkpoint_dir)
    chosen = [path for _, path in found[-args.last:]]
    if len(chosen) < args.last:
        _log.info(f"note: only {len(chosen)} checkpoints in {args.checkpoint_dir}, "
                  f"averaging all of them instead of {args.last}")
    save_file(average_checkpoints(chosen), args.out)
    _log.info(f"averaged {', '.join(p.name for p in chosen)} -> {args.out}")
    return 0


if __name__ == "__main__":
    run_cli(main)
