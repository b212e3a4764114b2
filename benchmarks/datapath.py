"""The training data path on a CPU, this checkout beside another one.

    python -m benchmarks.speed --suite datapath [--against OTHER/src]

Three figures of the package on the path (with --against, also of the one
under OTHER/src, by the same code in a child process): collate_ms, building
one batch of at least `--collate-tokens` target tokens as the trainer does
(median of `--repeats`; the packed gather where the package has it, else the
list collate); wait_share, the trainer's wait for data (`Trainer._next_update`)
as a share of its updates (Transformer `--preset`, one batch of `--batch`
tokens per update, `--updates` timed after one warm-up); ops_per_update, aten
operators dispatched in one such update (torch.profiler, nested included).
This module imports of the package only what older checkouts have too
(training.data, training.spec, training.trainer).
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch
from torch.profiler import ProfilerActivity, profile

DEFAULTS = {"pairs": 10000, "vocab": 8000, "lengths": [10, 40], "collate_tokens": 25000,
            "repeats": 20, "preset": "base", "batch": 600, "updates": 2, "seed": 1}


def write_corpus(root: Path, pairs: int, vocab: int, lengths: Sequence[int],
                 seed: int, dev: int = 16, doc_length: int = 0) -> list[Path]:
    """Random-token train and dev files -> [train.src, train.tgt, dev.src, dev.tgt];
    `doc_length`: also {train,dev}.docs, documents of that many lines."""
    rng = random.Random(seed)
    paths = []
    for split, n in (("train", pairs), ("dev", dev)):
        for side in ("src", "tgt"):
            lines = (" ".join(f"{side[0]}{rng.randrange(vocab)}"
                              for _ in range(rng.randint(*lengths))) for _ in range(n))
            path = root / f"{split}.{side}"
            path.write_text("\n".join(lines) + "\n")
            paths.append(path)
        if doc_length:
            (root / f"{split}.docs").write_text("".join(
                f"{split}-{i // doc_length:05d}\n" for i in range(n)))
    return paths


def trainer(files: list[Path], outdir: Path, preset: str, batch: int, seed: int = 1,
            precision: str = "fp32", compile: bool = False) -> Any:
    """A Transformer Trainer on the CPU, one batch of `batch` tokens per update
    (train.compile given only when on: older checkouts lack the key)."""
    from phrasenmt.training.data import DataPaths
    from phrasenmt.training.spec import resolve_spec
    from phrasenmt.training.trainer import Trainer
    train = {"max_tokens": batch, "update_tokens": 1, "max_steps": 10**6,
             "valid_interval": 10**6, "save_interval": 10**6, "log_interval": 10**6}
    spec = resolve_spec({"arch": "transformer", "preset": preset, "train": {
        **train, **({"compile": True} if compile else {})}})
    with contextlib.redirect_stderr(io.StringIO()):
        return Trainer(spec, DataPaths(*files), outdir, seed=seed, device="cpu",
                       progress_bar=False, precision=precision)


def train_steps(t: Any, n: int) -> tuple[float, float, int]:
    """`n` updates of trainer `t`, its device's queued work waited for at both
    ends -> (wall seconds, this process's CPU seconds, target tokens)."""
    sync = torch.cuda.synchronize if t.device.type == "cuda" else lambda: None
    sync()
    tokens, start, cpu = 0, time.perf_counter(), time.process_time()
    for _ in range(n):
        tokens += int(t.train_step()[2])
    sync()
    return time.perf_counter() - start, time.process_time() - cpu, tokens


def collate_ms(t: Any, tokens: int, repeats: int) -> dict[str, Any]:
    """Median milliseconds to build a batch of >= `tokens` target tokens."""
    corpus = t.train_data
    order = sorted(range(len(corpus.tgt)), key=lambda i: len(corpus.tgt[i]))
    rows, total = [], 0
    for i in order[len(order) // 2:]:  # sentences of similar length
        if total >= tokens:
            break
        rows.append(i)
        total += len(corpus.tgt[i]) + 1
    packed = getattr(t.iterator, "packed", None)
    build = ((lambda: packed.collate(rows)) if packed is not None
             else (lambda: t._batch(corpus, rows)))
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        build()
        times.append(time.perf_counter() - start)
    return {"collate_ms": round(1000 * statistics.median(times), 3),
            "collate_pairs": len(rows), "collate_target_tokens": total,
            "collate": "packed gather" if packed is not None else "list collate"}


def wait_and_ops(t: Any, updates: int) -> dict[str, Any]:
    """Wait for data as a share of the updates, and operators per update."""
    waited = [0.0]
    next_update = t._next_update

    def timed_next_update():
        start = time.perf_counter()
        try:
            return next_update()
        finally:
            waited[0] += time.perf_counter() - start

    t._next_update = timed_next_update
    t.train_step()  # warm-up
    waited[0] = 0.0
    seconds = train_steps(t, updates)[0]
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        t.train_step()
    ops = sum(1 for e in prof.events() if e.name.startswith("aten::"))
    return {"wait_share": round(waited[0] / seconds, 5),
            "wait_ms_per_update": round(1000 * waited[0] / updates, 3),
            "ms_per_update": round(1000 * seconds / updates, 1), "ops_per_update": ops}


def measure(settings: dict[str, Any]) -> dict[str, Any]:
    """The three figures of the package on the path."""
    import phrasenmt
    s = {**DEFAULTS, **settings}
    with tempfile.TemporaryDirectory() as tmp:
        files = write_corpus(Path(tmp), s["pairs"], s["vocab"], s["lengths"], s["seed"])
        t = trainer(files, Path(tmp) / "a", s["preset"], s["collate_tokens"])
        out = {"package": str(Path(phrasenmt.__file__).resolve().parents[1]),
               **collate_ms(t, s["collate_tokens"], s["repeats"])}
        del t
        t = trainer(files, Path(tmp) / "b", s["preset"], s["batch"])
        out.update(wait_and_ops(t, s["updates"]))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """The suite's entry point (benchmarks.speed) -> exit status."""
    from benchmarks import harness
    from phrasenmt.cli import positive_int
    p = harness.parser("datapath", __doc__.split("\n")[0], against=True, cpu_only=(
        "the data-path suite measures the CPU side; use cpu"),
        preset=DEFAULTS["preset"], updates=DEFAULTS["updates"], batch=(
            DEFAULTS["batch"], "tokens per update for the wait share and the operators"))
    p.add_argument("--repeats", type=positive_int, default=DEFAULTS["repeats"])
    p.add_argument("--collate-tokens", type=positive_int,
                   default=DEFAULTS["collate_tokens"])
    return harness.beside(p, argv, measure, DEFAULTS)[0].done()


if __name__ == "__main__":  # the child of `against`: settings in, figures out
    torch.set_num_threads(1)
    print(json.dumps(measure(json.loads(sys.argv[1]))))
