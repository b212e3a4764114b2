"""The speed suites: `python -m benchmarks.speed --suite NAME [options]`.

`--suite NAME --help` lists a suite's options; each times its models with the
harness's loop and writes its figures to `--out` (benchmarks/harness.py).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

from phrasenmt.cli import ArgumentParser

SUITES = {"families": "model families beside their references (Transformer, phrase "
          "representations, CoNMT/PCoNMT, NPMT)",
          "precision": "fp32 against bf16 autocast, eager against torch.compile",
          "ceiling": "matmul FLOPs per update against this machine's fp32 peak",
          "peers": "our Transformer against fairseq's (training and beam search)",
          "chain": "alignment, phrase extraction and embeddings, pairs/s and AER",
          "context": "step-2 training of the document models (frozen context "
          "states), against another checkout with --against",
          "datapath": "collating a 25k-token batch, the trainer's wait for data, "
          "operators per update; beside another checkout (--against)",
          "kernels": "aten operators per Transformer update on the CPU (all, "
          "kernel-making, read-backs; by phase), beside another checkout (--against)",
          "shapes": "batch shapes per epoch and padding, with and without "
          "train.length_buckets (counting only)"}


def main(argv: Sequence[str] | None = None) -> int:
    """Pick the suite, hand it the remaining options -> exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    p = ArgumentParser(prog="python -m benchmarks.speed", add_help=False,
                       description=__doc__.split("\n")[0], epilog="suites: " + "; ".join(
                           f"{k}: {v}" for k, v in SUITES.items()))
    p.add_argument("--suite", choices=list(SUITES))
    p.add_argument("-h", "--help", action="store_true")
    known, rest = p.parse_known_args(argv)
    if known.suite is None and known.help:
        p.print_help()
        return 0
    if known.suite is None:
        p.error("the following arguments are required: --suite")
    module = importlib.import_module(f"benchmarks.{known.suite}")
    return module.main([*rest, "--help"] if known.help else rest)


if __name__ == "__main__":
    sys.exit(main())
