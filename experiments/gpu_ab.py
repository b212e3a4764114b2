"""A/B of the training data path: the old path against each change, interleaved.

    python -m experiments.gpu_ab [--device cuda] [--out FILE]

Variants, each a Trainer of the same spec, seed and data (so the same initial
weights and the same batches), run one update each in turn, round after round,
the order turned by one each round (the first of a round meets the round's new
batch shapes first: on a GPU cuDNN attention plans each new shape once):

- baseline: the path before (a list collate per batch on the training
  thread, synchronous copies, two host read-backs per batch: loss and NLL);
- packed: the corpus packed as flat arrays (one gather per batch), still
  on the training thread, still two read-backs per batch;
- one_sync: packed, with loss and NLL summed on the device and read back once
  per update;
- prefetch: the trainer as it is: the next update collated in a thread while
  this one computes (pinned memory and non_blocking copies on CUDA).

Per variant: target tokens/s, the update's phases (host seconds waiting for
data, in forward/backward up to the read-back, in clipping and Adam; the update
ends with a device synchronisation), kernels (CUDA) or operators dispatched
(CPU) per update from torch.profiler, peak device memory, useful MFU
(tests/gpu/useful.py) with the padding fraction, and loss parity: the largest
relative difference of a variant's per-update loss from the baseline's (0 on a
CPU, where the variants must agree bit for bit). On CUDA fairseq's Transformer
runs at the same warm-up where it imports (tests/gpu/fairseq_peer.py).

Defaults: CUDA: Transformer `base` (`--preset big` for the big one),
25k-token batches, 6 warm-up and 10 timed rounds, within 8 minutes on one
H100; CPU (`--device cpu`): the tiny preset at 1k-token batches, within 60 s.
`--variants` runs a subset (baseline always: parity is against it). SIGTERM/SIGUSR1 end it at once with status
128 + the signal, the JSON saying STOPPED.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import torch
from torch.profiler import ProfilerActivity, profile

from benchmarks.harness import commit, machine
from phrasenmt import precision as prec
from phrasenmt.cli import ArgumentParser, nonnegative_int, output_file, positive_int
from phrasenmt.io import atomic_open
from phrasenmt.nn.batching import BatchIterator
from phrasenmt.training.config import increasing_widths
from phrasenmt.training.loader import UpdateLoader
from phrasenmt.training.stopping import Terminated, TerminateOnSignals
from phrasenmt.training.trainer import Trainer
from tests.gpu import fairseq_peer as peer
from tests.gpu import timing
from tests.gpu.data import random_tokens
from tests.gpu.ours_worker import fresh
from tests.gpu.useful import update_figures

VARIANTS = ("baseline", "packed", "one_sync", "prefetch")
SIZES = {"cuda": {**timing.SIZES["full"], "warmup": 6, "rounds": 10},
         "cpu": {**timing.SIZES["tiny"], "batch": 1000, "pairs": 300, "vocab": 200,
                 "warmup": 1, "rounds": 3}}


def parse_args(argv: Sequence[str] | None) -> Any:
    """Command-line options; CUDA asked for where there is none is one line."""
    p = ArgumentParser(prog="python -m experiments.gpu_ab",
                       description=__doc__.split("\n")[0])
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    p.add_argument("--preset", choices=("base", "big"), default=None,
                   help="the Transformer's preset on CUDA (default: base; the CPU "
                        "runs tiny)")
    p.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS),
                   metavar="NAME", help=f"of {', '.join(VARIANTS)} (default: all; "
                                        "baseline always runs: parity is against it)")
    p.add_argument("--out", type=output_file,
                   default=Path("results/benchmarks/speed/gpu_ab.json"))
    p.add_argument("--work", type=Path, default=Path("results/benchmarks/gpu_ab"),
                   help="folder for the random corpus and the run folders")
    p.add_argument("--warmup", type=nonnegative_int, default=None,
                   help="untimed rounds (default: 6 on CUDA, 1 on the CPU)")
    p.add_argument("--rounds", type=positive_int, default=None,
                   help="timed rounds (default: 10 on CUDA, 3 on the CPU)")
    p.add_argument("--length-buckets", type=positive_int, nargs="+", default=[],
                   metavar="WIDTH", help="train.length_buckets of every variant (the "
                   "same batches for all; compare with a run without)")
    p.add_argument("--threads", type=positive_int, default=1, help="torch CPU threads")
    p.add_argument("--fairseq", choices=("auto", "off"), default="auto")
    p.add_argument("--fairseq-seconds", type=positive_int, default=240,
                   help="fairseq and ours in fresh processes get this long, from "
                   "when the variants are done (default: %(default)s; give what is "
                   "left of a time limit, so that a limit does not kill them)")
    p.add_argument("--fairseq-warmup", type=nonnegative_int, default=None,
                   help="untimed updates of both sides of the fairseq comparison "
                        "(default: --warmup)")
    p.add_argument("--peak-tflops", type=float, default=None,
                   help="dense bf16 peak for MFU (default: from the GPU's name)")
    p.add_argument("--seed", type=nonnegative_int, default=1)
    args = p.parse_args(argv)
    if args.device == "cuda" and not torch.cuda.is_available():
        p.error("--device cuda: torch sees no CUDA device (use --device cpu)")
    if args.preset is not None and args.device == "cpu":
        p.error("--preset: the CPU form runs the tiny preset only")
    args.variants = [v for v in VARIANTS if v in {"baseline", *args.variants}]
    widths = args.length_buckets
    if not increasing_widths(widths):
        p.error(f"--length-buckets: must be increasing, got {widths}")
    if args.variants == ["baseline"]:
        p.error("--variants: name at least one of packed, one_sync, prefetch")
    size = SIZES[args.device]
    args.size = {**size, "preset": args.preset or size["preset"]}
    args.warmup = size["warmup"] if args.warmup is None else args.warmup
    args.rounds = size["rounds"] if args.rounds is None else args.rounds
    return args


def itemised_step(t: Trainer, baseline: BatchIterator | None) -> Callable[[], tuple]:
    """One update with two read-backs per batch (loss, NLL), as before; with
    `baseline`, its batches list-collated on this thread from that iterator."""
    def step() -> tuple[float, int, dict[str, float]]:
        t.model.train()
        clock = time.perf_counter()
        if baseline is not None:
            batches, total = [], 0
            while total < t.cfg.update_tokens:
                batches.append(t._batch(t.train_data, next(baseline)))
                total += batches[-1].ntokens
            work = [(b, 1.0) for b in batches]
        else:
            work, total = t._next_update()
        data = time.perf_counter()
        t.scheduler.step()
        loss_sum = 0.0
        for batch, weight in work:
            with prec.kernels(t.precision, t.device):
                with t._autocast():
                    loss, nll = t.loss_module(batch, t.cfg.label_smoothing)
                (loss * weight / total).backward()
            loss_sum += weight * loss.item()
            nll.item()  # the second read-back of the old loop
        compute = time.perf_counter()
        finish(t)
        return loss_sum, total, {"data": data - clock, "compute": compute - data,
                                 "optimizer": time.perf_counter() - compute}
    return step


def finish(t: Trainer) -> None:
    """Clip and Adam, as train_step ends."""
    if t.cfg.clip_norm > 0:
        torch.nn.utils.clip_grad_norm_(t.model.parameters(), t.cfg.clip_norm)
    t.optimizer.step()
    t.optimizer.zero_grad(set_to_none=True)


def trainer_step(t: Trainer) -> Callable[[], tuple]:
    """One update of the trainer's own path (one_sync, prefetch), in phases."""
    def step() -> tuple[float, int, dict[str, float]]:
        t.model.train()
        clock = time.perf_counter()
        work, total = t._next_update()
        data = time.perf_counter()
        t.scheduler.step()
        loss_sum, _ = t.dist.sum(t._backward(work, total))
        compute = time.perf_counter()
        finish(t)
        return loss_sum, total, {"data": data - clock, "compute": compute - data,
                                 "optimizer": time.perf_counter() - compute}
    return step


