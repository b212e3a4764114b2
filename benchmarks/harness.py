"""What every benchmark shares: its options, random batches, one timing loop
with warm-up, another checkout's figures, and the JSON result file (Results:
rewritten after each part, so a run stopped from outside keeps what it measured).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

import torch

from phrasenmt.cli import ArgumentParser, output_dir, output_file, positive_int
from phrasenmt.io import atomic_open
from phrasenmt.models import build_model, get_model_class
from phrasenmt.models.registry import get_preset
from phrasenmt.nn.batching import Batch, collate
from phrasenmt.text.segmentation import ngram_phrases
from phrasenmt.training.config import TrainConfig

REPO = Path(__file__).resolve().parents[1]
RESULTS = Path("results") / "benchmarks" / "speed"
COUNT = {"type": positive_int}
# Options of several suites: a suite names those it has, each with its default.
SHARED = {"preset": {"help": "model preset"},
          "steps": {**COUNT, "help": "timed updates per model, after the warm-up"},
          "sentences": {**COUNT, "help": "pairs per batch"},
          "vocab": {**COUNT, "help": "vocabulary size"},
          "max_tokens": {**COUNT, "help": "padded tokens per batch (longer side)"},
          "batch": {**COUNT, "help": "tokens per batch, one batch per update"},
          "warmup": {**COUNT, "help": "updates before the measured ones"},
          "updates": {**COUNT, "help": "timed updates"},
          "rounds": {**COUNT, "help": "runs of each side, alternating"},
          "lengths": {**COUNT, "nargs": 2, "help": "shortest and longest sentence "
                      "(tokens)"},
          "workdir": {"type": output_dir, "help": "keep its files here (default: a "
                      "temporary folder, removed at the end)"}}


def parser(suite: str, description: str, cpu_only: str = "", against: bool = False,
           **shared: Any) -> ArgumentParser:
    """A suite's parser with the options every suite has: --out, --threads,
    --device (`cpu_only`: why --device cuda is refused); `against`: --against SRC;
    `shared`: options of SHARED by name -> the default, or (default, help)."""
    p = ArgumentParser(prog=f"python -m benchmarks.speed --suite {suite}",
                       description=description)
    p.suite, p.cpu_only = suite, cpu_only
    if against:
        p.add_argument("--against", type=checkout_src, metavar="SRC",
                       help="another checkout's src/ folder to measure beside this one")
    p.add_argument("--out", type=output_file, default=RESULTS / f"{suite}.json",
                   help="JSON result file (default: %(default)s)")
    p.add_argument("--threads", type=positive_int, default=1, help="torch CPU threads")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    for name, default in shared.items():
        option = {**SHARED[name], "default": default}
        if isinstance(default, tuple):
            option["default"], option["help"] = default
        p.add_argument("--" + name.replace("_", "-"), **option)
    return p


def checkout_src(value: str) -> Path:
    """--against: another checkout's src/ folder, holding its phrasenmt package."""
    if not (Path(value) / "phrasenmt").is_dir():
        raise argparse.ArgumentTypeError(f"{value}: no phrasenmt package there")
    return Path(value)


def parse(p: ArgumentParser, argv: Sequence[str] | None) -> Any:
    """Parse (`argv` None: the command line's), refuse CUDA where there is none
    (or the suite's CPU-only reason), set the threads."""
    args = p.parse_args(argv)
    if args.device == "cuda" and p.cpu_only:
        p.error(f"--device: {p.cpu_only}")
    if args.device == "cuda" and not torch.cuda.is_available():
        p.error("--device cuda: torch sees no CUDA device")
    torch.set_num_threads(args.threads)
    return args


def commit() -> str:
    """The checkout's commit (with -dirty for uncommitted changes), or why not."""
    def git(*cmd: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", "-C", str(REPO), *cmd], capture_output=True,
                              text=True, check=False)
    try:
        head, status = git("rev-parse", "--short", "HEAD"), git("status", "--porcelain")
    except FileNotFoundError:
        return "unknown: no git on this machine"
    if head.returncode:
        return "unknown: not a git checkout"
    return head.stdout.strip() + ("-dirty" if status.stdout.strip() else "")


