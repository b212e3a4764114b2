"""Step-2 training speed of the document models, against another checkout.

    python -m benchmarks.speed --suite context [--against SRC] [options]

Writes a document corpus of random sentences (`--sentences` lines in
documents of `--doc-length`, `--lengths` tokens a sentence), trains a
sentence-level Transformer for one update (step 1: its weights do not matter
for speed), then times step 2 of each document model (`--archs`, `--preset`,
K = `--k`) through the trainer itself (`Trainer.train_step`: batching, the
frozen context states, backward, Adam) and, beside them, the step-1
Transformer's updates: target tokens per second over `--updates` updates after
`--warmup` untimed ones. The first updates are timed apart: a model that
computes its frozen context states once does so in the first update (the
whole split's states), and that time is reported as `first_seconds`.

With `--against SRC` (the `src` folder of another checkout, e.g. a
`git worktree` of an older commit) each round runs both code bases in fresh
processes, one after the other (`--rounds` times, alternating, so that the
machine's load falls on both alike), on the same corpus and settings; the
figures are summed over rounds per code base and the ratio is this
checkout's tokens/s over the other's.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks import harness
from phrasenmt.cli import positive_int

DEFAULT_ARCHS = ("transformer", "han_dec", "ctx_transformer")


def write_corpus(folder: Path, sentences: int, doc_length: int,
                 lengths: tuple[int, int], vocab: int, seed: int = 1) -> None:
    """train/dev .src/.tgt/.docs of random words, documents of `doc_length`."""
    rng = random.Random(seed)
    for split, n in (("train", sentences), ("dev", max(sentences // 10, doc_length))):
        lines: dict[str, list[str]] = {"src": [], "tgt": []}
        for _ in range(n):
            for rows in lines.values():
                k = rng.randint(*lengths)
                rows.append(" ".join(f"w{rng.randrange(vocab)}" for _ in range(k)))
        docs = [f"{split}-{i // doc_length:05d}" for i in range(n)]
        for side, rows in lines.items():
            (folder / f"{split}.{side}").write_text("\n".join(rows) + "\n")
        (folder / f"{split}.docs").write_text("\n".join(docs) + "\n")


def timed_updates(trainer: Any, warmup: int, updates: int) -> dict[str, float]:
    """First `warmup` updates timed apart, then `updates` timed updates."""
    def run(n: int) -> tuple[float, int]:
        tokens, start = 0, time.perf_counter()
        for _ in range(n):
            tokens += int(trainer.train_step()[2])
        harness.sync(trainer.device)
        return time.perf_counter() - start, tokens
    first, _ = run(warmup)
    seconds, tokens = run(updates)
    return {"first_seconds": round(first, 3), "seconds": round(seconds, 3),
            "tokens": tokens, "tokens_per_s": round(tokens / seconds, 1)}


def worker(args: Any) -> dict[str, Any]:
    """Time every arch with the phrasenmt this process imports."""
    from phrasenmt.training.data import DataPaths
    from phrasenmt.training.spec import resolve_spec
    from phrasenmt.training.trainer import Trainer

    data, work = Path(args.data), Path(tempfile.mkdtemp(prefix="ctxbench-"))
    files = [data / f for f in ("train.src", "train.tgt", "dev.src", "dev.tgt")]
    plain = DataPaths(*files)
    docs = DataPaths(*files, docs=(data / "train.docs", data / "dev.docs"))
    train = {"max_steps": 100000, "max_tokens": args.max_tokens,
             "update_tokens": args.max_tokens, "valid_interval": 100000,
             "save_interval": 100000, "log_interval": 100000}

    def trainer(arch: str, init_from: Path | None = None) -> Any:
        model = {} if arch == "transformer" else {"context_size": args.k}
        spec = resolve_spec({"arch": arch, "preset": args.preset, "model": model,
                             "train": train})
        return Trainer(spec, docs if model else plain, work / arch, seed=1,
                       device=args.device, progress_bar=False,
                       init_from=init_from, precision="fp32")

    step1 = trainer("transformer")
    step1.train_step()
    step1.save()
    checkpoint = work / "transformer" / "checkpoints" / "checkpoint_0.pt"
    out = {}
    for arch in args.archs:
        t = step1 if arch == "transformer" else trainer(arch, checkpoint)
        out[arch] = timed_updates(t, args.warmup, args.updates)
        print(f"{arch}: {json.dumps(out[arch])}", file=sys.stderr, flush=True)
    return out


def against(args: Any, argv: Sequence[str]) -> dict[str, Any]:
    """Alternate this checkout and `--against` in fresh processes."""
    here = str(harness.REPO / "src")
    rest = [a for a in argv if a not in ("--against", str(args.against))]
    totals: dict[str, dict[str, dict[str, float]]] = {"this": {}, "other": {}}
    for _ in range(args.rounds):
        for name, src in (("other", str(args.against)), ("this", here)):
            env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, str(harness.REPO)])}
            with tempfile.NamedTemporaryFile(suffix=".json") as tmp:
                subprocess.run([sys.executable, "-m", "benchmarks.context", *rest,
                                "--worker", "--data", args.data, "--out", tmp.name],
                               env=env, cwd=harness.REPO, check=True)
                figures = json.loads(Path(tmp.name).read_text())
            for arch, f in figures.items():
                acc = totals[name].setdefault(arch, {"seconds": 0.0, "tokens": 0,
                                                     "first_seconds": 0.0})
                for key in acc:
                    acc[key] += f[key]
    out = {}
    for arch in args.archs:
        this, other = totals["this"][arch], totals["other"][arch]
        speed = {k: round(v["tokens"] / v["seconds"], 1)
                 for k, v in (("this", this), ("other", other))}
        out[arch] = {"tokens_per_s": speed, "ratio": round(speed["this"] / speed["other"], 2),
                     "first_seconds": {"this": round(this["first_seconds"], 2),
                                       "other": round(other["first_seconds"], 2)}}
    return out


def build_parser() -> Any:
    """The suite's options."""
    p = harness.parser("context", __doc__.splitlines()[0])
    p.add_argument("--archs", nargs="+", default=list(DEFAULT_ARCHS))
    p.add_argument("--preset", default="small")
    p.add_argument("--k", type=positive_int, default=3, help="context sentences K")
    p.add_argument("--sentences", type=positive_int, default=400,
                   help="training lines")
    p.add_argument("--doc-length", type=positive_int, default=8,
                   help="lines per document")
    p.add_argument("--lengths", type=positive_int, nargs=2, default=[25, 35],
                   help="shortest and longest sentence (tokens)")
    p.add_argument("--vocab", type=positive_int, default=2000, help="word types")
    p.add_argument("--max-tokens", type=positive_int, default=2048,
                   help="tokens per batch and per update")
    p.add_argument("--warmup", type=positive_int, default=1, help="first updates")
    p.add_argument("--updates", type=positive_int, default=6, help="timed updates")
    p.add_argument("--rounds", type=positive_int, default=1,
                   help="alternations with --against")
    p.add_argument("--against", type=Path, help="another checkout's src folder")
    p.add_argument("--worker", action="store_true", help=argparse_hidden())
    p.add_argument("--data", help=argparse_hidden())
    return p


def argparse_hidden() -> str:
    """argparse's marker for an option left out of --help."""
    import argparse
    return argparse.SUPPRESS


def main(argv: Sequence[str] | None = None) -> int:
    """Run the suite -> exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = harness.parse(build_parser(), argv)
    if args.worker:
        figures = worker(args)
        Path(args.out).write_text(json.dumps(figures))
        return 0
    results = harness.Results("context", args, argv)
    with tempfile.TemporaryDirectory(prefix="ctxbench-data-") as data:
        write_corpus(Path(data), args.sentences, args.doc_length, tuple(args.lengths),
                     args.vocab)
        args.data = data
        if args.against is None:
            results.add("step2", worker(args))
        else:
            results.add("step2_against", against(args, argv))
    return results.done()


if __name__ == "__main__":
    sys.exit(main())
