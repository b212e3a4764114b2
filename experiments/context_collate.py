"""Time the document context's collation: packed (`DocContext.batch`, one
gather per side) against padding each sentence (`pad_context` of id lists).

    python experiments/context_collate.py [--pairs 1000] [--k 3] [--repeats 20]

A synthetic corpus of 20,000 sentences of 5 to 40 ids; each pair's context is
its K previous lines. Prints milliseconds per batch of --pairs pairs.
"""

from __future__ import annotations

import argparse
import random
import time

from phrasenmt.nn.batching import pad_context
from phrasenmt.training.data import DocContext


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pairs", type=int, default=1000)
    p.add_argument("--k", type=int, default=3)
    p.add_argument("--repeats", type=int, default=20)
    args = p.parse_args()
    rng = random.Random(1)
    lines = [[rng.randint(4, 8000) for _ in range(rng.randint(5, 40))]
             for _ in range(20_000)]
    indices = [list(range(max(0, i - args.k), i)) for i in range(len(lines))]
    context = DocContext(args.k, {"src": lines}, indices)
    pairs = rng.sample(range(len(lines)), args.pairs)
    context.batch(pairs)  # packs the corpus once
    start = time.perf_counter()
    for _ in range(args.repeats):
        context.batch(pairs)
    packed = (time.perf_counter() - start) / args.repeats
    start = time.perf_counter()
    for _ in range(args.repeats):
        pad_context([[lines[j] for j in indices[i]] for i in pairs], args.k)
    each = (time.perf_counter() - start) / args.repeats
    print(f"{args.pairs} pairs, K = {args.k}: packed {1000 * packed:.2f} ms, "
          f"per sentence {1000 * each:.2f} ms per batch ({each / packed:.1f}x)")


if __name__ == "__main__":
    main()
