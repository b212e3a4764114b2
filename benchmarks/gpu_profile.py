"""Where one training update's time goes: phases, kernels and GPU idle time.

    python -m benchmarks.gpu_profile --out OUT [--device cpu --size tiny]

The GPU check's part 2 trainer (`tests.gpu.timing.trainer_for`), after
`--warmup` updates: target tokens/s over `--timed-updates` updates, the wall
time of each phase (synchronised after each), then, for `--profile-updates`
under torch.profiler, kernel time by kind (KINDS), kernel launches, the GPU's
busy share of the wall clock and the top operators -> OUT/profile.json,
OUT/profile.md (docs/gpu.md, "Where an update's time goes").
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import torch
from torch.profiler import ProfilerActivity, profile, record_function

from benchmarks.datapath import train_steps
from benchmarks.harness import sync
from phrasenmt.cli import ArgumentParser, nonnegative_int, positive_int
from phrasenmt.training.trainer import Trainer
from tests.gpu.data import random_tokens
from tests.gpu.timing import SIZES, preset_and_batch, trainer_for

# Kernel kinds by name, the first match wins (cuBLAS/CUTLASS GEMMs are named
# gemm, sm90_xmma, nvjet, cutlass; fused attention flash/fmha/efficient).
KINDS = (("attention", r"flash|fmha|attention|attn"),
         ("matmul", r"gemm|xmma|nvjet|cutlass|cublas|wgrad|dgrad|sm\d+_"),
         ("optimizer", r"multi_tensor|adam|foreach"),
         ("copy", r"memcpy|memset|copy|cat_|catarray"),
         ("reduction", r"reduce|norm|softmax|sum|max|mean|scan"),
         ("elementwise", r"elementwise|vectorized|unrolled|pointwise|fill|index"))
PHASES = ("batch", "forward_backward", "clip", "optimizer")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = ArgumentParser(prog="python -m benchmarks.gpu_profile",
                       description=__doc__.split("\n")[0])
    p.add_argument("--out", type=Path, default=Path("gpu_profile"),
                   help="folder for profile.json, profile.md (created)")
    p.add_argument("--work", type=Path, default=None,
                   help="folder for the corpus and the trainer (default: OUT/runs)")
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    p.add_argument("--arch", default="transformer")
    p.add_argument("--size", choices=tuple(SIZES), default="full",
                   help="full: the base preset at 25k-token batches; tiny: a CPU smoke test")
    p.add_argument("--batch", type=positive_int, default=None,
                   help="padded tokens per update (default: the size's)")
    p.add_argument("--warmup", type=nonnegative_int, default=10)
    p.add_argument("--timed-updates", type=positive_int, default=20)
    p.add_argument("--profile-updates", type=positive_int, default=3)
    p.add_argument("--sdp", choices=("auto", "no-cudnn"), default="auto",
                   help="attention kernels: PyTorch's choice, or every SDPA backend "
                   "but cuDNN's (which builds a plan per new shape)")
    p.add_argument("--trace", action="store_true",
                   help="also write the profiler's Chrome trace (trace.json.gz)")
    p.add_argument("--seed", type=nonnegative_int, default=1)
    args = p.parse_args(argv)
    if args.device == "cuda" and not torch.cuda.is_available():
        p.error("--device cuda: torch sees no CUDA device (use --device cpu)")
    return args


def timed_phases(t: Trainer, device: str, n: int) -> dict[str, float]:
    """`n` updates like Trainer.train_step, synchronised after each phase ->
    each phase's wall seconds, summed."""
    times, clock = dict.fromkeys(PHASES, 0.0), 0.0

    def lap(name: str) -> None:
        nonlocal clock
        sync(device)
        now = time.perf_counter()
        times[name] += now - clock
        clock = now

    for _ in range(n):
        t.model.train()
        clock = time.perf_counter()
        work, total = t._next_update()
        t.scheduler.step()
        lap("batch")
        t._backward(work, total)
        lap("forward_backward")
        if t.cfg.clip_norm > 0:
            torch.nn.utils.clip_grad_norm_(t.model.parameters(), t.cfg.clip_norm)
        lap("clip")
        t.optimizer.step()
        t.optimizer.zero_grad(set_to_none=True)
        lap("optimizer")
    return times


@contextlib.contextmanager
def annotated(t: Trainer) -> Iterator[None]:
    """Label the trainer's phases in the profile (record_function ranges)."""
    saved = t._next_update, t._backward, t.optimizer.step

    def wrap(name: str, fn: Callable) -> Callable:
        def inner(*a, **k):
            with record_function(f"phase:{name}"):
                return fn(*a, **k)
        return inner

    t._next_update, t._backward, t.optimizer.step = (
        wrap(name, fn) for name, fn in zip(("batch", "forward_backward", "optimizer"), saved))
    try:
        yield
    finally:
        t._next_update, t._backward, t.optimizer.step = saved


def kind(name: str) -> str:
    """A kernel's kind by its name (KINDS), else "other"."""
    low = name.lower()
    return next((k for k, pattern in KINDS if re.search(pattern, low)), "other")


def sdp_backends(choice: str) -> contextlib.AbstractContextManager:
    """The SDPA backends allowed while measuring ("no-cudnn": all but cuDNN's;
    a PyTorch without a cuDNN backend has nothing to exclude)."""
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError:  # torch < 2.3: no cuDNN attention backend
        return contextlib.nullcontext()
    if choice == "auto" or not hasattr(SDPBackend, "CUDNN_ATTENTION"):
        return contextlib.nullcontext()
    return sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
                        SDPBackend.MATH])


