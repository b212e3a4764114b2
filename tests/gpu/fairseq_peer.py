"""The GPU check (tests/gpu/check.py), part 3: fairseq's Transformer beside ours on the same GPU.

fairseq is no dependency of the project. Where its wheels were carried
(`make gpu-wheels`: fairseq-fixed 0.12.3.1, the one fairseq with a Python 3.12
wheel, and what it imports), it binarizes the timing corpus
(fairseq_cli.preprocess) and trains the same Transformer `base` with the same
25k-token batches (fairseq_cli.train, flags from peer_fairseq.py), in fp16:
fairseq 0.12's --bf16 implies --tpu (torch_xla), so fp16 with loss scaling is
its fastest 16-bit mode on a GPU (the same tensor-core peak as bf16 on an
H100). Both sides run the same warm-up and timed updates (gpu_check's
--fairseq-warmup and --timed-updates; ours without replaying batches, which
fairseq cannot), fairseq logging every fifth of the timed ones; its speed is
the median `wps` (target tokens/s) of its log windows after the warm-up.
Runs alternate with ours, ROUNDS times, and the ratio is of the medians. fairseq's tasks import scikit-learn and scipy at start-up, for metrics
that translation never calls: where those are absent, the fairseq processes
get placeholder modules whose functions raise if ever called (never silently).
"""

from __future__ import annotations

import importlib.util
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.peer_fairseq import fairseq_train_args, fairseq_train_windows
from phrasenmt.training.spec import resolve_spec
from tests.gpu.data import SRC, TGT, Corpus
from tests.gpu.ddp import subprocess_env
from tests.gpu.families import one_line

ROUNDS = 2
ROUND_SECONDS = 90  # one round: our run, then fairseq's start-up and updates
PLACEHOLDERS = {"sklearn": ("metrics",), "scipy": ("stats",)}
PLACEHOLDER_CODE = '''"""Placeholder written by tests/gpu/fairseq_peer.py: {name} is not installed."""


def __getattr__(attr):
    if attr.startswith("__"):
        raise AttributeError(attr)

    def absent(*args, **kwargs):
        raise RuntimeError("{name}." + attr + ": {top} is not installed (gpu_check "
                           "placeholder)")

    return absent
'''


def placeholders(folder: Path, absent: list[str] | None = None) -> list[str]:
    """Write placeholder packages for the PLACEHOLDERS absent here (or those in
    `absent`) into `folder` -> their names."""
    written = []
    for top, subs in PLACEHOLDERS.items():
        if top not in (absent if absent is not None else
                       [t for t in PLACEHOLDERS if importlib.util.find_spec(t) is None]):
            continue
        pkg = folder / top
        pkg.mkdir(parents=True, exist_ok=True)
        for name, path in ((top, pkg / "__init__.py"),
                           *((f"{top}.{s}", pkg / f"{s}.py") for s in subs)):
            path.write_text(PLACEHOLDER_CODE.format(name=name, top=top), "utf-8")
        written.append(top)
    return written


def fairseq_env(shims: Path) -> dict[str, str]:
    """subprocess_env with the placeholder folder first on PYTHONPATH."""
    env = subprocess_env()
    env["PYTHONPATH"] = f"{shims}:{env['PYTHONPATH']}"
    return env


def run(cmd: list[str], env: dict[str, str], log: Path, timeout: float) -> str:
    """Run a fairseq command; its output goes to `log`; failure raises one line."""
    result = subprocess.run(cmd, capture_output=True, text=True, env=env,
                            timeout=timeout, check=False)
    log.write_text(result.stdout + result.stderr, "utf-8")
    if result.returncode != 0:
        tail = [x for x in result.stderr.splitlines() if x.strip()][-1:] or [""]
        raise RuntimeError(f"{cmd[2]} exit {result.returncode}: {one_line(tail[0])}")
    return result.stdout + result.stderr