def machine(device: str) -> dict[str, Any]:
    """Host, CPU model and cores, the GPU on CUDA, Python and torch versions."""
    cpu = next((line.split(":", 1)[1].strip() for line in
                Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor()) \
        if Path("/proc/cpuinfo").is_file() else platform.processor()
    info = {"host": platform.node(), "cpu": cpu, "cpu_count": os.cpu_count(),
            "python": platform.python_version(), "torch": torch.__version__,
            "cuda": torch.version.cuda}
    if device == "cuda":
        info["gpu"] = torch.cuda.get_device_name(0)
    return info


class Results:
    """One suite's JSON result file, rewritten as parts finish; `argv`: the
    suite's options (None: the command line's)."""

    def __init__(self, suite: str, args: Any, argv: Sequence[str] | None):
        self.path = Path(args.out)
        settings = {k: (str(v) if isinstance(v, Path) else v)
                    for k, v in vars(args).items() if k != "out"}
        argv = sys.argv[1:] if argv is None else argv
        self.data: dict[str, Any] = {
            "suite": suite, "command": shlex.join(["python", "-m", "benchmarks.speed",
                                                   "--suite", suite, *argv]),
            "settings": settings, "machine": machine(args.device),
            "torch": torch.__version__, "commit": commit(),
            "date_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
            "figures": {}}

    def add(self, part: str, figures: dict[str, Any]) -> None:
        """Record one part's figures, print them, and rewrite the file."""
        self.data["figures"][part] = figures
        print(f"{part}: {json.dumps(figures)}", flush=True)
        with atomic_open(self.path) as fh:
            fh.write(json.dumps(self.data, indent=2) + "\n")

    def done(self) -> int:
        """Say where the figures went -> exit status 0."""
        print(f"wrote {self.path}")
        return 0


def preset_model(arch: str, preset: str, vocab: int, **over) -> torch.nn.Module:
    """`arch` at the preset's sizes, both vocabularies of size `vocab`, seed 0."""
    torch.manual_seed(0)
    cfg = get_model_class(arch).config_class(src_vocab_size=vocab, tgt_vocab_size=vocab)
    get_preset(arch, preset)(cfg, TrainConfig())
    for key, value in over.items():
        setattr(cfg, key, value)
    return build_model(arch, cfg)


def random_batches(n: int, sentences: int, vocab: int, lengths: tuple[int, int] = (10, 20),
                   seed: int = 1, phrases: bool = False, device: str = "cpu"
                   ) -> list[Batch]:
    """n batches of random pairs on `device`, lengths drawn from `lengths`
    (inclusive) per sentence and side; `phrases`: n-gram phrase ids as the
    `phrases` side input."""
    g = torch.Generator().manual_seed(seed)

    def sentence() -> list[int]:
        length = int(torch.randint(lengths[0], lengths[1] + 1, (1,), generator=g))
        return torch.randint(4, vocab, (length,), generator=g).tolist()

    out = []
    for _ in range(n):
        src = [sentence() for _ in range(sentences)]
        side = {"phrases": [ngram_phrases(len(s)) for s in src]} if phrases else None
        out.append(collate(src, [sentence() for _ in range(sentences)], side).to(device))
    return out


def trainer_update(model: torch.nn.Module, lr: float = 1e-4,
                   loss: Callable[[Batch], torch.Tensor] | None = None,
                   context: Callable[[], AbstractContextManager] = nullcontext
                   ) -> Callable[[Batch], int]:
    """One update as the trainer takes it (loss under `context`, backward, Adam)
    -> a function of a batch returning its target tokens; `loss` in place of
    `model.loss` with label smoothing 0.1."""
    opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr)
    model.train()

    def update(batch: Batch) -> int:
        with context():
            value = loss(batch) if loss else model.loss(batch, 0.1)[0]
            (value / batch.ntokens).backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return batch.ntokens

    return update


def sync(device: torch.device | str) -> None:
    """Wait for the device's queued work (CUDA), so that a clock reading means it."""
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize()


def interleaved(steps: dict[str, Callable[[Any], float]], items: Sequence[Any],
                warmup: int = 1, device: torch.device | str = "cpu",
                clock: Callable[[], float] = time.perf_counter) -> dict[str, dict]:
    """Each named step on each item in turn, so that machine load affects all
    alike; the first `warmup` items untimed -> {name: {seconds, units, per_s}},
    units being what the steps return (tokens, sentences)."""
    if len(items) <= warmup:
        raise ValueError(f"{len(items)} items leave none to time after {warmup} warm-up")
    totals = {name: [0.0, 0.0] for name in steps}
    for i, item in enumerate(items):
        for name, step in steps.items():
            sync(device)
            start = clock()
            units = step(item)
            sync(device)
            if i >= warmup:
                totals[name][0] += clock() - start
                totals[name][1] += units
    return {name: {"seconds": round(s, 4), "units": u, "per_s": round(u / s, 2)}
            for name, (s, u) in totals.items()}


def beside(p: ArgumentParser, argv: Sequence[str] | None,
           measure: Callable[[dict], dict], keys: Iterable[str]
           ) -> tuple[Results, dict, dict | None]:
    """Parse; `measure` (of the options named in `keys`) of the package on the
    path and, with --against, of the other checkout's (the suite's module as the
    child of in_checkout), each a part -> (results, these figures, the other's
    or None)."""
    args = parse(p, argv)
    settings = {k: v for k, v in vars(args).items() if k in keys}
    results, other = Results(p.suite, args, argv), None
    results.add("this checkout", mine := measure(settings))
    if args.against is not None:
        other = in_checkout(f"benchmarks.{p.suite}", args.against, settings)
        results.add(f"against {args.against}", other)
    return results, mine, other


def in_checkout(module: str, src: Path, settings: dict[str, Any]) -> dict[str, Any]:
    """`python -m module SETTINGS` with another checkout's package (`src`) first
    on the path: the child prints its figures as JSON on its last line (its
    stderr, progress and errors, passes through)."""
    # `src` first; what PYTHONPATH held after it (e.g. wheels unpacked on a node)
    path = [str(src), str(REPO), *filter(None, os.environ.get("PYTHONPATH", "").split(
        os.pathsep))]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    result = subprocess.run([sys.executable, "-m", module, json.dumps(settings)],
                            stdout=subprocess.PIPE, text=True, env=env, cwd=REPO,
                            check=False)
    if result.returncode:
        raise RuntimeError(f"the child on {src} failed (exit {result.returncode}; "
                           "its errors above)")
    return json.loads(result.stdout.splitlines()[-1])
