"""NPMT speed and memory: training vs a Transformer, the batched DP vs a loop,
greedy and beam decoding, and the peak memory of segment scoring.

    python benchmarks/npmt_speed.py [--threads 1] [--checkpoint M --input SRC]

1. Training target tokens/s of NPMT (`--preset`, default tiny) and of our
   Transformer with the closest parameter count, on the same random batches
   (source and target 10-20 tokens), updates interleaved; CPU seconds of this
   process (time.process_time), so that other jobs on the machine count less.
2. The segment DP (B 64, T = T' = 50, L 6, forward + backward): the batched
   recursion of phrasenmt.models.swan against a per-sentence, per-position
   loop of the same recursion (kept here only, as the reference point).
3. Greedy and beam-10 decoding, output tokens/s, through the translate CLI's
   code path: a trained checkpoint and word-level source with --checkpoint and
   --input, else the preset with random weights whose $ bias makes every step
   stop with probability ~1/2 (segments of about one token).
4. Peak memory of scoring one training batch of 64 sentences of 50 tokens with
   L = 6 (segment scores, DP, backward), in a fresh subprocess: VmHWM minus the
   resident size before the batch (Linux /proc), and the size of the (B, T',
   T+1, L+1) score tensor itself.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import torch
from torch import Tensor

from phrasenmt.io import read_lines
from phrasenmt.models import build_model
from phrasenmt.models.npmt import NPMTConfig
from phrasenmt.models.registry import get_preset
from phrasenmt.models.swan import safe_logsumexp, segment_log_likelihood
from phrasenmt.models.transformer import TransformerConfig
from phrasenmt.nn.batching import Batch, collate, pad_sequences
from phrasenmt.nn.loss import sequence_loss
from phrasenmt.text.vocab import EOS, Vocabulary
from phrasenmt.training.checkpoint import load_model
from phrasenmt.training.config import TrainConfig
from phrasenmt.translate import SegmentSearch, translate_segments

REFERENCE_TOKENS_PER_S = 46.0  # the original NPMT decoder (issue), the 1x mark


def npmt_config(preset: str, vocab: int, **over) -> NPMTConfig:
    """The preset's NPMT config with both vocabularies of size `vocab`."""
    cfg = NPMTConfig()
    get_preset("npmt", preset)(cfg, TrainConfig())
    cfg.src_vocab_size = cfg.tgt_vocab_size = vocab
    for key, value in over.items():
        setattr(cfg, key, value)
    return cfg


