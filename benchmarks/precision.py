"""Training step time of the Transformer in fp32 against bf16 autocast, and eager
against torch.compile.

Parts (`--parts`, both by default); copies of one model (same init, same
random batches) take trainer-like updates in turn (benchmarks.harness):

- bf16: fp32 and bf16 autocast (`phrasenmt.precision`: the trainer's context
  and kernels); on a CPU without native bf16 also torch's own bf16 kernels
  (`bf16-torch`, oneDNN's emulation, which the workflow replaces there with
  float32 products, `Bf16MatmulInFp32`); ms per update and the ratios, and
  what `--precision auto` resolves to here.
- compile: the loss forward through `torch.compile(dynamic=True)` as the
  trainer does it (`training.trainer.compiled`) against eager, on batches of
  varying lengths; the compiled copy's first `--compile-warmup` updates
  (compilation, recompilation) are timed apart as its overhead; then ms per
  update of both, the break-even number of updates, and whether compiling
  pays within `--run-updates` updates.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext

import torch

from benchmarks import harness
from phrasenmt import precision as prec
from phrasenmt.cli import positive_int
from phrasenmt.training.distributed import LossModule
from phrasenmt.training.trainer import compiled

CPU = torch.device("cpu")


def contexts(precision: str):
    """The autocast and kernel contexts of `precision` (or torch's own bf16)."""
    if precision == "bf16-torch":
        return lambda: torch.autocast("cpu", dtype=torch.bfloat16), nullcontext
    return lambda: prec.autocast(precision, CPU), lambda: prec.kernels(precision, CPU)


def bf16(args) -> dict:
    """ms per update of fp32, bf16 (and bf16-torch where bf16 is emulated)."""
    emulated = prec.emulates_bf16("bf16", CPU)
    names = ["fp32", "bf16"] + (["bf16-torch"] if emulated and not args.skip_torch else [])
    steps = {}
    for name in names:
        cast, kernels = contexts(name)
        model = harness.preset_model("transformer", args.preset, args.vocab)

        def loss(batch, model=model, cast=cast):
            with cast():
                return model.loss(batch, 0.1)[0]

        steps[name] = harness.trainer_update(model, loss=loss, context=kernels)
    batches = harness.random_batches(args.steps + 1, args.sentences, args.vocab)
    ms = {k: round(1e3 * v["seconds"] / args.steps, 1)
          for k, v in harness.interleaved(steps, batches).items()}
    flags = prec.cpu_flags()
    return {"cpu_bf16_flags": [f for f in prec.BF16_CPU_FLAGS if f in flags],
            "auto_resolves_to": prec.resolve("auto", CPU), "emulated": emulated,
            "ms_per_update": ms,
            "over_fp32": {k: round(v / ms["fp32"], 2) for k, v in ms.items()}}


def compile_(args) -> dict:
    """Compile overhead, ms per update eager and compiled, where compiling pays."""
    eager, fast = (LossModule(harness.preset_model("transformer", args.preset, args.vocab))
                   for _ in range(2))
    fast = compiled(fast, CPU)
    steps = {"eager": harness.trainer_update(eager, loss=lambda b: eager(b, 0.1)[0]),
             "compiled": harness.trainer_update(fast, loss=lambda b: fast(b, 0.1)[0])}
    # batches whose longest sentence varies (8-30 tokens): new shapes to compile
    tops = torch.randint(8, 31, (args.compile_warmup + args.steps,),
                         generator=torch.Generator().manual_seed(1)).tolist()
    batches = [harness.random_batches(1, args.sentences, args.vocab, (5, top), seed=i + 2)[0]
               for i, top in enumerate(tops)]
    first = harness.interleaved(steps, batches[: args.compile_warmup], warmup=0)
    timed = harness.interleaved(steps, batches[args.compile_warmup:], warmup=0)
    ms = {k: 1e3 * v["seconds"] / args.steps for k, v in timed.items()}
    overhead = first["compiled"]["seconds"] - first["eager"]["seconds"]
    saving = ms["eager"] - ms["compiled"]
    out = {"overhead_s": round(overhead, 1),
           "ms_per_update": {k: round(v, 1) for k, v in ms.items()},
           "compiled_over_eager": round(ms["compiled"] / ms["eager"], 2)}
    if saving <= 0:
        return {**out, "break_even_updates": None, "pays_within_run": False}
    net = args.run_updates * saving / 1e3 - overhead
    return {**out, "break_even_updates": round(overhead * 1e3 / saving),
            "pays_within_run": net > 0, "net_seconds_over_run": round(net)}


PARTS = {"bf16": bf16, "compile": compile_}


def main(argv: Sequence[str]) -> int:
    """Run the chosen parts, writing the result file after each."""
    p = harness.parser("precision", __doc__.split("\n")[0], cpu_only=(
        "this suite measures the CPU's precisions; the GPU's are in python -m "
        "tests.gpu.check"), preset="tiny", steps=30, sentences=64, vocab=4000)
    p.add_argument("--parts", nargs="+", choices=list(PARTS), default=list(PARTS))
    p.add_argument("--skip-torch", action="store_true",
                   help="bf16: leave out torch's own (slow) emulated bf16 kernels")
    p.add_argument("--compile-warmup", type=positive_int, default=5,
                   help="compile: first updates timed apart (compilation)")
    p.add_argument("--run-updates", type=positive_int, default=500,
                   help="compile: updates of the run to judge")
    args = harness.parse(p, argv)
    results = harness.Results("precision", args, argv)
    for part in args.parts:
        results.add(part, PARTS[part](args))
    return results.done()
