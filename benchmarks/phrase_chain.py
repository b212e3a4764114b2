"""Benchmark align -> symmetrize -> phrases -> concat -> embeddings on a corpus.

    python benchmarks/phrase_chain.py --src train.de --tgt train.en [--gold
        train.align] [--tgt-lang en] [--threads 2] [--samplers 1 3] [--workdir DIR]

Prints sentence pairs per second for each aligner backend, phrase extraction
and the concatenation rewrite, the AER of each backend against --gold, and the
wall time of the whole chain with each backend (the chain runs every stage
through its CLI entry point, so file reading, validation and writing count).
eflomal runs once per `--samplers` value (its independent samplers).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from phrasenmt.align.__main__ import main as align_main
from phrasenmt.embeddings import main as embeddings_main
from phrasenmt.evaluate.aer import main as aer_main
from phrasenmt.phrases import main as phrases_main


def timed(fn, argv: list[str]) -> float:
    """Seconds taken by one CLI call (which must succeed)."""
    start = time.perf_counter()
    if fn(argv) != 0:
        raise SystemExit(f"failed: {argv}")
    return time.perf_counter() - start


def run_name(backend: str, samplers: int | None) -> str:
    """File prefix of one aligner run."""
    return backend if samplers is None else f"{backend}-s{samplers}"


def chain(args: argparse.Namespace, backend: str, samplers: int | None,
          work: Path) -> dict[str, float]:
    """Run the whole chain with one aligner; seconds per stage."""
    name = run_name(backend, samplers)
    w = {k: str(work / f"{name}.{k}") for k in
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
        "--out-dir", str(work / f"{name}.emb")])
    if args.gold:
        aer_main(["--gold", args.gold, "--pred", w["sym"], "--src", args.src,
                  "--tgt", args.tgt, "--out", w["aer"]])
        t["aer"] = json.loads(Path(w["aer"]).read_text())["aer"]
    return t


def main() -> None:
    """Run the benchmark for every backend and print a summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", required=True)
    parser.add_argument("--tgt", required=True)
    parser.add_argument("--gold", help="gold Pharaoh links, for AER")
    parser.add_argument("--tgt-lang", default="en")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--backends", nargs="+", default=["eflomal", "fast_align"])
    parser.add_argument("--samplers", type=int, nargs="+", default=[3],
                        help="eflomal's independent samplers, one run per value")
    parser.add_argument("--workdir", help="keep outputs here (default: temp dir)")
    args = parser.parse_args()
    with open(args.src, encoding="utf-8") as fh:
        n_pairs = sum(1 for _ in fh)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(args.workdir or tmp)
        work.mkdir(parents=True, exist_ok=True)
        runs = [(b, s) for b in args.backends
                for s in (args.samplers if b == "eflomal" else [None])]
        for backend, samplers in runs:
            t = chain(args, backend, samplers, work)
            total = sum(v for k, v in t.items() if k != "aer")
            print(f"== {run_name(backend, samplers)}: {n_pairs} sentence pairs")
            for stage in ("align", "symmetrize", "phrases", "concat", "embeddings"):
                print(f"  {stage:<11} {t[stage]:7.2f} s  "
                      f"{n_pairs / t[stage]:10.0f} pairs/s")
            print(f"  total chain {total:7.2f} s"
                  + (f"   AER {t['aer']:.4f}" if "aer" in t else ""))
            print((work / f"{run_name(backend, samplers)}.flt").read_text())


if __name__ == "__main__":
    main()
