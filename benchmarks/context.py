"""Step-2 training speed of the document models, against another checkout.

    python -m benchmarks.speed --suite context [--against SRC] [options]

On a document corpus of random sentences (`--sentences` lines, documents of
`--doc-length`, `--lengths` tokens a sentence) a step-1 Transformer takes one
update (its weights do not matter for speed); then step 2 of each document
model (`--archs`, `--preset`, K = `--k`) trains through `Trainer.train_step`
(batching, frozen context states, backward, Adam) beside the step-1
Transformer's updates: target tokens/s over `--updates` updates after
`--warmup` ones timed apart (`first_seconds`: where a model computes the whole
split's frozen context states once), in wall and (on a CPU) this process's CPU
seconds, which a shared machine's load does not inflate. With `--against SRC`
(another checkout's `src`, e.g. a `git worktree` of an older commit) both code
bases run in fresh processes, alternating `--rounds` times on the same corpus
and settings; figures are summed per code base, the ratio is this checkout's
tokens/s over the other's.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks import harness
from benchmarks.datapath import write_corpus
from phrasenmt.cli import positive_int

DEFAULT_ARCHS = ("transformer", "han_dec", "ctx_transformer")


SETTINGS = ("data", "archs", "preset", "k", "max_tokens", "warmup", "updates",
            "threads", "device")


def run_worker(args: Any, src: Path) -> dict[str, Any]:
    """benchmarks.context_worker with the package under `src`, in a fresh
    process -> its figures."""
    return harness.in_checkout("benchmarks.context_worker", src,
                               {k: getattr(args, k) for k in SETTINGS})


def against(args: Any) -> dict[str, Any]:
    """Alternate this checkout and `--against` in fresh processes."""
    totals: dict[str, dict[str, dict[str, float]]] = {"this": {}, "other": {}}
    for _ in range(args.rounds):
        for name, src in (("other", args.against), ("this", harness.REPO / "src")):
            figures = run_worker(args, src)
            for arch, f in figures.items():
                acc = totals[name].setdefault(arch, dict.fromkeys(
                    ("seconds", "cpu_seconds", "tokens", "first_seconds",
                     "first_cpu_seconds"), 0.0))
                for key in acc:
                    acc[key] += f[key]
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


def build_parser() -> Any:
    """The suite's options."""
    p = harness.parser("context", __doc__.splitlines()[0], against=True)
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
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the suite -> exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = harness.parse(build_parser(), argv)
    results = harness.Results("context", args, ["--suite", "context", *argv])
    with tempfile.TemporaryDirectory(prefix="ctxbench-data-") as data:
        write_corpus(Path(data), args.sentences, args.vocab, args.lengths, 1,
                     max(args.sentences // 10, args.doc_length), args.doc_length)
        args.data = data
        args.archs = list(args.archs)
        if args.against is None:
            results.add("step2", run_worker(args, harness.REPO / "src"))
        else:
            results.add("step2_against", against(args))
    return results.done()


if __name__ == "__main__":
    sys.exit(main())
