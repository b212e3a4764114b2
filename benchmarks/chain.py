"""Benchmark align -> symmetrize -> phrases -> concat -> embeddings on a corpus.

    python -m benchmarks.speed --suite chain --src train.de --tgt train.en
        [--gold train.align] [--tgt-lang en] [--threads 2] [--samplers 1 3]
        [--workdir DIR]

Writes (results/benchmarks/speed/chain.json) sentence pairs per second for each
aligner backend, phrase extraction and the concatenation rewrite, the AER of each backend against --gold, and the
wall time of the whole chain with each backend (the chain runs every stage
through its CLI entry point, so file reading, validation and writing count).
eflomal runs once per `--samplers` value (its independent samplers).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks import harness
from phrasenmt.align.__main__ import main as align_main
from phrasenmt.cli import positive_int
from phrasenmt.embeddings import main as embeddings_main
from phrasenmt.evaluate.aer import main as aer_main
from phrasenmt.io import read_lines
from phrasenmt.phrases import main as phrases_main


def timed(fn, argv: list[str]) -> float:
    """Seconds taken by one CLI call (which must succeed)."""
    start = time.perf_counter()
    if fn(argv) != 0:
        raise RuntimeError(f"failed: {' '.join(argv)}")
    return time.perf_counter() - start


def chain(args: argparse.Namespace, backend: str, samplers: int | None,
          prefix: Path) -> dict[str, float]:
    """Run the whole chain with one aligner, its files named `prefix`.*; seconds
    per stage."""
    w = {k: f"{prefix}.{k}" for k in
         ("fwd", "rev", "sym", "phr", "flt", "f4", "f2", "cat", "aer")}
    options = [] if samplers is None else ["--samplers", str(samplers)]
    t = {"align": timed(align_main, [
        "run", "--backend", backend, *options, "--src", args.src, "--tgt", args.tgt,
        "--fwd", w["fwd"], "--rev", w["rev"], "--threads", str(args.threads)])}
    t["symmetrize"] = timed(align_main, [
        "symmetrize", "--fwd", w["fwd"], "--rev", w["rev"], "--out", w["sym"],
        "--src", args.src, "--tgt", args.tgt])
    t["phrases"] = timed(phrases_main, [
        "--src", args.src, "--tgt", args.tgt, "--alignment", w["sym"],
        "--tgt-lang", args.tgt_lang, "--out-phrases", w["phr"], "--out-filters",
        w["flt"], "--out-fertility", w["f4"], "--out-fertility2", w["f2"]])
    t["concat"] = timed(embeddings_main, [
        "concat", "--text", args.tgt, "--phrases", w["phr"], "--out", w["cat"]])
    t["embeddings"] = timed(embeddings_main, [
        "train", "--text", w["cat"], "--phrases", w["phr"], "--dim", "100",
        "--epoch", "5", "--threads", str(args.threads),
        "--out-dir", f"{prefix}.emb"])
    if args.gold:
        aer_main(["--gold", args.gold, "--pred", w["sym"], "--src", args.src,
                  "--tgt", args.tgt, "--out", w["aer"]])
        t["aer"] = json.loads(Path(w["aer"]).read_text())["aer"]
    return t


def main(argv: Sequence[str]) -> int:
    """Run the chain with every backend, writing the result file after each."""
    p = harness.parser("chain", __doc__.splitlines()[0],
                       cpu_only="the chain runs on the CPU", workdir=None)
    p.add_argument("--src", required=True, type=Path)
    p.add_argument("--tgt", required=True, type=Path)
    p.add_argument("--gold", type=Path, help="gold Pharaoh links, for AER")
    p.add_argument("--tgt-lang", default="en")
    p.add_argument("--backends", nargs="+", default=["eflomal", "fast_align"],
                   help="aligner backends (phrasenmt.align run --backend)")
    p.add_argument("--samplers", type=positive_int, nargs="+", default=[3],
                   help="eflomal's independent samplers, one run per value")
    args = harness.parse(p, argv)
    args.src, args.tgt = str(args.src), str(args.tgt)
    args.gold = args.gold and str(args.gold)
    n_pairs = len(read_lines(args.src))
    results = harness.Results("chain", args, argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(args.workdir or tmp)
        work.mkdir(parents=True, exist_ok=True)
        runs = [(b, s) for b in args.backends
                for s in (args.samplers if b == "eflomal" else [None])]
        for backend, samplers in runs:
            name = backend if samplers is None else f"{backend}-s{samplers}"
            t = chain(args, backend, samplers, work / name)
            stages = ("align", "symmetrize", "phrases", "concat", "embeddings")
            results.add(name, {
                "pairs": n_pairs, "seconds": {k: round(t[k], 2) for k in stages},
                "pairs_per_s": {k: round(n_pairs / t[k]) for k in stages},
                "chain_seconds": round(sum(t[k] for k in stages), 2),
                "aer": t.get("aer"),
                "filters": (work / f"{name}.flt").read_text()})
    return results.done()
