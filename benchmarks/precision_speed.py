"""Training step time of the `tiny` Transformer in fp32 and in bf16 autocast.

Copies of the same model (same init, same random batches) take updates in
turn, one in fp32 and one under bf16 autocast (`phrasenmt.precision`), so that
machine load affects both alike; each update is the trainer's: `model.loss`
in the precision's context, backward, Adam. On a CPU without native bf16 a
third copy runs bf16 on torch's own bf16 kernels (oneDNN's emulation), which
the workflow replaces there with float32 kernels (`Bf16MatmulInFp32`). Prints
ms per update of each, the ratios, and what `--precision auto` resolves to on
this machine.

    python benchmarks/precision_speed.py [--steps 30] [--tokens 1024] [--threads 1]
"""

from __future__ import annotations

import argparse
import time
from contextlib import nullcontext

import torch

from phrasenmt import precision as prec
from phrasenmt.models import build_model
from phrasenmt.models.registry import get_preset
from phrasenmt.models.transformer import TransformerConfig
from phrasenmt.nn.batching import Batch, collate
from phrasenmt.training.config import TrainConfig

CPU = torch.device("cpu")


def random_batches(n: int, tokens: int, vocab: int, seed: int) -> list[Batch]:
    """n batches of ~`tokens` target tokens, sentences of 10-20 tokens (copy task)."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n):
        lens = torch.randint(10, 21, (tokens // 16,), generator=g).tolist()
        rows = [torch.randint(4, vocab, (k,), generator=g).tolist() for k in lens]
        out.append(collate(rows, rows))
    return out


def update(model: torch.nn.Module, opt: torch.optim.Optimizer, batch: Batch,
           precision: str) -> float:
    """One trainer-like update in `precision` (or "bf16-torch") -> seconds."""
    start = time.perf_counter()
    if precision == "bf16-torch":  # torch's own bf16 kernels, whatever the CPU
        cast, kernels = torch.autocast("cpu", dtype=torch.bfloat16), nullcontext()
    else:
        cast, kernels = prec.autocast(precision, CPU), prec.kernels(precision, CPU)
    with kernels:
        with cast:
            loss, _ = model.loss(batch, 0.1)
        (loss / batch.ntokens).backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    return time.perf_counter() - start


def compare(steps: int, tokens: int, vocab: int,
            precisions: tuple[str, ...]) -> dict[str, float]:
    """ms per update of each precision, updates interleaved, the first one dropped."""
    cfg, train = TransformerConfig(src_vocab_size=vocab, tgt_vocab_size=vocab), \
        TrainConfig()
    get_preset("transformer", "tiny")(cfg, train)
    models, opts = {}, {}
    for precision in precisions:
        torch.manual_seed(0)
        models[precision] = build_model("transformer", cfg).train()
        opts[precision] = torch.optim.Adam(models[precision].parameters(), 1e-4)
    seconds = {p: 0.0 for p in models}
    for i, batch in enumerate(random_batches(steps + 1, tokens, vocab, seed=1)):
        for p, model in models.items():
            took = update(model, opts[p], batch, p)
            seconds[p] += took if i > 0 else 0.0  # the first warms up kernels
    return {p: 1000 * s / steps for p, s in seconds.items()}


def main() -> None:
    """Print ms/update of both precisions and their ratio."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=30, help="timed updates per precision")
    p.add_argument("--tokens", type=int, default=1024,
                   help="target tokens per update (the tiny preset's max_tokens)")
    p.add_argument("--vocab", type=int, default=4000, help="vocabulary size")
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    p.add_argument("--skip-torch", action="store_true",
                   help="without native bf16: leave out torch's own (slow) bf16 kernels")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    flags = prec.cpu_flags()
    native = [f for f in prec.BF16_CPU_FLAGS if f in flags]
    print(f"CPU bf16 flags: {', '.join(native) or 'none'}; --precision auto -> "
          f"{prec.resolve('auto', CPU)}")
    emulated = prec.emulates_bf16("bf16", CPU)
    if emulated:
        print("bf16: matrix products as float32 products of bf16 inputs "
              "(Bf16MatmulInFp32); bf16-torch: torch's own bf16 kernels")
    precisions = ("fp32", "bf16", "bf16-torch") if emulated and not args.skip_torch \
        else ("fp32", "bf16")
    ms = compare(args.steps, args.tokens, args.vocab, precisions)
    print(f"tiny Transformer, {args.tokens} target tokens/update, {args.threads} "
          f"thread(s), {args.steps} updates each (interleaved):")
    print("  " + "   ".join(f"{p} {ms[p]:.1f} ms/update" for p in precisions))
    print("  " + "   ".join(f"{p}/fp32 {ms[p] / ms['fp32']:.2f}x" for p in precisions[1:]))


if __name__ == "__main__":
    main()
