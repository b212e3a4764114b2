"""Training speed of CoNMT and PCoNMT relative to the softmax attention RNN.

    python benchmarks/continuous_speed.py [--vocab 32000] [--phrases 8000]
        [--batch 64] [--length 25] [--steps 5] [--device auto] [--threads N]

One run, same machine, same batch: random sentences over a V-word target
vocabulary; `attn_rnn` has a softmax over V, `conmt` predicts a vector scored
against a frozen V x m table with the vMF loss, `pconmt_fert2` does the same
over V words + P phrases (its fertility module is trained afterwards, so it
costs nothing here). Prints training samples (sentence pairs) per second of
each model (forward, loss, backward, Adam step) and the speed-up over attn_rnn.
"""

from __future__ import annotations

import argparse
import time

import torch
import torch.nn.functional as F

from phrasenmt.models.attn_rnn import AttnRNN, RNNConfig
from phrasenmt.models.continuous import ContinuousConfig, ContinuousOutputNMT
from phrasenmt.nn.batching import Batch, collate
from phrasenmt.training.trainer import resolve_device


def random_batch(args: argparse.Namespace, tgt_vocab: int, device) -> Batch:
    """`batch` random pairs of `length` tokens (ids above the specials)."""
    g = torch.Generator().manual_seed(0)
    src = torch.randint(4, args.vocab, (args.batch, args.length), generator=g)
    tgt = torch.randint(4, tgt_vocab, (args.batch, args.length), generator=g)
    return collate(src.tolist(), tgt.tolist()).to(device)


def build(arch: str, args: argparse.Namespace) -> torch.nn.Module:
    """One of the three models at the benchmark's sizes."""
    sizes = {"src_vocab_size": args.vocab, "embed_size": args.embed,
             "hidden_size": args.hidden, "dropout": 0.1}
    if arch == "attn_rnn":
        return AttnRNN(RNNConfig(tgt_vocab_size=args.vocab, **sizes))
    phrases = args.phrases if arch == "pconmt_fert2" else 0
    cfg = ContinuousConfig(tgt_vocab_size=args.vocab + phrases, embed_dim=args.dim,
                           fertility_classes=2 if phrases else 0, **sizes)
    model = ContinuousOutputNMT(cfg)
    with torch.no_grad():  # a random unit-norm table stands in for fastText
        model.table.copy_(F.normalize(torch.randn(model.table.shape), dim=-1))
        model.is_phrase[args.vocab:] = True
    return model


def samples_per_second(model: torch.nn.Module, batch: Batch, args: argparse.Namespace,
                       device: torch.device) -> float:
    """Training sentence pairs per second over `steps` updates (after warm-up)."""
    model.to(device).train()
    opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-4)

    def update() -> None:
        loss, _ = model.loss(batch, 0.1)
        opt.zero_grad(set_to_none=True)
        (loss / batch.ntokens).backward()
        opt.step()

    for _ in range(args.warmup):
        update()
    if device.type == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(args.steps):
        update()
    if device.type == "cuda":
        torch.cuda.synchronize()
    return args.batch * args.steps / (time.perf_counter() - start)


def parse_args() -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--vocab", type=int, default=32000, help="target words V")
    p.add_argument("--phrases", type=int, default=8000, help="PCoNMT phrases P")
    p.add_argument("--batch", type=int, default=64, help="sentence pairs per update")
    p.add_argument("--length", type=int, default=25, help="tokens per sentence")
    p.add_argument("--embed", type=int, default=256, help="input embedding width")
    p.add_argument("--hidden", type=int, default=512, help="LSTM width")
    p.add_argument("--dim", type=int, default=300, help="output embedding dim m")
    p.add_argument("--steps", type=int, default=5, help="timed updates per model")
    p.add_argument("--warmup", type=int, default=1, help="untimed updates first")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    p.add_argument("--threads", type=int, default=None, help="CPU threads")
    return p.parse_args()


def main() -> None:
    """Time the three models and print samples/s and speed-ups."""
    args = parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    device = resolve_device(args.device)
    speeds = {}
    for arch in ("attn_rnn", "conmt", "pconmt_fert2"):
        torch.manual_seed(0)
        model = build(arch, args)
        batch = random_batch(args, args.vocab, device)
        speeds[arch] = samples_per_second(model, batch, args, device)
        del model
    print(f"device {device}, V={args.vocab}, P={args.phrases}, batch {args.batch} "
          f"x {args.length} tokens, LSTM {args.hidden}, m={args.dim}")
    print(f"{'model':<14}{'samples/s':>12}{'vs attn_rnn':>14}")
    for arch, speed in speeds.items():
        print(f"{arch:<14}{speed:>12.1f}{speed / speeds['attn_rnn']:>13.2f}x")


if __name__ == "__main__":
    main()