def kernel_events(prof: profile) -> list[tuple[str, float, float]]:
    """(name, start µs, end µs) of every device kernel the profiler recorded
    (not the device-side ranges of the phase annotations)."""
    cuda = torch.autograd.DeviceType.CUDA
    return [(e.name, float(e.time_range.start), float(e.time_range.end))
            for e in prof.events()
            if getattr(e, "device_type", None) == cuda and not e.name.startswith("phase:")
            and not getattr(e, "is_user_annotation", False)]


def busy_us(intervals: list[tuple[float, float]]) -> float:
    """Length of the union of the intervals."""
    total, end = 0.0, float("-inf")
    for a, b in sorted(intervals):
        if b <= end:
            continue
        total += b - max(a, end)
        end = b
    return total


def top_table(prof: profile, key: str, limit: int = 20) -> str:
    """The profiler's operator table sorted by `key` (device time keys of old
    and new PyTorch releases)."""
    averages = prof.key_averages()
    for sort in ([key] if "cpu" in key else
                 [key, key.replace("device", "cuda")]):
        try:
            return averages.table(sort_by=sort, row_limit=limit, max_name_column_width=60)
        except (AttributeError, KeyError, ValueError):
            continue
    return averages.table(row_limit=limit)


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """Speed, phases and the profile of `args.arch` -> {result, tables}."""
    size = SIZES[args.size]
    work = args.work or args.out / "runs"
    corpus = random_tokens(work / "data", size["pairs"], size["vocab"], size["lengths"],
                           args.seed)
    preset, batch = preset_and_batch(args.arch, size)
    batch = args.batch or batch
    with contextlib.redirect_stderr(sys.stdout):
        t = trainer_for(args.arch, preset, corpus, batch, args.device, work / "trainer")
    train_steps(t, args.warmup)
    seconds, _, tokens = train_steps(t, args.timed_updates)
    phases = timed_phases(t, args.device, args.timed_updates)
    activities = [ProfilerActivity.CPU] + (
        [ProfilerActivity.CUDA] if args.device == "cuda" else [])
    with annotated(t), profile(activities=activities) as prof:
        p_wall = train_steps(t, args.profile_updates)[0]
    kernels = kernel_events(prof)
    by_kind: dict[str, float] = {}
    for name, a, b in kernels:
        by_kind[kind(name)] = by_kind.get(kind(name), 0.0) + (b - a)
    kernel_total = sum(by_kind.values())
    n = args.profile_updates
    result = {
        "arch": args.arch, "preset": preset, "batch_tokens": batch,
        "device": torch.cuda.get_device_name(0) if args.device == "cuda" else "cpu",
        "torch": torch.__version__, "params": t.model.num_parameters(), "sdp": args.sdp,
        "warmup": args.warmup, "timed_updates": args.timed_updates,
        "tokens_per_update": tokens // args.timed_updates,
        "ms_per_update": round(1000 * seconds / args.timed_updates, 2),
        "tokens_per_s": round(tokens / seconds),
        "phase_ms_per_update": {k: round(1000 * phases.get(k, 0.0) / args.timed_updates, 2)
                                for k in PHASES},
        "profiled_updates": n,
        "profiled_ms_per_update": round(1000 * p_wall / n, 2),
        "kernels_per_update": round(len(kernels) / n, 1),
        "kernel_ms_per_update": round(kernel_total / 1000 / n, 2),
        "kernel_ms_by_kind": {k: round(v / 1000 / n, 2)
                              for k, v in sorted(by_kind.items(), key=lambda x: -x[1])},
        "gpu_busy_share": (round(busy_us([(a, b) for _, a, b in kernels]) / (p_wall * 1e6), 3)
                           if kernels else None),
    }
    tables = {"device": top_table(prof, "self_device_time_total") if kernels else "",
              "cpu": top_table(prof, "self_cpu_time_total")}
    if args.trace:  # torch gzips a path ending .gz
        prof.export_chrome_trace(str(args.out / "trace.json.gz"))
    return {"result": result, "tables": tables}


def markdown(m: dict[str, Any]) -> str:
    r = m["result"]
    lines = [(f"# Profile of one update: {r['arch']}/{r['preset']}, {r['batch_tokens']} "
             f"tokens, bf16, {r['device']}, torch {r['torch']}, SDPA {r['sdp']}"), "",
             (f"{r['tokens_per_s']} target tokens/s, {r['ms_per_update']} ms per update "
             f"({r['tokens_per_update']} target tokens; {r['timed_updates']} timed after "
             f"{r['warmup']})."), "",
             "| phase (synchronised) | ms per update |", "|---|---:|"]
    lines += [f"| {k} | {v} |" for k, v in r["phase_ms_per_update"].items()]
    busy = r["gpu_busy_share"]
    lines += ["", (f"Profiled: {r['profiled_updates']} updates, "
              f"{r['profiled_ms_per_update']} ms each; {r['kernels_per_update']} kernels "
              f"and {r['kernel_ms_per_update']} kernel-ms per update; GPU busy "
              f"{'n/a' if busy is None else f'{busy:.1%}'} of the wall clock."), "",
              "| kernel kind | ms per update |", "|---|---:|"]
    lines += [f"| {k} | {v} |" for k, v in r["kernel_ms_by_kind"].items()]
    for name, table in (("device", m["tables"]["device"]), ("CPU", m["tables"]["cpu"])):
        if table:
            lines += ["", f"Top operators by self {name} time:", "", "```", table.rstrip(),
                      "```"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.device == "cuda":
        torch.backends.cudnn.allow_tf32 = False  # as the GPU check; bf16 unaffected
    with sdp_backends(args.sdp):
        m = measure(args)
    (args.out / "profile.json").write_text(json.dumps(m, indent=2) + "\n", "utf-8")
    text = markdown(m)
    (args.out / "profile.md").write_text(text, "utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
