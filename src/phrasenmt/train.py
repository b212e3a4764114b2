"""Train a registered model: `python -m phrasenmt.train --spec SPEC ...`.

SPEC is inline JSON or a JSON/YAML file:
  {"arch": "transformer", "preset": "tiny", "model": {...}, "train": {...}}
Re-running the same command resumes from DIR/checkpoints/latest (or the newest
checkpoint that passes its checksum). Writes DIR/metrics.tsv (and its values as
TensorBoard events, DIR/events.out.tfevents.*), DIR/checkpoints/, DIR/config.yaml
and, last, DIR/summary.json. One training at a time per DIR: a
second one fails at once naming the first one's pid (DIR/.training.lock). SIGTERM or SIGUSR1 (preemption,
time limit) or Ctrl-C saves a checkpoint and exits with status 75 (a second
Ctrl-C stops at once); a NaN/inf loss exits 1
with one line giving the step. For N GPUs run it under
`torchrun --standalone --nproc-per-node N -m phrasenmt.train ...`.

Document-level models (ctx_transformer, han_*...) read `--docs TRAIN.docs,DEV.docs`
(one document id per text line). Two-step training: step 2 is
`--init-from STEP1/averaged.pt`, which loads step 1's weights strictly (only
document-level keys may be new), takes its vocabularies, and trains what the
spec's `train.freeze` leaves: `sentence` (default) the document-level
parameters, `loaded` only the keys new to this model (e.g. han_enc_dec from
han_enc: the HAN decoder), `none` everything (joint fine-tuning).

--precision auto|fp32|bf16 (`phrasenmt.precision`): the forward passes in bf16
autocast or fp32; weights, optimizer state and losses stay float32, so the
checkpoints are the same either way and a run may resume in another precision.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
from pathlib import Path

import torch

from phrasenmt.cli import (
    ArgumentParser,
    nonnegative_int,
    output_dir,
    thread_count,
)
from phrasenmt.io import run_cli
from phrasenmt.log import get_logger
from phrasenmt.precision import add_precision_argument
from phrasenmt.training.data import DataPaths, parse_side
from phrasenmt.training.run_folder import RunLock
from phrasenmt.training.spec import load_spec, resolve_spec
from phrasenmt.training.stopping import PREEMPTED_EXIT, Preempted
from phrasenmt.training.trainer import Trainer

_log = get_logger(__name__)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options."""
    p = ArgumentParser(prog="python -m phrasenmt.train",
                       description=__doc__.split("\n")[0])
    p.add_argument("--spec", required=True,
                   help="inline JSON or a JSON/YAML file: arch, preset, model, train")
    p.add_argument("--train-src", required=True, type=Path, help="BPE'd train source")
    p.add_argument("--train-tgt", required=True, type=Path, help="BPE'd train target")
    p.add_argument("--dev-src", required=True, type=Path, help="BPE'd dev source")
    p.add_argument("--dev-tgt", required=True, type=Path, help="BPE'd dev target")
    p.add_argument("--outdir", required=True, type=output_dir, help="run folder")
    p.add_argument("--seed", required=True, type=nonnegative_int,
                   help="seeds init and batching")
    p.add_argument("--threads", type=thread_count, default=None,
                   help="CPU threads for torch")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                   help="auto: CUDA when present, else CPU")
    add_precision_argument(p)
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.add_argument("--side", action="append", default=[], metavar="NAME=TRAIN,DEV",
                   help="a side input the model reads: integers per source token, "
                   "line-aligned with --train-src and --dev-src (repeatable)")
    p.add_argument("--docs", metavar="TRAIN.docs,DEV.docs", type=parse_docs,
                   help="document id per line of train and dev (models that read "
                   "document context)")
    p.add_argument("--init-from", type=Path, metavar="STEP1.pt",
                   help="two-step training: start from this (averaged) model; "
                   "train.freeze (spec) says what stays frozen")
    return p.parse_args(argv)


def parse_docs(value: str) -> tuple[Path, Path]:
    """TRAIN.docs,DEV.docs -> two paths."""
    parts = value.split(",")
    if len(parts) != 2 or not all(parts):
        raise argparse.ArgumentTypeError(f"expected TRAIN.docs,DEV.docs, got {value!r}")
    return Path(parts[0]), Path(parts[1])


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    args = parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    spec = resolve_spec(*load_spec(args.spec))
    paths = DataPaths(args.train_src, args.train_tgt, args.dev_src, args.dev_tgt,
                      parse_side(args.side, 2), args.docs)
    # Rank 0 locks the run folder before reading anything: a second training
    # into the same folder fails at once, not after loading its data.
    main_rank = int(os.environ.get("RANK", "0")) == 0
    with RunLock(args.outdir) if main_rank else contextlib.nullcontext():
        trainer = Trainer(spec, paths, args.outdir, args.seed, args.device,
                          progress_bar=not args.no_progress,
                          init_from=args.init_from, precision=args.precision)
        if trainer.dist.is_main:
            _log.info(f"precision: {trainer.precision}")
        try:
            summary = trainer.run()
        except Preempted as stop:
            _log.info(f"stopped: {stop}")
            return PREEMPTED_EXIT
        finally:
            trainer.dist.close()
    if trainer.dist.is_main:
        _log.info(json.dumps(summary))
    return 0


if __name__ == "__main__":
    run_cli(main)
