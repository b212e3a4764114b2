"""The GPU check (tests/gpu/check.py), part 2: training speed at full size in bf16, and MFU.

Each timed model trains through the project's Trainer (its batching, autocast,
loss, backward and fused Adam: what `phrasenmt.train` runs) on a corpus of
random tokens (32,000 types per side, 10-40 tokens per sentence): --warmup
updates (WARMUP), one update under the FLOP counter, then --timed-updates
(TIMED_UPDATES) between two CUDA synchronisations. The timed updates replay the
warm-up's batches (the batch iterator is rewound): PyTorch's cuDNN attention
builds a plan for every new batch shape, which made the first updates of a
run 2-3 times slower than its steady state on an H100 (docs/results/
2026-11-27-gpu-check-h100.md); a long training run sees its shapes again and
again, so the timed updates meet only shapes already seen, as it does. One batch per
update, of at most `batch` padded tokens (the longer side; 25,000 for the
Transformer family, NPMT its preset's 4,096: its segment DP over a 32k
vocabulary at 25k tokens needs several times an H100's memory).

FLOP count: the matrix-product FLOPs of one update's forward and backward pass
(torch.utils.flop_counter.FlopCounterMode: mm, addmm, bmm, convolutions and
scaled-dot-product attention, 2 FLOPs per multiply-add, plus what it leaves
out and benchmarks/ceiling.py adds, UNCOUNTED: the in-place addmm_ of the fused
loss' output-weight gradient and the CPU attention kernels; elementwise ops,
softmax, layer norm and the optimizer are not counted), divided by that
update's target tokens, times the measured target tokens/s, over the GPU's
dense bf16 peak (PEAK_TFLOPS by name, or --peak-tflops). Target tokens are
the real (unpadded) target tokens with </s>, as fairseq counts them.

That MFU counts the products as run, padding included. Beside it, the useful
MFU counts only what real tokens need (tests/gpu/useful.py: per side, plus
attention over each sentence's own length; the Transformer only), printed
with the padding fraction of the timed batches (both sides' cells).
"""

from __future__ import annotations

import contextlib
import io
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from torch.utils.flop_counter import FlopCounterMode

from benchmarks.ceiling import UNCOUNTED
from benchmarks.harness import sync
from phrasenmt.training.data import DataPaths
from phrasenmt.training.spec import resolve_spec
from phrasenmt.training.trainer import Trainer
from tests.gpu import fairseq_peer as peer
from tests.gpu.data import SRC, TGT, Corpus, random_tokens
from tests.gpu.families import one_line, side_args
from tests.gpu.useful import update_figures

TIMED = ("transformer", "pr_max_attn_ta", "npmt", "ctx_transformer",
         "ctx_transformer_enc", "ctx_transformer_dec", "han_enc", "han_dec",
         "han_enc_dec")
WARMUP, TIMED_UPDATES = 6, 6  # the timed updates replay the warm-up's batches
# Dense bf16 tensor-core peaks (no sparsity), TFLOP/s, by a substring of the
# device name; the first match wins (PCIe and NVL before the SXM default).
PEAK_TFLOPS = (("H100 PCIe", 756.0), ("H100 NVL", 835.0), ("GH200", 989.4),
               ("H200", 989.4), ("H100", 989.4), ("A100", 312.0), ("L40S", 362.1),
               ("L4", 121.0), ("A10", 125.0))
SIZES = {  # preset of the Transformer family, NPMT's, batch tokens, corpus
    "full": {"preset": "base", "npmt": "iwslt", "batch": 25000, "npmt_batch": 4096,
             "pairs": 10000, "vocab": 32000, "lengths": (10, 40)},
    "tiny": {"preset": "tiny", "npmt": "tiny", "batch": 2000, "npmt_batch": 1000,
             "pairs": 600, "vocab": 500, "lengths": (5, 20)},
}


def preset_and_batch(arch: str, size: dict[str, Any]) -> tuple[str, int]:
    """The timed preset and batch tokens of `arch` at a SIZES entry (NPMT its own)."""
    npmt = arch.startswith("npmt")
    return (size["npmt"], size["npmt_batch"]) if npmt else (size["preset"], size["batch"])


def peak_flops(device: str, override: float | None) -> float | None:
    """The device's dense bf16 peak in FLOP/s (None: unknown)."""
    if override:
        return override * 1e12
    if device != "cuda":
        return None
    name = torch.cuda.get_device_name(0)
    return next((tf * 1e12 for key, tf in PEAK_TFLOPS if key in name), None)


