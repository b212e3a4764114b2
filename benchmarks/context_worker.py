"""One code base's side of `benchmarks.context`: times step 2 of each document
model with the phrasenmt this process imports (an older checkout's too, so it
imports nothing else of this repository).

    python -m benchmarks.context_worker SETTINGS_JSON  # figures: stdout's last line
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import torch


def timed_updates(trainer: Any, warmup: int, updates: int) -> dict[str, float]:
    """First `warmup` updates timed apart, then `updates` timed updates: wall
    seconds and, on a CPU, this process's CPU seconds (which other processes'
    load on a shared machine does not inflate)."""
    def run(n: int) -> tuple[float, float, int]:
        tokens, start, cpu = 0, time.perf_counter(), time.process_time()
        for _ in range(n):
            tokens += int(trainer.train_step()[2])
        if trainer.device.type == "cuda":
            torch.cuda.synchronize()
        return time.perf_counter() - start, time.process_time() - cpu, tokens
    first, first_cpu, _ = run(warmup)
    seconds, cpu, tokens = run(updates)
    return {"first_seconds": round(first, 3), "first_cpu_seconds": round(first_cpu, 3),
            "seconds": round(seconds, 3), "cpu_seconds": round(cpu, 3),
            "tokens": tokens, "tokens_per_s": round(tokens / seconds, 1),
            "tokens_per_cpu_s": round(tokens / cpu, 1)}


def measure(s: dict[str, Any]) -> dict[str, Any]:
    """Settings (benchmarks.context's options) -> figures per arch."""
    from phrasenmt.training.data import DataPaths
    from phrasenmt.training.spec import resolve_spec
    from phrasenmt.training.trainer import Trainer

    torch.set_num_threads(s["threads"])
    data, work = Path(s["data"]), Path(tempfile.mkdtemp(prefix="ctxbench-"))
    files = [data / f for f in ("train.src", "train.tgt", "dev.src", "dev.tgt")]
    docs = (data / "train.docs", data / "dev.docs")
    train = {"max_steps": 100000, "max_tokens": s["max_tokens"],
             "update_tokens": s["max_tokens"], "valid_interval": 100000,
             "save_interval": 100000, "log_interval": 100000}

    def trainer(arch: str, init_from: Path | None = None) -> Any:
        model = {} if arch == "transformer" else {"context_size": s["k"]}
        spec = resolve_spec({"arch": arch, "preset": s["preset"], "model": model,
                             "train": train})
        paths = DataPaths(*files, docs=docs) if model else DataPaths(*files)
        return Trainer(spec, paths, work / arch, seed=1, device=s["device"],
                       progress_bar=False, init_from=init_from, precision="fp32")

    step1 = trainer("transformer")
    step1.train_step()
    checkpoint = step1.save()  # step 1's weights do not matter for speed
    out = {}
    for arch in s["archs"]:
        t = step1 if arch == "transformer" else trainer(arch, checkpoint)
        out[arch] = timed_updates(t, s["warmup"], s["updates"])
        print(f"{arch}: {json.dumps(out[arch])}", file=sys.stderr, flush=True)
    return out


if __name__ == "__main__":
    print(json.dumps(measure(json.loads(sys.argv[1]))))