def make_variant(name: str, args: Any, corpus: Any, size: dict) -> tuple[Trainer, Callable]:
    """The Trainer of a variant and its step."""
    with contextlib.redirect_stderr(io.StringIO()):
        t = timing.trainer_for("transformer", size["preset"], corpus, size["batch"],
                               args.device, args.work / name,
                               {"length_buckets": list(args.length_buckets)})
    if name == "prefetch":
        return t, trainer_step(t)
    loader = t.iterator
    t.iterator = UpdateLoader(t.train_data, loader.iterator.batches, t.seed,
                              t.cfg.update_tokens, t.dist.share, t.device,
                              prefetch=False)
    loader.close()
    if name == "one_sync":
        return t, trainer_step(t)
    plain = BatchIterator(t.iterator.iterator.batches, t.seed)
    return t, itemised_step(t, plain if name == "baseline" else None)


def count_ops(step: Callable, device: str) -> int:
    """CUDA kernels (or, on a CPU, aten operators) of one update (torch.profiler)."""
    activities = [ProfilerActivity.CPU] + (
        [ProfilerActivity.CUDA] if device == "cuda" else [])
    with profile(activities=activities) as prof:
        step()
        timing.sync(device)
    events = prof.events()
    if device == "cuda":
        return sum(1 for e in events if e.device_type == torch.autograd.DeviceType.CUDA)
    return sum(1 for e in events if e.name.startswith("aten::"))


