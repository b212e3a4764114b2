"""Batch shapes per epoch and their padding, with and without train.length_buckets.

    python -m benchmarks.speed --suite shapes [--src FILE --tgt FILE] [options]

A GPU pays for every new batch shape (cuDNN attention builds a plan for each;
torch.compile with static shapes compiles each), and padding costs compute.
For a corpus (`--src`/`--tgt`, subword-segmented text as the trainer reads
it; default: random sentences of `--lengths` tokens), the trainer's batching
(`make_batches`, `--max-tokens` padded tokens per batch) is run once plain
and once per bucket list: batches per epoch, distinct (batch, source width,
target width) shapes, and the share of the batches' cells that is padding
(both sides). With `--docs` (document ids) also that share of the packed
context of K = `--k` previous sentences (`ctx_transformer`'s X_c), as one
tensor a batch and in the groups a CPU encodes (`row_groups`). Counting only:
nothing is trained, so it runs anywhere.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from phrasenmt.data.documents import context_indices
from phrasenmt.io import read_lines
from phrasenmt.models.ctx_transformer import CPU_CONTEXT_GROUPS, row_groups
from phrasenmt.nn.batching import bucket_width, make_batches
from phrasenmt.training.config import increasing_widths

# Widths of 8 up to 64, of 16 up to 128, of 32 up to 256 (tokens, </s> included).
DEFAULT_BUCKETS = [*range(8, 65, 8), *range(80, 129, 16), *range(160, 257, 32)]


def figures(src: list[int], tgt: list[int], max_tokens: int,
            buckets: Sequence[int]) -> dict[str, Any]:
    """Batches, distinct shapes and padding share of one epoch's batching."""
    batches = make_batches(src, tgt, max_tokens, 1, buckets)
    shapes, cells, real = set(), 0, 0
    for rows in batches:
        s_w = bucket_width(max(src[i] for i in rows) + 1, buckets)
        t_w = bucket_width(max(tgt[i] for i in rows) + 1, buckets)
        shapes.add((len(rows), s_w, t_w))
        cells += len(rows) * (s_w + t_w)
        real += sum(src[i] + 1 + tgt[i] + 1 for i in rows)
    return {"buckets": list(buckets), "batches": len(batches), "shapes": len(shapes),
            "widths": len({(s, t) for _, s, t in shapes}),
            "padding": round(1 - real / cells, 4)}


def context_padding(src: list[int], tgt: list[int], docs: list[str], k: int,
                    max_tokens: int) -> dict[str, Any]:
    """Padding share of the packed context X_c (K previous source sentences,
    each + </s>) over one epoch's batches: as one tensor a batch, and grouped."""
    packed = [sum(src[j] + 1 for j in row) for row in context_indices(docs, k)]
    cells = grouped = real = 0
    for rows in make_batches(src, tgt, max_tokens, 1):
        lengths = [packed[i] for i in rows]
        cells += len(rows) * max(1, max(lengths))
        grouped += sum(len(run) * w for run, w in row_groups(lengths, CPU_CONTEXT_GROUPS))
        real += sum(lengths)
    return {"k": k, "groups": CPU_CONTEXT_GROUPS, "context_padding": round(1 - real / cells, 4),
            "grouped_context_padding": round(1 - real / grouped, 4)}


def main(argv: Sequence[str] | None = None) -> int:
    """The suite's entry point (benchmarks.speed) -> exit status."""
    from benchmarks import harness
    from phrasenmt.cli import positive_int
    p = harness.parser("shapes", __doc__.split("\n")[0],
                       cpu_only="the shapes suite only counts; use cpu",
                       lengths=[5, 60], max_tokens=8192)
    p.add_argument("--src", type=Path, default=None, help="segmented source text")
    p.add_argument("--tgt", type=Path, default=None, help="segmented target text")
    p.add_argument("--docs", type=Path, default=None, help="document ids, one a line of --src")
    p.add_argument("--k", type=positive_int, default=1, help="context sentences K")
    p.add_argument("--pairs", type=positive_int, default=20000,
                   help="random sentences when no files are given")
    p.add_argument("--buckets", type=positive_int, nargs="+", default=DEFAULT_BUCKETS,
                   help="one bucket list (default: 8 to 64 by 8, to 128 by 16, to "
                        "256 by 32)")
    args = harness.parse(p, argv)
    if (args.src is None) != (args.tgt is None):
        p.error("--src and --tgt: give both or neither")
    if args.src is not None:
        src, tgt = ([len(line.split()) for line in read_lines(f)]  # tokens per line
                    for f in (args.src, args.tgt))
        if len(src) != len(tgt):
            p.error(f"--src has {len(src)} lines but --tgt has {len(tgt)}")
    else:
        rng = random.Random(1)
        src = [rng.randint(*args.lengths) for _ in range(args.pairs)]
        tgt = [max(1, n + rng.randint(-3, 3)) for n in src]
    docs = read_lines(args.docs) if args.docs is not None else None
    if docs is not None and (args.src is None or len(docs) != len(src)):
        p.error(f"--docs has {len(docs)} lines: it needs --src and --tgt of as many")
    if not increasing_widths(args.buckets):
        p.error(f"--buckets: must be increasing, got {args.buckets}")
    results = harness.Results("shapes", args, argv)
    results.add("plain", figures(src, tgt, args.max_tokens, []))
    results.add("buckets", figures(src, tgt, args.max_tokens, args.buckets))
    if docs is not None:
        results.add("context", context_padding(src, tgt, docs, args.k, args.max_tokens))
    return results.done()


if __name__ == "__main__":
    sys.exit(main())
