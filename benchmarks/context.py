"""Step-2 training speed of the document models, against another checkout.

    python -m benchmarks.speed --suite context [--against SRC] [options]

On a document corpus of random sentences (`--sentences` lines, documents of
`--doc-length`, `--lengths` tokens a sentence) a step-1 Transformer takes one
update (its weights do not matter for speed); then step 2 of each document
model (`--archs`, `--preset`, K = `--k`) trains through `Trainer.train_step`
(batching, frozen context states, backward, Adam; fp32 or `--precision`) beside the step-1
Transformer's updates: target tokens/s over `--updates` updates after
`--warmup` ones timed apart (`first_seconds`: where a model computes the whole
split's frozen context states once), in wall and (on a CPU) this process's CPU
seconds, which a shared machine's load does not inflate. With `--against SRC`
(another checkout's `src`, e.g. a `git worktree` of an older commit) both code
bases run in fresh processes, alternating `--rounds` times on the same corpus
and settings; figures are summed per code base, the ratio is this checkout's
tokens/s over the other's. `--flops N`: N more updates of each model under
torch's FLOP counter (the ceiling suite's formulas for what it misses on a
CPU) -> `mflop_per_token`, the work an update does per target token, so that
step 2's speed can be read against the arithmetic it needs. This module is that process too (its `__main__`):
of the package it imports only the trainer, which older checkouts have too.
"""

from __future__ import annotations

import collections
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from benchmarks.datapath import train_steps, write_corpus

SETTINGS = ("data", "archs", "preset", "k", "max_tokens", "warmup", "updates",
            "threads", "device", "flops", "length_buckets", "precision")
SUMMED = ("seconds", "cpu_seconds", "tokens", "first_seconds", "first_cpu_seconds")


def measure(s: dict[str, Any]) -> dict[str, Any]:
    """Settings (SETTINGS) -> figures per arch of the phrasenmt this process
    imports."""
    from phrasenmt.training.data import DataPaths
    from phrasenmt.training.spec import resolve_spec
    from phrasenmt.training.trainer import Trainer

    torch.set_num_threads(s["threads"])
    data, work = Path(s["data"]), Path(tempfile.mkdtemp(prefix="ctxbench-"))
    files = [data / f for f in ("train.src", "train.tgt", "dev.src", "dev.tgt")]
    docs = (data / "train.docs", data / "dev.docs")
    train = {"max_steps": 100000, "max_tokens": s["max_tokens"],
             "update_tokens": s["max_tokens"], "valid_interval": 100000,
             "save_interval": 100000, "log_interval": 100000,
             **({"length_buckets": s["length_buckets"]} if s.get("length_buckets") else {})}

    def trainer(arch: str, init_from: Path | None = None) -> Any:
        model = {} if arch == "transformer" else {"context_size": s["k"]}
        spec = resolve_spec({"arch": arch, "preset": s["preset"], "model": model,
                             "train": train})
        paths = DataPaths(*files, docs=docs) if model else DataPaths(*files)
        return Trainer(spec, paths, work / arch, seed=1, device=s["device"],
                       progress_bar=False, init_from=init_from,
                       precision=s.get("precision", "fp32"))

    step1 = trainer("transformer")
    step1.train_step()
    checkpoint = step1.save()  # step 1's weights do not matter for speed
    out = {}
    for arch in s["archs"]:
        t = step1 if arch == "transformer" else trainer(arch, checkpoint)
        first, first_cpu, _ = train_steps(t, s["warmup"])
        seconds, cpu, tokens = train_steps(t, s["updates"])
        out[arch] = {"first_seconds": round(first, 3),
                     "first_cpu_seconds": round(first_cpu, 3),
                     "seconds": round(seconds, 3), "cpu_seconds": round(cpu, 3),
                     "tokens": tokens, "tokens_per_s": round(tokens / seconds, 1),
                     "tokens_per_cpu_s": round(tokens / cpu, 1)}
        if s.get("flops"):
            out[arch]["mflop_per_token"] = round(flops_per_token(t, s["flops"]) / 1e6, 2)
        print(f"{arch}: {json.dumps(out[arch])}", file=sys.stderr, flush=True)
    return out


