"""Operators dispatched per Transformer training update on the CPU, this
checkout beside another.

    python -m benchmarks.speed --suite kernels [--against OTHER/src] [--compile]

A CPU trainer (Transformer `--preset`, one batch of `--batch` tokens per
update, fp32 or `--precision bf16`, eager or `--compile`) takes `--warmup`
updates; torch.profiler records the next. Its aten operators count as: all
(nested included: the datapath suite's figure); compute, the outermost ones
that are neither views, allocations nor scalar reads (through those, the first
such below them), a proxy for device kernels (`aten::linear` once, a foreach or
fused optimizer operator once; under --compile each call of an inductor C++
kernel too, made visible by `torch._inductor.config.cpp.enable_kernel_profile`
and also given as `inductor_kernels`); read_backs (`aten::_local_scalar_dense`:
.item(), int(t), bool(t), a host synchronisation each on a device). Each by
phase: optimizer (Optimizer.step), backward (the autograd engine), forward (the
rest: the loss's forward pass, the clip, the trainer's sums). Both checkouts
train on the same batches (`target_tokens` says so); this module imports of the
package only what old checkouts have too (training.data, .spec, .trainer).
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
from torch.profiler import ProfilerActivity, profile

from benchmarks.datapath import train_steps, trainer, write_corpus

DEFAULTS = {"pairs": 2000, "vocab": 8000, "lengths": [10, 40], "preset": "base",
            "batch": 600, "warmup": 2, "compile": False, "precision": "fp32", "seed": 1}
# Operators that make no kernel: views, metadata, allocations, and the two
# names a scalar read goes through (counted apart as read_backs).
NO_KERNEL = frozenset(
    f"aten::{name}" for name in (
        "view", "_unsafe_view", "reshape", "as_strided", "transpose", "t", "permute",
        "expand", "expand_as", "squeeze", "unsqueeze", "slice", "select", "narrow",
        "split", "split_with_sizes", "chunk", "unbind", "alias", "detach", "lift_fresh",
        "resolve_conj", "resolve_neg", "view_as", "unflatten", "flatten", "contiguous",
        "empty", "empty_strided", "empty_like", "new_empty", "new_empty_strided",
        "resize_", "to", "type_as", "item", "_local_scalar_dense", "is_nonzero",
        "result_type", "set_", "_reshape_alias", "numpy_T", "matrix_H", "mT"))
READ_BACK = "aten::_local_scalar_dense"
INDUCTOR_KERNEL = "cpp_fused_"  # in the profiler name of an inductor C++ kernel


def ancestors(event: Any) -> list[Any]:
    """The profiler events an event runs inside of, innermost first."""
    out = []
    while event.cpu_parent is not None:
        out.append(event := event.cpu_parent)
    return out


def phase(event: Any) -> str:
    """optimizer, backward or forward: the phase of a profiler event's root."""
    root = (ancestors(event) or [event])[-1]
    if root.name.startswith("Optimizer."):
        return "optimizer"
    return "backward" if root.name.startswith("autograd::engine") else "forward"


def count(events: Sequence[Any]) -> dict[str, Any]:
    """The aten operators of one update: all, compute, read_backs, by phase."""
    aten = [e for e in events if e.name.startswith("aten::")]
    compute = {id(e) for e in aten if e.name not in NO_KERNEL
               and not any(a.name.startswith("aten::") and a.name not in NO_KERNEL
                           for a in ancestors(e))}
    inductor = [e for e in events if INDUCTOR_KERNEL in e.name]
    compute |= {id(e) for e in inductor}
    out: dict[str, Any] = {}
    for kind, pool, keep in (
            ("all", aten, lambda e: True),
            ("compute", aten + inductor, lambda e: id(e) in compute),
            ("inductor_kernels", inductor, lambda e: True),
            ("read_backs", aten, lambda e: e.name == READ_BACK)):
        by_phase = collections.Counter(phase(e) for e in pool if keep(e))
        out[kind] = sum(by_phase.values())
        out[f"{kind}_by_phase"] = {p: by_phase.get(p, 0)
                                   for p in ("forward", "backward", "optimizer")}
    names = collections.Counter(e.name for e in aten if id(e) in compute)
    if inductor:
        names["inductor C++ kernels"] = len(inductor)
    out["top_compute"] = dict(names.most_common(12))
    return out


def measure(settings: dict[str, Any]) -> dict[str, Any]:
    """The counts of the package on the path."""
    import phrasenmt
    s = {**DEFAULTS, **settings}
    torch.manual_seed(s["seed"])
    if s["compile"]:  # inductor's kernels as profiler events
        import torch._inductor.config as inductor_config
        inductor_config.cpp.enable_kernel_profile = True
    with tempfile.TemporaryDirectory() as tmp:
        files = write_corpus(Path(tmp), s["pairs"], s["vocab"], s["lengths"], s["seed"])
        t = trainer(files, Path(tmp) / "run", s["preset"], s["batch"], s["seed"],
                    s["precision"], s["compile"])
        train_steps(t, s["warmup"])
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            _, _, tokens, _ = t.train_step()
        out = {"package": str(Path(phrasenmt.__file__).resolve().parents[1]),
               "target_tokens": tokens, **count(prof.events())}
    if s["compile"]:
        from torch._dynamo.utils import counters
        out["compiled_graphs"] = counters["stats"]["unique_graphs"]
        out["graph_breaks"] = sum(counters["graph_break"].values())
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """The suite's entry point (benchmarks.speed) -> exit status."""
    from benchmarks import harness
    p = harness.parser("kernels", __doc__.split("\n")[0], against=True, cpu_only=(
        "the kernels suite counts operators on the CPU; use cpu"),
        preset=DEFAULTS["preset"], batch=DEFAULTS["batch"], warmup=DEFAULTS["warmup"])
    p.add_argument("--compile", action="store_true", help="train.compile: true")
    p.add_argument("--precision", choices=("fp32", "bf16"), default="fp32")
    results, mine, other = harness.beside(p, argv, measure, DEFAULTS)
    if other is not None:
        results.add("ratio", {k: round(mine[k] / other[k], 3) if other[k] else None
                              for k in ("all", "compute", "read_backs")})
    return results.done()


if __name__ == "__main__":  # the child of `against`: settings in, figures out
    torch.set_num_threads(1)
    print(json.dumps(measure(json.loads(sys.argv[1]))))