def trainer_for(arch: str, preset: str, corpus: Corpus, batch: int, device: str,
                outdir: Path, train: dict[str, Any] | None = None) -> Trainer:
    """A bf16 Trainer of `arch`/`preset`, one batch of `batch` tokens per update
    (`train`: more train keys, e.g. length_buckets)."""
    spec = resolve_spec({"arch": arch, "preset": preset, "train": {
        "max_tokens": batch, "update_tokens": 1, "max_steps": 10**6,
        "valid_interval": 10**6, "save_interval": 10**6, "log_interval": 10**6,
        **(train or {})}})
    side = side_args(arch, corpus, ("train", "dev"))
    paths = DataPaths(corpus.path("train", SRC), corpus.path("train", TGT),
                      corpus.path("dev", SRC), corpus.path("dev", TGT))
    if "--side" in side:
        paths.side = {"phrases": (corpus.path("train", "phrases"),
                                  corpus.path("dev", "phrases"))}
    if "--docs" in side:
        paths.docs = (corpus.path("train", "docs"), corpus.path("dev", "docs"))
    return Trainer(spec, paths, outdir, seed=1, device=device, progress_bar=False,
                   precision="bf16")


def time_arch(arch: str, preset: str, corpus: Corpus, batch: int, device: str,
              outdir: Path, peak: float | None, warmup: int = WARMUP,
              timed: int = TIMED_UPDATES, replay: bool = True) -> dict[str, Any]:
    """`warmup` updates, one counted update, `timed` timed ones -> the row;
    `replay`: the counted and timed updates rewind to the warm-up's batches."""
    with contextlib.redirect_stderr(io.StringIO()):
        t = trainer_for(arch, preset, corpus, batch, device, outdir)
    if device == "cuda":
        torch.cuda.reset_peak_memory_stats()
    start_state = t.iterator.state_dict()
    for _ in range(warmup):
        t.train_step()
    if replay:
        t.iterator.load_state_dict(start_state)
    with FlopCounterMode(display=False, custom_mapping=UNCOUNTED) as counter:
        loss, _, ntokens, _ = t.train_step()
    flops_per_token = counter.get_total_flops() / ntokens
    if replay:
        t.iterator.load_state_dict(start_state)
    useful, padding = useful_figures(t, timed)
    sync(device)
    start, tokens = time.perf_counter(), 0
    for _ in range(timed):
        loss, _, n, _ = t.train_step()
        tokens += n
    sync(device)
    seconds = time.perf_counter() - start
    if not math.isfinite(loss):
        raise RuntimeError(f"non-finite loss {loss}")
    speed = tokens / seconds
    row = {"arch": arch, "preset": preset, "batch_tokens": batch,
           "params": t.model.num_parameters(), "tokens_per_update": tokens // timed,
           "seconds_per_update": round(seconds / timed, 4),
           "tokens_per_s": round(speed), "gflop_per_token": round(flops_per_token / 1e9, 3),
           "tflops": round(flops_per_token * speed / 1e12, 1),
           "mfu": None if peak is None else round(flops_per_token * speed / peak, 4),
           "padding": round(padding, 4),
           "useful_tflops": None if useful is None else round(useful / seconds / 1e12, 1),
           "useful_mfu": None if peak is None or useful is None
           else round(useful / seconds / peak, 4)}
    if device == "cuda":
        row["peak_memory_gib"] = round(torch.cuda.max_memory_allocated() / 2**30, 2)
    del t
    if device == "cuda":
        torch.cuda.empty_cache()
    return row


def useful_figures(t: Trainer, updates: int) -> tuple[float | None, float]:
    """The next `updates` updates' useful FLOPs (tests/gpu/useful.py; None
    but for the Transformer) and their padding fraction."""
    cfg = t.spec.model if t.spec.arch == "transformer" else None
    figures = [update_figures(cfg, b) for b in t.iterator.lengths_ahead(updates)]
    flops = None if cfg is None else sum(f for f, _ in figures)
    return flops, sum(p for _, p in figures) / len(figures)