def params(model: torch.nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def matching_transformer(target: int, vocab: int) -> TransformerConfig:
    """2+2 layers, 4 heads, ff 4·d: the d_model whose parameter count is closest."""
    best = None
    for d in range(16, 513, 16):
        cfg = TransformerConfig(src_vocab_size=vocab, tgt_vocab_size=vocab, d_model=d,
                                d_ff=4 * d, n_heads=4, encoder_layers=2,
                                decoder_layers=2, dropout=0.1)
        n = params(build_model("transformer", cfg))
        if best is None or abs(n - target) < best[0]:
            best = (abs(n - target), cfg)
    return best[1]


def random_batches(n: int, sentences: int, vocab: int, seed: int) -> list[Batch]:
    """n batches of random source/target ids, 10-20 tokens each side."""
    g = torch.Generator().manual_seed(seed)

    def sentence() -> list[int]:
        length = int(torch.randint(10, 21, (1,), generator=g))
        return torch.randint(4, vocab, (length,), generator=g).tolist()

    return [collate([sentence() for _ in range(sentences)],
                    [sentence() for _ in range(sentences)]) for _ in range(n)]


def update(model: torch.nn.Module, opt: torch.optim.Optimizer, batch: Batch,
           npmt: bool) -> float:
    """One update -> CPU seconds."""
    start = time.process_time()
    if npmt:
        loss, _ = model.loss(batch, 0.0)
    else:
        loss, _ = sequence_loss(model(batch.src, batch.tgt_in), batch.tgt_out, 0.1)
    (loss / batch.ntokens).backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    return time.process_time() - start


def compare_training(preset: str, vocab: int, steps: int, sentences: int) -> None:
    """Print target tokens/s of NPMT and the matching Transformer."""
    torch.manual_seed(0)
    npmt = build_model("npmt", npmt_config(preset, vocab)).train()
    transformer = build_model("transformer",
                              matching_transformer(params(npmt), vocab)).train()
    models = {"npmt": npmt, "transformer": transformer}
    opts = {k: torch.optim.Adam(m.parameters(), 1e-4) for k, m in models.items()}
    seconds = dict.fromkeys(models, 0.0)
    batches = random_batches(steps + 1, sentences, vocab, seed=1)
    for i, batch in enumerate(batches):
        for name, model in models.items():
            spent = update(model, opts[name], batch, name == "npmt")
            seconds[name] += spent if i > 0 else 0.0  # the first warms up
    tokens = sum(b.ntokens for b in batches[1:])
    speed = {k: tokens / s for k, s in seconds.items()}
    for name, model in models.items():
        print(f"train {name:12s} {params(model):9d} params {speed[name]:9.0f} "
              f"target tokens/s (CPU time)")
    print(f"train npmt / transformer          {speed['npmt'] / speed['transformer']:9.3f}"
          f"  (target >= 0.333)")


def loop_log_likelihood(seg: Tensor, src_len: Tensor, tgt_len: Tensor) -> Tensor:
    """The DP's recursion sentence by sentence, position by position."""
    out = []
    L1 = seg.size(-1)
    for b in range(seg.size(0)):
        T = int(tgt_len[b])
        alpha = torch.full((T + 1,), float("-inf"), dtype=torch.float64)
        alpha[0] = 0.0
        for t in range(int(src_len[b])):
            terms = torch.full((T + 1, L1), float("-inf"), dtype=torch.float64)
            for n in range(L1):
                terms[n:, n] = alpha[: T + 1 - n] + seg[b, t, : T + 1 - n, n].double()
            alpha = safe_logsumexp(terms, dim=1)
        out.append(alpha[T])
    return torch.stack(out)


def compare_dp(B: int = 64, T: int = 50, L: int = 6) -> None:
    """Print the batched DP's speed-up over the per-sentence per-position loop."""
    g = torch.Generator().manual_seed(0)
    src_len = torch.randint(T // 2, T + 1, (B,), generator=g)
    tgt_len = torch.randint(T // 2, T + 1, (B,), generator=g)
    seg = torch.randn(B, T, T + 1, L + 1, generator=g) - 2.0
    s, n = torch.arange(T + 1)[:, None], torch.arange(L + 1)[None, :]
    valid = (torch.arange(T)[None, :, None, None] < src_len[:, None, None, None]) \
        & ((s + n)[None, None] <= tgt_len[:, None, None, None])
    seg = torch.where(valid, seg, float("-inf"))
    timings = {}
    for name, fn in (("batched", segment_log_likelihood),
                     ("loop", loop_log_likelihood)):
        leaf = seg.clone().requires_grad_(True)
        start = time.process_time()
        ll = fn(leaf, src_len, tgt_len)
        ll.sum().backward()
        timings[name] = (time.process_time() - start, ll.detach())
    assert torch.allclose(timings["batched"][1], timings["loop"][1], atol=1e-9)
    print(f"dp B={B} T=T'={T} L={L} forward+backward: batched "
          f"{timings['batched'][0] * 1000:.1f} ms, per-sentence per-position loop "
          f"{timings['loop'][0] * 1000:.1f} ms, speed-up "
          f"{timings['loop'][0] / timings['batched'][0]:.1f}x")


def decoding_model(args: argparse.Namespace):
    """(model, source vocabulary, target vocabulary, source lines)."""
    if args.checkpoint is not None:
        model, src_vocab, tgt_vocab, _ = load_model(args.checkpoint)
        return model, src_vocab, tgt_vocab, read_lines(args.input)[: args.sentences]
    torch.manual_seed(0)
    model = build_model("npmt", npmt_config(args.preset, args.vocab)).eval()
    words = [f"w{i}" for i in range(args.vocab - 4)]
    vocab = Vocabulary.build([" ".join(words)])
    g = torch.Generator().manual_seed(3)
    lines = [" ".join(words[int(i)] for i in torch.randint(
        0, len(words), (int(torch.randint(10, 21, (1,), generator=g)),), generator=g))
        for _ in range(args.sentences)]
    calibrate_stop(model, vocab, lines[:16])
    return model, vocab, vocab, lines


@torch.no_grad()
def calibrate_stop(model: torch.nn.Module, vocab: Vocabulary, lines: list[str]
                   ) -> None:
    """Peaky random outputs whose $ bias gives greedy ~1 token per position."""
    model.decoder.output.weight.mul_(8.0)
    src = pad_sequences([[*vocab.encode(line), EOS] for line in lines])
    low, high = -20.0, 20.0
    for _ in range(20):  # bisection on the bias of $
        model.decoder.output.bias[EOS] = (low + high) / 2
        hyps = model.decode_segments(src)
        per_position = sum(len(h.tokens) for h in hyps) / int(src.ne(0).sum())
        low, high = (low, (low + high) / 2) if per_position < 1.0 else \
            ((low + high) / 2, high)


def compare_decoding(args: argparse.Namespace) -> None:
    """Print greedy and beam-10 output tokens/s against the reference's 46."""
    model, src_vocab, tgt_vocab, lines = decoding_model(args)
    for beam in (1, 10):
        search = SegmentSearch(beam, model.cfg.lambda1, 0.0, None, 1.5, 10)
        translate_segments(model, src_vocab, tgt_vocab, lines[:8], search, 64)
        start = time.process_time()
        hyps, _ = translate_segments(model, src_vocab, tgt_vocab, lines, search, 64)
        seconds = time.process_time() - start
        tokens = sum(len(h.split()) for h in hyps)
        speed = tokens / seconds
        target = 100 if beam == 1 else 10
        print(f"decode {'greedy' if beam == 1 else 'beam 10':8s} {len(lines)} sentences "
              f"{tokens} tokens {speed:9.0f} tokens/s = "
              f"{speed / REFERENCE_TOKENS_PER_S:7.1f}x the reference "
              f"(target >= {target}x)")


def measure_memory(preset: str, vocab: int, B: int, T: int, L: int) -> dict:
    """Peak resident memory (MB) of one training batch's scoring + backward."""
    torch.manual_seed(0)
    model = build_model("npmt", npmt_config(preset, vocab, max_segment_len=L)).train()
    g = torch.Generator().manual_seed(0)
    rows = [torch.randint(4, vocab, (T,), generator=g).tolist() for _ in range(B)]
    batch = collate(rows, rows)

    def rss(field: str) -> float:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1]) / 1024
        raise RuntimeError(f"no {field} in /proc/self/status")

    before = rss("VmRSS:")
    Path("/proc/self/clear_refs").write_text("5")  # reset the peak (VmHWM)
    start = time.process_time()
    loss, _ = model.loss(batch, 0.0)
    loss.backward()
    seconds = time.process_time() - start
    P = T + 1  # T source tokens + </s>
    return {"peak_mb": rss("VmHWM:") - before, "seconds": seconds,
            "scores_mb": B * P * (T + 1) * (L + 1) * 4 / 2**20}


def report_memory(args: argparse.Namespace) -> None:
    """Run `measure_memory` in a fresh interpreter and print it."""
    cmd = [sys.executable, __file__, "--memory-only", "--preset", args.preset,
           "--vocab", str(args.vocab), "--threads", str(args.threads)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    m = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"memory B=64 T=T'=50 L=6 ({args.preset}, V={args.vocab}): peak "
          f"{m['peak_mb']:.0f} MB over the resident size for scores + DP + backward "
          f"({m['seconds']:.1f} s CPU); the (B, T', T+1, L+1) score tensor "
          f"{m['scores_mb']:.1f} MB (target < 2048 MB)")


def main() -> None:
    """Print every figure."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--preset", default="tiny", help="NPMT preset")
    p.add_argument("--vocab", type=int, default=1461,
                   help="vocabulary size of the random data (default: the synthetic "
                   "de-en corpus's English)")
    p.add_argument("--steps", type=int, default=8, help="timed training updates")
    p.add_argument("--batch", type=int, default=48, help="sentences per update")
    p.add_argument("--checkpoint", type=Path, help="trained NPMT for decoding")
    p.add_argument("--input", type=Path, help="word-level source for decoding")
    p.add_argument("--sentences", type=int, default=200, help="sentences to decode")
    p.add_argument("--memory-only", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    if args.memory_only:
        print(json.dumps(measure_memory(args.preset, args.vocab, 64, 50, 6)))
        return
    if (args.checkpoint is None) != (args.input is None):
        p.error("--checkpoint and --input go together")
    print(f"threads={args.threads} preset={args.preset} vocab={args.vocab} "
          f"torch={torch.__version__}")
    compare_training(args.preset, args.vocab, args.steps, args.batch)
    compare_dp()
    compare_decoding(args)
    report_memory(args)


if __name__ == "__main__":
    main()
