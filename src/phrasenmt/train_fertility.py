"""Train PCoNMT's fertility module with the translation network frozen.

    python -m phrasenmt.train_fertility --checkpoint averaged.pt
        --train-src train.de --train-labels train.fert2
        --dev-src dev.de --dev-labels dev.fert2 --out fertility.pt [--epochs 2]

Park & Tsvetkov (2019), 2.3: after the translation model is trained its
parameters are frozen and the fertility FFNN over [x_e; h_e] is trained on the
gold fertility labels (one integer per source token, line-aligned with the
source; 0..3 for Fertility 4, 0/1 for Fertility 2) with cross-entropy. The
weights after the epoch with the lowest dev loss are written as a complete
model file (the translation weights unchanged), which `phrasenmt.translate`
decodes with fertility guidance. --precision (`phrasenmt.precision`): the
forward passes in bf16 autocast or fp32; the weights and the cross-entropy stay
float32, so the file is the same kind whatever the precision.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from phrasenmt import precision as prec
from phrasenmt.cli import (
    ArgumentParser,
    nonnegative_int,
    output_file,
    positive_float,
    positive_int,
    thread_count,
)
from phrasenmt.io import InputError, run_cli
from phrasenmt.log import get_logger
from phrasenmt.nn.batching import SIDE_PAD, collate, make_batches
from phrasenmt.training.checkpoint import load_model, model_payload, save_file
from phrasenmt.training.data import FertilityData as Data
from phrasenmt.training.data import load_labelled

_log = get_logger(__name__)

Cast = Callable[[], contextlib.AbstractContextManager]  # autocast of a precision


def batch_loss(model, src: list[list[int]], labels: list[list[int]],
               cast: Cast = contextlib.nullcontext) -> tuple[torch.Tensor, int]:
    """Summed cross-entropy of the fertility module and the number of tokens."""
    batch = collate(src, [[] for _ in src], {"fertility": labels})
    with cast():
        with torch.no_grad():
            state = model.encode(batch.src)  # frozen: features only
        logits = model.fertility(torch.cat([state["src_embed"], state["memory"]], -1))
    gold = batch.side["fertility"]  # (B, S), -1 at </s> and padding
    return fertility_loss(logits.flatten(0, 1), gold.flatten()), int(
        gold.ne(SIDE_PAD).sum())


@prec.full_precision
def fertility_loss(logits: torch.Tensor, gold: torch.Tensor) -> torch.Tensor:
    """Summed cross-entropy of logits (N, classes) against labels (N,), in fp32."""
    return F.cross_entropy(logits, gold, ignore_index=SIDE_PAD, reduction="sum")


def run_epoch(model, data: Data, batches: list[list[int]],
              optimizer: torch.optim.Optimizer | None,
              cast: Cast = contextlib.nullcontext) -> float:
    """One pass (training when an optimizer is given) -> loss per token."""
    total, count = 0.0, 0
    for idx in batches:
        with torch.set_grad_enabled(optimizer is not None):
            loss, n = batch_loss(model, [data[0][i] for i in idx],
                                 [data[1][i] for i in idx], cast)
        if optimizer is not None:
            optimizer.zero_grad(set_to_none=True)
            (loss / max(n, 1)).backward()
            optimizer.step()
        total, count = total + loss.item(), count + n
    return total / max(count, 1)


def train(model, train_data: Data, dev_data: Data, epochs: int, lr: float,
          max_tokens: int, seed: int, cast: Cast = contextlib.nullcontext
          ) -> list[dict]:
    """Train the fertility FFNN only; keep the weights of the best dev epoch."""
    torch.manual_seed(seed)
    model.requires_grad_(False).eval()
    model.fertility.requires_grad_(True)
    optimizer = torch.optim.Adam(model.fertility.parameters(), lr=lr)
    lens = [len(s) for s in train_data[0]]
    batches = make_batches(lens, lens, max_tokens, seed)
    dev_lens = [len(s) for s in dev_data[0]]
    dev_batches = make_batches(dev_lens, dev_lens, max_tokens, 0)
    log, best = [], (float("inf"), None)
    for epoch in range(1, epochs + 1):
        order = np.random.default_rng([seed, epoch]).permutation(len(batches))
        train_loss = run_epoch(model, train_data, [batches[i] for i in order],
                               optimizer, cast)
        dev_loss = run_epoch(model, dev_data, dev_batches, None, cast)
        log.append({"epoch": epoch, "train_loss": train_loss, "dev_loss": dev_loss})
        _log.info(f"epoch {epoch}: train {train_loss:.4f} dev {dev_loss:.4f}")
        if dev_loss < best[0]:
            best = (dev_loss, {k: v.clone() for k, v in
                               model.fertility.state_dict().items()})
    model.fertility.load_state_dict(best[1])
    return log


def build_parser() -> argparse.ArgumentParser:
    """Command-line options."""
    p = ArgumentParser(prog="python -m phrasenmt.train_fertility",
                       description=__doc__.splitlines()[0])
    p.add_argument("--checkpoint", required=True, type=Path,
                   help="trained PCoNMT model (with a fertility module)")
    for split in ("train", "dev"):
        p.add_argument(f"--{split}-src", required=True, type=Path,
                       help=f"{split} source text (as the model was trained on)")
        p.add_argument(f"--{split}-labels", required=True, type=Path,
                       help=f"{split} fertility labels, one per source token")
    p.add_argument("--out", required=True, type=output_file, help="model file to write")
    p.add_argument("--epochs", type=positive_int, default=2,
                   help="passes over the data")
    p.add_argument("--lr", type=positive_float, default=1e-3, help="Adam learning rate")
    p.add_argument("--max-tokens", type=positive_int, default=4096,
                   help="tokens per batch")
    p.add_argument("--seed", type=nonnegative_int, default=1,
                   help="seeds init and batch order")
    p.add_argument("--threads", type=thread_count, default=None,
                   help="CPU threads for torch")
    prec.add_precision_argument(p)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    args = build_parser().parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.epochs < 1:
        raise InputError("must be at least 1", "--epochs")
    model, src_vocab, tgt_vocab, payload = load_model(args.checkpoint)
    precision = prec.resolve(args.precision, torch.device("cpu"),
                             width=prec.model_width(model.cfg))
    _log.info(f"precision: {precision}")
    if getattr(model, "fertility", None) is None:
        raise InputError("the model has no fertility module (fertility_classes 0)",
                         args.checkpoint)
    classes = model.cfg.fertility_classes
    train_data = load_labelled(args.train_src, args.train_labels, src_vocab, classes)
    dev_data = load_labelled(args.dev_src, args.dev_labels, src_vocab, classes)
    with prec.kernels(precision, torch.device("cpu")):  # backward passes too
        log = train(model, train_data, dev_data, args.epochs, args.lr, args.max_tokens,
                    args.seed, lambda: prec.autocast(precision, torch.device("cpu")))
    out = model_payload(payload["arch"], model, src_vocab, tgt_vocab, payload["spec"])
    out["fertility_training"] = log
    save_file(out, args.out)
    return 0


if __name__ == "__main__":
    run_cli(main)