def guarded(arch: str, preset: str, *args) -> dict[str, Any]:
    """time_arch, or a FAIL row with the reason."""
    try:
        return {**time_arch(arch, preset, *args), "status": "PASS", "reason": ""}
    except Exception as err:  # noqa: BLE001  (OOM, a CUDA defect: one row)
        if torch.cuda.is_available():
            torch.cuda.empty_cache()
        return {"arch": arch, "preset": preset, "status": "FAIL",
                "reason": f"{type(err).__name__}: {one_line(str(err))}"}


def run(args, work: Path, deadline: float, save: Callable[[], None]
        ) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Part 2, then part 3 (alternating with the Transformer) -> (timing, fairseq).

    A model whose turn comes with less than 60 s of the budget left is
    skipped (status SKIP, not a failure); `save` is called after every row."""
    size = SIZES[args.timing_size]
    corpus = random_tokens(work / "timing_data", size["pairs"], size["vocab"],
                           size["lengths"], args.seed)
    peak = peak_flops(args.device, args.peak_tflops)
    rows: list[dict[str, Any]] = []
    result = {"rows": rows, "peak_tflops": None if peak is None else peak / 1e12,
              "warmup": args.warmup, "timed_updates": args.timed_updates,
              "flop_count": "matmul FLOPs of forward+backward per update "
                            "(FlopCounterMode) / target tokens"}
    for arch in args.timing_archs:
        preset, batch = preset_and_batch(arch, size)
        if time.perf_counter() > deadline - 60:
            rows.append({"arch": arch, "preset": preset, "status": "SKIP",
                         "reason": "time budget"})
            continue
        row = guarded(arch, preset, corpus, batch, args.device, work / "timing" / arch,
                      peak, args.warmup, args.timed_updates)
        rows.append(row)
        print(f"  timing {row['status']} {arch}/{preset}: "
              f"{row.get('tokens_per_s', '-')} tok/s, MFU {row.get('mfu')}, useful "
              f"MFU {row.get('useful_mfu')} at padding {row.get('padding')} "
              f"{row['reason']}", flush=True)
        relative_speeds(rows)
        save()
    fairseq = None
    if args.fairseq == "auto" and args.device == "cuda":
        from tests.gpu.ours_worker import fresh  # ours in a new process, as fairseq

        fairseq = peer.compare(corpus, size, work / "fairseq", deadline,
                               lambda: fresh(corpus, size["preset"], size["batch"],
                                             args.device, work / "timing" / "again",
                                             peak, args.fairseq_warmup,
                                             args.timed_updates),
                               args.fairseq_warmup, args.timed_updates)
    return result, fairseq


def relative_speeds(rows: list[dict[str, Any]]) -> None:
    """Each timed row's tokens/s over the Transformer's."""
    base = next((r for r in rows if r["arch"] == "transformer" and r["status"] == "PASS"),
                None)
    for r in rows:
        if base and r["status"] == "PASS":
            r["relative_to_transformer"] = round(r["tokens_per_s"] / base["tokens_per_s"], 3)


def markdown(result: dict[str, Any] | None, fairseq: dict[str, Any] | None) -> list[str]:
    """The timing table and the fairseq line (nothing if part 2 did not run)."""
    if result is None:
        return []
    peak = result["peak_tflops"]
    lines = [(f"Training speed, bf16, {result['timed_updates']} timed updates replaying "
             f"the batches of {result['warmup']} warm-up updates; MFU against {peak or 'an unknown'} TFLOP/s "
             f"(dense bf16); FLOPs: {result['flop_count']}."), "",
             ("| arch | preset | batch | params | target tok/s | × Transformer | "
             "GFLOP/tok | TFLOP/s | MFU | useful MFU | padding | peak GiB | status |"),
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in result["rows"]:
        mfu = r.get("mfu")
        lines.append(
            f"| {r['arch']} | {r.get('preset', '')} | {r.get('batch_tokens', '')} | "
            f"{_m(r.get('params'))} | {r.get('tokens_per_s', '')} | "
            f"{r.get('relative_to_transformer', '')} | {r.get('gflop_per_token', '')} | "
            f"{r.get('tflops', '')} | {'' if mfu is None else f'{mfu:.1%}'} | "
            f"{_pct(r.get('useful_mfu'))} | {_pct(r.get('padding'))} | "
            f"{r.get('peak_memory_gib', '')} | {r['status']} {r['reason']} |")
    lines.append("")
    lines += peer.markdown(fairseq)
    return lines


def _pct(value) -> str:
    return "" if value is None else f"{value:.1%}"


def _m(value) -> str:
    return "" if value is None else f"{value / 1e6:.1f}M"
