"""How fast could a Transformer training step be on this CPU? A matmul-FLOP ceiling.

Counts the matrix-multiply FLOPs of one training update of the Transformer
(`model.loss` forward with label smoothing, backward; torch's FlopCounterMode
counts mm, addmm, bmm and attention), times the same updates (Adam included),
alternating with updates through the unfused loss (`Seq2Seq.loss`: the (N, V)
logits, then `sequence_loss`) that the Transformer used before its fused one,
and measures this machine's float32 matmul throughput on the step's own GEMM
shapes and on a large square one. From these it records the fraction of the
matmul peak the step reaches, and the ceiling: target tokens per second if
every matmul ran at the peak and everything else (softmax, layer norm,
dropout, the optimizer, Python) took no time at all. Given a peer's measured
throughput (`--peer-tokens-per-s`, e.g. fairseq's from the peers suite at the
same threads), it records the largest ratio over the peer that any
implementation of the same model and batch could reach in fp32 here.

    python -m benchmarks.speed --suite ceiling [--preset small] [--threads 1]
        [--max-tokens 4096] [--peer-tokens-per-s 1129] [--profile]

Batches: sentence lengths drawn from the Multi30k BPE training text when
`--lengths` names it (default: the workflow's, if built), else 8-20 tokens;
sorted by length and cut at `--max-tokens` padded tokens (the longer side) by
the trainer's batching (`make_batches`), as fairseq batches too.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import torch
from torch.utils import flop_counter
from torch.utils.flop_counter import FlopCounterMode

from benchmarks import harness
from phrasenmt.cli import positive_int
from phrasenmt.models.base import Seq2Seq
from phrasenmt.nn.batching import Batch, collate, make_batches
from phrasenmt.training.config import TrainConfig

LENGTHS = harness.REPO / "results" / "multi30k_en_de" / "bpe"


def pair_lengths(folder: Path, n: int, rng: random.Random) -> list[tuple[int, int]]:
    """n (source, target) token counts: sampled from folder's train.bpe.{en,de}
    if present, else uniform 8-20."""
    src, tgt = folder / "train.bpe.en", folder / "train.bpe.de"
    if src.exists() and tgt.exists():
        pairs = [(len(a.split()), len(b.split())) for a, b in
                 zip(src.read_text("utf-8").splitlines(), tgt.read_text("utf-8").splitlines(),
                     strict=True)]
        return rng.choices(pairs, k=n)
    return [(rng.randint(8, 20), rng.randint(8, 20)) for _ in range(n)]


# torch counts the CUDA attention kernels but not the CPU one that
# F.scaled_dot_product_attention runs here, nor the in-place addmm_ with which the
# fused loss accumulates the output weight's gradient: torch's formulas for the
# CUDA kernels and addmm (unwrapped: the counter wraps what it is given).
UNCOUNTED = {torch.ops.aten._scaled_dot_product_flash_attention_for_cpu:
             flop_counter.sdpa_flop.__wrapped__,
             torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward:
             flop_counter.sdpa_backward_flop.__wrapped__,
             torch.ops.aten.addmm_: flop_counter.addmm_flop.__wrapped__}


def step_flops(model: torch.nn.Module, batch: Batch, smoothing: float) -> tuple[int, dict]:
    """Matmul FLOPs of one forward + backward, total and by operator."""
    counter = FlopCounterMode(display=False, custom_mapping=UNCOUNTED)
    with counter:
        loss = model.loss(batch, smoothing)[0]
        (loss / batch.ntokens).backward()
    model.zero_grad(set_to_none=True)
    by_op = {str(op): n for op, n in counter.get_flop_counts().get("Global", {}).items()}
    return counter.get_total_flops(), by_op


def matmul_gflops(m: int, k: int, n: int, seconds: float = 1.0) -> float:
    """Best float32 GFLOP/s of (m x k) @ (k x n) over `seconds` of repeats."""
    a, b = torch.randn(m, k), torch.randn(k, n)
    torch.mm(a, b)
    best, end = float("inf"), time.perf_counter() + seconds
    while time.perf_counter() < end:
        t = time.perf_counter()
        torch.mm(a, b)
        best = min(best, time.perf_counter() - t)
    return 2 * m * k * n / best / 1e9


def main(argv: Sequence[str]) -> int:
    """FLOPs per update, achieved and peak GFLOP/s, and the ceiling -> the result file."""
    p = harness.parser("ceiling", __doc__.split("\n")[0], cpu_only=(
        "the ceiling is this CPU's; on a GPU, python -m tests.gpu.check gives MFU"),
        preset="small", max_tokens=4096, steps=20)
    p.add_argument("--src-vocab", type=positive_int, default=4387,
                   help="Multi30k en, 8k merges")
    p.add_argument("--tgt-vocab", type=positive_int, default=5781,
                   help="Multi30k de, 8k merges")
    p.add_argument("--lengths", type=Path, default=LENGTHS,
                   help="folder with train.bpe.en/.de to draw sentence lengths from")
    p.add_argument("--peer-tokens-per-s", type=float, default=0.0,
                   help="a peer's measured target tokens/s at the same threads")
    p.add_argument("--profile", action="store_true",
                   help="then profile --steps fused updates: each operator's share "
                        "of the self CPU time")
    args = harness.parse(p, argv)
    results = harness.Results("ceiling", args, argv)
    rng = random.Random(1)
    model = harness.preset_model("transformer", args.preset, args.src_vocab,
                                 tgt_vocab_size=args.tgt_vocab)
    cfg, smoothing = model.cfg, TrainConfig().label_smoothing
    lengths = pair_lengths(args.lengths, 40 * args.max_tokens // 14, rng)
    pairs = [([rng.randrange(4, args.src_vocab) for _ in range(s)],
              [rng.randrange(4, args.tgt_vocab) for _ in range(t)]) for s, t in lengths]
    rows = make_batches(*zip(*lengths, strict=True), args.max_tokens, 1)
    batches = [collate([pairs[i][0] for i in r], [pairs[i][1] for i in r])
               for r in rng.sample(rows, min(len(rows), args.steps + 3))]
    flops = [step_flops(model, b, smoothing)[0] for b in batches[3:]]
    _, by_op = step_flops(model, batches[-1], smoothing)
    fused = harness.trainer_update(model, loss=lambda b: model.loss(b, smoothing)[0])
    speed = harness.interleaved({"fused": fused, "unfused": harness.trainer_update(
        model, loss=lambda b: Seq2Seq.loss(model, b, smoothing)[0])}, batches, warmup=3)
    updates, tokens = len(batches) - 3, speed["fused"]["units"]
    total_flops, total_s = sum(flops), speed["fused"]["seconds"]
    d, ff, v = cfg.d_model, cfg.d_ff, args.tgt_vocab
    rows = args.max_tokens  # tokens per batch: the step's GEMMs have this many rows
    vp, chunk = v + -v % 8, 512  # the fused loss's padded vocabulary and chunk rows
    peaks = {f"{rows}x{d}x{ff} (feed-forward)": matmul_gflops(rows, d, ff),
             f"{rows}x{d}x{v} (output layer, unfused)": matmul_gflops(rows, d, v),
             f"{rows}x{d}x{vp} (output layer, padded to 8)": matmul_gflops(rows, d, vp),
             f"{chunk}x{d}x{vp} (output layer, one fused chunk)":
                 matmul_gflops(chunk, d, vp),
             f"{rows}x{d}x{d} (projection)": matmul_gflops(rows, d, d),
             "2048x2048x2048 (square)": matmul_gflops(2048, 2048, 2048)}
    peak = max(peaks.values())
    achieved = total_flops / total_s / 1e9
    ceiling = tokens / (total_flops / (peak * 1e9))
    figures = {
        "updates": updates, "target_tokens_per_update": round(tokens / updates),
        "gflop_per_update": round(total_flops / updates / 1e9, 2),
        "mflop_per_target_token": round(total_flops / tokens / 1e6, 2),
        "flops_by_operator_pct": {op: round(100 * n / sum(by_op.values()), 1) for op, n
                                  in sorted(by_op.items(), key=lambda kv: -kv[1])[:6]},
        "update_ms": round(1000 * total_s / updates),
        "target_tokens_per_s": round(tokens / total_s),
        "matmul_gflops_achieved": round(achieved, 1),
        "unfused_update_ms": round(1000 * speed["unfused"]["seconds"] / updates),
        "unfused_over_fused_time": round(speed["unfused"]["seconds"] / total_s, 2),
        "fp32_matmul_gflops": {name: round(g, 1) for name, g in peaks.items()},
        "share_of_peak": round(achieved / peak, 3),
        "ceiling_target_tokens_per_s": round(ceiling),
        "ceiling_over_this": round(ceiling / (tokens / total_s), 2)}
    if args.peer_tokens_per_s:
        figures["ceiling_over_peer"] = round(ceiling / args.peer_tokens_per_s, 2)
    results.add("ceiling", figures)
    if args.profile:
        results.add("profile", profile_updates(fused, batches[3:]))
    return results.done()


def profile_updates(update: Callable[[Batch], int],
                    batches: list[Batch]) -> dict[str, float]:
    """Each operator's share of the self CPU time of these (fused) updates."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for b in batches:
            update(b)
    events = sorted(prof.key_averages(), key=lambda e: -e.self_cpu_time_total)
    total = sum(e.self_cpu_time_total for e in events)
    return {e.key: round(100 * e.self_cpu_time_total / total, 1) for e in events[:12]}