def flops_per_token(t: Any, n: int) -> float:
    """FLOPs per target token over `n` updates of trainer `t`, counted."""
    from torch.utils.flop_counter import FlopCounterMode

    from benchmarks.ceiling import UNCOUNTED
    with FlopCounterMode(display=False, custom_mapping=UNCOUNTED) as counter:
        tokens = sum(int(t.train_step()[2]) for _ in range(n))
    return counter.get_total_flops() / tokens


def against(args: Any, run: Any) -> dict[str, Any]:
    """Alternate `run` of this checkout and of `--against`, fresh processes."""
    totals = {k: collections.defaultdict(collections.Counter) for k in ("this", "other")}
    for _ in range(args.rounds):
        for name, src in (("other", args.against), ("this", None)):
            for arch, f in run(src).items():
                totals[name][arch].update({key: f[key] for key in SUMMED})
    out = {}
    for arch in args.archs:
        sides = {k: totals[k][arch] for k in ("this", "other")}
        wall = {k: round(v["tokens"] / v["seconds"], 1) for k, v in sides.items()}
        cpu = {k: round(v["tokens"] / v["cpu_seconds"], 1) for k, v in sides.items()}
        out[arch] = {"tokens_per_s": wall, "ratio": round(wall["this"] / wall["other"], 2),
                     "tokens_per_cpu_s": cpu,
                     "cpu_ratio": round(cpu["this"] / cpu["other"], 2),
                     **{key: {k: round(v[key], 2) for k, v in sides.items()}
                        for key in ("first_seconds", "first_cpu_seconds")}}
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """The suite's entry point (benchmarks.speed) -> exit status."""
    from benchmarks import harness
    from phrasenmt.cli import nonnegative_int, positive_int
    from phrasenmt.training.config import increasing_widths
    p = harness.parser(
        "context", __doc__.splitlines()[0], against=True, preset="small", updates=6,
        max_tokens=(2048, "tokens per batch and per update"), rounds=1,
        warmup=(1, "first updates, timed apart"), sentences=(400, "training lines"),
        vocab=(2000, "word types"), lengths=[25, 35])
    p.add_argument("--archs", nargs="+", default=["transformer", "han_dec",
                                                  "ctx_transformer"])
    p.add_argument("--k", type=positive_int, default=3, help="context sentences K")
    p.add_argument("--doc-length", type=positive_int, default=8, help="lines per document")
    p.add_argument("--flops", type=nonnegative_int, default=0, metavar="N",
                   help="then N updates of each model under a FLOP counter (0: none)")
    p.add_argument("--length-buckets", type=positive_int, nargs="+", default=[],
                   metavar="WIDTH", help="train.length_buckets of every model")
    p.add_argument("--precision", choices=("fp32", "bf16"), default="fp32")
    args = harness.parse(p, argv)
    if not increasing_widths(args.length_buckets):
        p.error(f"--length-buckets: must be increasing, got {args.length_buckets}")
    results = harness.Results("context", args, argv)

    def run(src: Path | None) -> dict[str, Any]:  # None: this checkout's
        return harness.in_checkout("benchmarks.context", src or harness.REPO / "src",
                                   {k: getattr(args, k) for k in SETTINGS})

    with tempfile.TemporaryDirectory(prefix="ctxbench-data-") as data:
        write_corpus(Path(data), args.sentences, args.vocab, args.lengths, 1,
                     max(args.sentences // 10, args.doc_length), args.doc_length)
        args.data = data
        if args.against is None:
            results.add("step2", run(None))
        else:
            results.add("step2_against", against(args, run))
    return results.done()


if __name__ == "__main__":  # the child of in_checkout: settings in, figures out
    print(json.dumps(measure(json.loads(sys.argv[1]))))
