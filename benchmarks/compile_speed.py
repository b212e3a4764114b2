"""Does `train.compile: true` pay for its compile time? Eager vs torch.compile updates.

Two copies of the Transformer (same init, same preset) take the same trainer-like
updates (`model.loss` forward, backward, Adam) on batches of varying lengths,
one eager and one with the loss forward through `torch.compile(dynamic=True)`
as the trainer does it (`training.trainer.compiled`). The compiled copy's first
`--warmup` updates (compilation, and recompilation for new shapes) are timed
apart; then the copies alternate updates so that machine load affects both
alike. Prints the compile overhead, ms per update of both, the break-even
number of updates, and whether compiling pays within a run of `--run-updates`
updates and within `--budget-minutes` of training:

    python benchmarks/compile_speed.py --preset tiny --run-updates 500
    python benchmarks/compile_speed.py --preset small --tokens 4096 --budget-minutes 30
"""

from __future__ import annotations

import argparse
import time

import torch

from phrasenmt.models import build_model
from phrasenmt.models.registry import get_preset
from phrasenmt.models.transformer import TransformerConfig
from phrasenmt.nn.batching import Batch, collate
from phrasenmt.training.config import TrainConfig
from phrasenmt.training.distributed import LossModule
from phrasenmt.training.trainer import compiled

CPU = torch.device("cpu")


def random_batches(n: int, tokens: int, vocab: int, seed: int) -> list[Batch]:
    """n batches of ~`tokens` target tokens; sentence lengths 5-30 vary per batch."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n):
        top = int(torch.randint(8, 31, (1,), generator=g))
        lens = torch.randint(5, top + 1, (1024,), generator=g).tolist()
        rows, total = [], 0
        for k in lens:
            if total + k > tokens:
                break
            rows.append(torch.randint(4, vocab, (k,), generator=g).tolist())
            total += k
        out.append(collate(rows, rows))
    return out


def update(loss_fn, opt: torch.optim.Optimizer, batch: Batch) -> float:
    """One trainer-like update -> seconds."""
    start = time.perf_counter()
    loss, _ = loss_fn(batch, 0.1)
    (loss / batch.ntokens).backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    return time.perf_counter() - start


def compare(preset: str, steps: int, warmup: int, tokens: int,
            vocab: int) -> dict[str, float]:
    """Seconds of the compiled copy's warm-up (and eager's on the same batches),
    then ms per update of both, interleaved."""
    cfg, train = TransformerConfig(src_vocab_size=vocab, tgt_vocab_size=vocab), \
        TrainConfig()
    get_preset("transformer", preset)(cfg, train)
    fns, opts = {}, {}
    for name in ("eager", "compiled"):
        torch.manual_seed(0)
        model = build_model("transformer", cfg).train()
        fns[name] = LossModule(model) if name == "eager" else compiled(
            LossModule(model), CPU)
        opts[name] = torch.optim.Adam(model.parameters(), 1e-4)
    batches = random_batches(warmup + steps, tokens, vocab, seed=1)
    first = {name: sum(update(fns[name], opts[name], b) for b in batches[:warmup])
             for name in ("compiled", "eager")}  # eager's first updates warm it too
    seconds = {name: 0.0 for name in fns}
    for batch in batches[warmup:]:
        for name, fn in fns.items():
            seconds[name] += update(fn, opts[name], batch)
    ms = {name: 1000 * s / steps for name, s in seconds.items()}
    return {"overhead_s": first["compiled"] - first["eager"],
            "eager_ms": ms["eager"], "compiled_ms": ms["compiled"]}


def main() -> None:
    """Print the compile overhead, both speeds and where compiling pays."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--preset", default="tiny", help="Transformer preset")
    p.add_argument("--steps", type=int, default=40, help="timed updates per copy")
    p.add_argument("--warmup", type=int, default=5,
                   help="first updates timed apart (compilation, recompilation)")
    p.add_argument("--tokens", type=int, default=1024,
                   help="target tokens per update (tiny: 1024, small: 4096)")
    p.add_argument("--vocab", type=int, default=4000, help="vocabulary size")
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    p.add_argument("--run-updates", type=int, default=500,
                   help="updates of the run to judge (config.yaml's tiny runs: 500)")
    p.add_argument("--budget-minutes", type=float, default=0.0,
                   help="also judge a run of this many eager training minutes")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    r = compare(args.preset, args.steps, args.warmup, args.tokens, args.vocab)
    saving_ms = r["eager_ms"] - r["compiled_ms"]
    print(f"{args.preset} Transformer, ~{args.tokens} target tokens/update, "
          f"{args.threads} thread(s), {args.steps} timed updates each (interleaved):")
    print(f"  compile overhead {r['overhead_s']:.1f} s (first {args.warmup} updates, "
          "minus eager's)")
    print(f"  eager {r['eager_ms']:.1f} ms/update   compiled {r['compiled_ms']:.1f} "
          f"ms/update   compiled/eager {r['compiled_ms'] / r['eager_ms']:.2f}x")
    if saving_ms <= 0:
        print("  compiling never pays: a compiled update is not faster")
        return
    even = r["overhead_s"] * 1000 / saving_ms
    print(f"  break-even after {even:.0f} updates "
          f"({even * r['eager_ms'] / 60000:.1f} eager minutes)")
    runs = [(f"a run of {args.run_updates} updates", args.run_updates)]
    if args.budget_minutes:
        n = int(args.budget_minutes * 60000 / r["eager_ms"])
        runs.append((f"{args.budget_minutes:g} eager minutes ({n} updates)", n))
    for what, n in runs:
        net = n * saving_ms / 1000 - r["overhead_s"]
        print(f"  {what}: compiling {'pays' if net > 0 else 'does not pay'} "
              f"({'saves' if net > 0 else 'costs'} {abs(net):.0f} s)")


if __name__ == "__main__":
    main()