def measure(args: Any, result: dict, save: Callable[[], None]) -> None:
    """Build the variants, run the rounds, fill `result["variants"]`."""
    size = args.size
    corpus = random_tokens(args.work / "data", size["pairs"], size["vocab"],
                           size["lengths"], args.seed)
    variants = {n: make_variant(n, args, corpus, size) for n in args.variants}
    peak = timing.peak_flops(args.device, args.peak_tflops)
    stats = {n: {"seconds": 0.0, "tokens": 0, "phases": {}, "losses": [],
                 "useful": 0.0, "padding": []} for n in args.variants}
    planner = variants[args.variants[-1]][0]  # its loader advances (baseline's does not)
    for r in range(args.warmup + args.rounds):
        # every variant takes the same batches: plan them once per round
        [plan] = planner.iterator.lengths_ahead(1)
        flops, padding = update_figures(planner.spec.model, plan, args.length_buckets)
        # the order turns each round: the first variant of a round meets its new
        # batch shapes first (cuDNN attention plans a new shape on first sight)
        names = list(variants)
        names = names[r % len(names):] + names[:r % len(names)]
        for name in names:
            step = variants[name][1]
            timing.sync(args.device)
            start = time.perf_counter()
            loss, tokens, phases = step()
            timing.sync(args.device)
            seconds = time.perf_counter() - start
            stats[name]["losses"].append(loss)
            if r < args.warmup:
                continue
            s = stats[name]
            s["seconds"] += seconds
            s["tokens"] += tokens
            for k, v in phases.items():
                s["phases"][k] = s["phases"].get(k, 0.0) + v
            s["useful"] += flops
            s["padding"].append(padding)
        result["rounds_done"] = r + 1
        save()
    base = stats["baseline"]["losses"]
    for name, (t, step) in variants.items():
        s = stats[name]
        if args.device == "cuda":
            torch.cuda.reset_peak_memory_stats()
        ops = count_ops(step, args.device)
        result["variants"][name] = {
            "tokens_per_s": round(s["tokens"] / s["seconds"]),
            "ms_per_update": round(1000 * s["seconds"] / args.rounds, 2),
            "phase_ms": {k: round(1000 * v / args.rounds, 2)
                         for k, v in s["phases"].items()},
            "ops_per_update": ops, "ops_kind": "CUDA kernels" if args.device == "cuda"
            else "aten operators",
            "peak_memory_gib": round(torch.cuda.max_memory_allocated() / 2**30, 2)
            if args.device == "cuda" else None,
            "useful_tflops": round(s["useful"] / s["seconds"] / 1e12, 3),
            "useful_mfu": None if peak is None else round(s["useful"] / s["seconds"]
                                                          / peak, 4),
            "padding": round(sum(s["padding"]) / len(s["padding"]), 4),
            "loss_max_rel_diff": max(abs(a - b) / abs(b) for a, b in
                                     zip(s["losses"], base, strict=True)),
            "finite": all(math.isfinite(x) for x in s["losses"])}
        print(f"{name}: {json.dumps(result['variants'][name])}", flush=True)
        save()
    if args.fairseq == "auto" and args.device == "cuda":
        result["fairseq"] = fairseq(args, corpus, size, peak)


def fairseq(args: Any, corpus: Any, size: dict, peak: float | None) -> dict[str, Any]:
    """fairseq beside the trainer at the same warm-up (tests/gpu/fairseq_peer.py), or why not."""
    if importlib.util.find_spec("fairseq") is None:
        return {"status": "unavailable", "reason": "fairseq does not import here"}
    deadline = time.perf_counter() + args.fairseq_seconds
    warmup = args.warmup if args.fairseq_warmup is None else args.fairseq_warmup
    # ours in a new process too: this one has met the corpus's first shapes
    return peer.compare(corpus, size, args.work / "fairseq", deadline,
                        lambda: fresh(corpus, size["preset"], size["batch"],
                                      args.device, args.work / "fairseq_ours", peak,
                                      warmup, args.rounds),
                        warmup, args.rounds)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the A/B, write the JSON -> exit status (128 + signal when stopped)."""
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    result: dict[str, Any] = {
        "command": " ".join(["python -m experiments.gpu_ab", *(argv or sys.argv[1:])]),
        "commit": commit(), "machine": machine(args.device), "status": "RUNNING",
        "warmup": args.warmup, "rounds": args.rounds,
        "length_buckets": list(args.length_buckets), "variants": {}, "fairseq": None}

    def save() -> None:
        with atomic_open(args.out) as fh:
            fh.write(json.dumps(result, indent=2) + "\n")

    start = time.perf_counter()
    with TerminateOnSignals():
        try:
            save()
            measure(args, result, save)
        except Terminated as stop:
            result["status"] = "STOPPED"
            save()
            print(f"gpu_ab: {stop}", flush=True)
            return stop.exit_status
    result["status"], result["seconds"] = "DONE", round(time.perf_counter() - start, 1)
    save()
    print(f"wrote {args.out} in {result['seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