def schedule(warmup: int, timed: int) -> tuple[int, int]:
    """(log interval, updates) of a fairseq run: windows of a fifth of the timed
    updates, enough of them to cover warm-up and timed updates."""
    interval = max(1, timed // 5)
    return interval, -(-(warmup + timed) // interval) * interval


def train_flags(preset: str, batch: int, warmup: int, timed: int) -> list[str]:
    """fairseq-train's flags for our resolved Transformer preset at `batch` tokens."""
    interval, updates = schedule(warmup, timed)
    spec = resolve_spec({"arch": "transformer", "preset": preset, "train": {
        "max_tokens": batch, "update_tokens": 1, "max_steps": updates,
        "log_interval": interval, "valid_interval": 10**6, "save_interval": 10**6}})
    return fairseq_train_args(*(spec.to_dict()[k] for k in ("model", "train")))


def fairseq_speed(data: Path, preset: str, batch: int, env: dict[str, str],
                  log: Path, timeout: float, warmup: int, timed: int) -> float:
    """One fairseq training run -> median target tokens/s after the warm-up."""
    out = run([sys.executable, "-m", "fairseq_cli.train", str(data),
               *train_flags(preset, batch, warmup, timed), "--fp16", "--seed", "1",
               "--disable-validation", "--no-save", "--log-format", "json",
               "--num-workers", "2"], env, log, timeout)
    rows = fairseq_train_windows(out)
    steady = [r["tokens_per_s"] for r in rows if r["step"] > warmup]
    if not steady:
        raise RuntimeError(f"no train_inner log rows after update {warmup} (see {log})")
    return statistics.median(steady)


def compare(corpus: Corpus, size: dict, folder: Path, deadline: float,
            ours: Callable[[], dict[str, Any]], warmup: int = 2, timed: int = 10
            ) -> dict[str, Any]:
    """Alternate ours and fairseq ROUNDS times -> the comparison (or why not);
    fairseq's run has `warmup` untimed and `timed` timed updates, as ours.

    A round starts only with ROUND_SECONDS of the budget left."""
    folder.mkdir(parents=True, exist_ok=True)
    shims = folder / "placeholders"
    result: dict[str, Any] = {"status": "unavailable", "placeholders":
                              placeholders(shims)}
    env = fairseq_env(shims)
    try:
        probe = subprocess.run([sys.executable, "-c", ("import fairseq_cli.train, "
                                "fairseq; print(fairseq.__version__)")],
                               capture_output=True, text=True, env=env, timeout=180,
                               check=False)
        if probe.returncode != 0:
            tail = [x for x in probe.stderr.splitlines() if x.strip()][-1:] or [""]
            result["reason"] = ("fairseq does not import (carry its wheels: make "
                                f"gpu-wheels): {one_line(tail[0])}")
            return result
        result["version"] = probe.stdout.strip()
        data = folder / "bin"
        run([sys.executable, "-m", "fairseq_cli.preprocess", "--source-lang", SRC,
             "--target-lang", TGT, "--trainpref", str(corpus.root / "train"),
             "--validpref", str(corpus.root / "dev"), "--destdir", str(data),
             "--workers", "8"], env, folder / "preprocess.log",
            max(30.0, deadline - time.perf_counter()))
        theirs, mine = [], []
        for k in range(ROUNDS):
            if time.perf_counter() > deadline - ROUND_SECONDS:
                result["note"] = f"{k} round(s): time budget"
                break
            row = ours()
            if row["status"] != "PASS":
                raise RuntimeError(f"our run failed: {row['reason']}")
            mine.append(row["tokens_per_s"])
            theirs.append(fairseq_speed(data, size["preset"], size["batch"], env,
                                        folder / f"train{k + 1}.log",
                                        max(30.0, deadline - time.perf_counter()),
                                        warmup, timed))
            print(f"  fairseq round {k + 1}: ours {mine[-1]:.0f}, fairseq "
                  f"{theirs[-1]:.0f} target tok/s", flush=True)
        if not theirs:
            raise RuntimeError("no round fitted in the time budget")
        result.update(status="ran", ours_tokens_per_s=mine,
                      fairseq_tokens_per_s=[round(x) for x in theirs],
                      ratio=round(statistics.median(mine) / statistics.median(theirs), 3),
                      warmup=warmup, timed_updates=timed,
                      fairseq_mode="--fp16 (fp16 weights, fp32 master copy, loss "
                                   "scaling)", ours_mode="bf16 autocast")
    except Exception as err:  # noqa: BLE001  (reported, never a failure)
        result.update(status="error", reason=f"{type(err).__name__}: "
                                             f"{one_line(str(err))}")
    return result


def markdown(result: dict[str, Any] | None) -> list[str]:
    """One paragraph on the fairseq comparison."""
    if result is None:
        return ["fairseq: not run (needs --device cuda and --fairseq auto).", ""]
    if result["status"] != "ran":
        return [f"fairseq: {result['status']}: {result.get('reason', '')}", ""]
    return [f"fairseq {result['version']} ({result['fairseq_mode']}) vs ours "
            f"({result['ours_mode']}), Transformer base, same data and batches, "
            f"{result.get('timed_updates', '')} timed updates after "
            f"{result.get('warmup', '')} each, alternating: ours {result['ours_tokens_per_s']} vs fairseq "
            f"{result['fairseq_tokens_per_s']} target tok/s; ratio ours/fairseq "
            f"{result['ratio']}x (medians){'; ' + result['note'] if 'note' in result else ''}."
            + (f" Placeholder modules for fairseq: {', '.join(result['placeholders'])}."
               if result["placeholders"] else ""), ""]
