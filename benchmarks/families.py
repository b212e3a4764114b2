"""Training and decoding speed of the model families, each beside its reference.

Parts (`--parts`, all by default), every model on the same random batches,
updates interleaved (benchmarks.harness): transformer, ours against
torch.nn.Transformer between the same embeddings and output layer (training
target tokens/s; our beam search's sentences/s, random weights, outputs up to
source length + 5); phrase, every phrase-representation variant (`--archs`)
against the Transformer (ms per target token of training, and of beam search
per generated token at initialisation, outputs running to the length limit);
continuous, training pairs/s of attn_rnn (softmax over `--output-vocab`
words), CoNMT (vMF against a frozen table) and PCoNMT (words + `--phrases`
phrases); npmt, NPMT's training target tokens/s (CPU time) against the
Transformer of the closest parameter count, the segment DP (B 64, T = T' = 50,
L 6, forward and backward) batched against a per-sentence, per-position loop of
the same recursion, greedy and beam-10 output tokens/s through the translate
code path (random weights whose $ bias gives segments of about one token, or a
trained `--npmt-checkpoint` with `--npmt-input`) and, in a fresh process, the
peak memory of one such batch's scores, DP and backward (Linux /proc).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from benchmarks import harness
from phrasenmt.cli import positive_int
from phrasenmt.decoding.search import beam_search
from phrasenmt.io import read_lines
from phrasenmt.models import build_model
from phrasenmt.models.layers import Embeddings
from phrasenmt.models.phrase_transformer import VARIANTS
from phrasenmt.models.swan import safe_logsumexp, segment_log_likelihood
from phrasenmt.models.transformer import TransformerConfig
from phrasenmt.nn.batching import collate, pad_sequences
from phrasenmt.nn.loss import sequence_loss
from phrasenmt.text.vocab import EOS, PAD, Vocabulary
from phrasenmt.training.checkpoint import load_model


class ReferenceTransformer(nn.Module):
    """torch.nn.Transformer between our embeddings and output layer."""

    def __init__(self, cfg: TransformerConfig):
        super().__init__()
        self.src_embed = Embeddings(cfg.src_vocab_size, cfg.d_model,
                                    cfg.max_positions, cfg.dropout)
        self.tgt_embed = Embeddings(cfg.tgt_vocab_size, cfg.d_model,
                                    cfg.max_positions, cfg.dropout)
        self.core = nn.Transformer(cfg.d_model, cfg.n_heads, cfg.encoder_layers,
                                   cfg.decoder_layers, cfg.d_ff, cfg.dropout,
                                   batch_first=True, norm_first=cfg.pre_norm)
        self.output = nn.Linear(cfg.d_model, cfg.tgt_vocab_size, bias=False)

    def forward(self, src: Tensor, tgt_in: Tensor) -> Tensor:
        """src (B, S), tgt_in (B, T) -> logits (B, T, V)."""
        pad = src.eq(PAD)  # (B, S)
        causal = nn.Transformer.generate_square_subsequent_mask(tgt_in.size(1))
        h = self.core(self.src_embed(src), self.tgt_embed(tgt_in), tgt_mask=causal,
                      src_key_padding_mask=pad, memory_key_padding_mask=pad,
                      tgt_is_causal=True)
        return self.output(h)


def transformer(args) -> dict:
    """Ours against torch.nn.Transformer: training tokens/s; our beam's sentences/s."""
    ours = harness.preset_model("transformer", args.preset, args.vocab).to(args.device)
    torch.manual_seed(0)
    ref = ReferenceTransformer(ours.cfg).to(args.device)
    batches = harness.random_batches(args.steps + 1, args.sentences, args.vocab,
                                     device=args.device)
    speed = harness.interleaved({
        "ours": harness.trainer_update(ours),
        "torch.nn.Transformer": harness.trainer_update(ref, loss=lambda b: sequence_loss(
            ref(b.src, b.tgt_in), b.tgt_out, 0.1)[0])}, batches, device=args.device)
    src = batches[0].src[: args.decode_sentences]
    ours.eval()

    @torch.no_grad()
    def decode(rows: Tensor) -> int:
        beam_search(ours, rows, args.beam, 0.6, 1.0, 5)
        return rows.size(0)

    beam = harness.interleaved({"ours": decode}, [src[:2], src], device=args.device)["ours"]
    return {"train_target_tokens_per_s": {k: v["per_s"] for k, v in speed.items()},
            "train_ours_over_reference": round(speed["ours"]["per_s"]
                                               / speed["torch.nn.Transformer"]["per_s"], 3),
            f"beam{args.beam}_sentences_per_s": beam["per_s"]}


def phrase(args) -> dict:
    """ms per target token of training and of decoding at init, per variant."""
    archs = ["transformer", *args.archs]
    models = {a: harness.preset_model(a, args.preset, args.vocab).to(args.device)
              for a in archs}
    batches = harness.random_batches(args.steps + 1, args.sentences, args.vocab,
                                     (10, 40), phrases=True, device=args.device)

    def decoder(arch: str):
        @torch.no_grad()
        def decode(batch) -> int:
            side = {} if arch == "transformer" else {"phrases": batch.side["phrases"]}
            hyps = beam_search(models[arch].eval(), batch.src, args.beam, 0.6, 1.5, 10,
                               side)
            return sum(len(h[0].tokens) + 1 for h in hyps)
        return decode

    decode = harness.interleaved({a: decoder(a) for a in archs}, batches[:2],
                                 device=args.device)
    train = harness.interleaved({a: harness.trainer_update(m) for a, m in models.items()},
                                batches, device=args.device)
    return {a: {"params_m": round(models[a].num_parameters() / 1e6, 2),
                "train_ms_per_token": round(1e3 / train[a]["per_s"], 4),
                "decode_at_init_ms_per_token": round(1e3 / decode[a]["per_s"], 4),
                "train_time_vs_transformer": round(train["transformer"]["per_s"]
                                              / train[a]["per_s"], 2)} for a in archs}


def continuous(args) -> dict:
    """Training pairs/s of attn_rnn, CoNMT and PCoNMT at a large output vocabulary."""
    from phrasenmt.models.attn_rnn import AttnRNN, RNNConfig
    from phrasenmt.models.continuous import ContinuousConfig, ContinuousOutputNMT

    sizes = {"src_vocab_size": args.output_vocab, "embed_size": 256, "hidden_size": 512,
             "dropout": 0.1}
    models = {"attn_rnn": AttnRNN(RNNConfig(tgt_vocab_size=args.output_vocab, **sizes))}
    for arch, phrases in (("conmt", 0), ("pconmt_fert2", args.phrases)):
        model = ContinuousOutputNMT(ContinuousConfig(
            tgt_vocab_size=args.output_vocab + phrases, embed_dim=300,
            fertility_classes=2 if phrases else 0, **sizes))
        with torch.no_grad():  # a random unit-norm table stands in for fastText
            model.table.copy_(F.normalize(torch.randn(model.table.shape), dim=-1))
            model.is_phrase[args.output_vocab:] = True
        models[arch] = model
    batches = harness.random_batches(args.steps + 1, args.sentences, args.output_vocab,
                                     (25, 25), device=args.device)
    def pairs(update):
        return lambda batch: update(batch) and batch.src.size(0)  # counts pairs

    speed = harness.interleaved({a: pairs(harness.trainer_update(m.to(args.device)))
                                 for a, m in models.items()}, batches, device=args.device)
    return {a: {"samples_per_s": v["per_s"],
                "vs_attn_rnn": round(v["per_s"] / speed["attn_rnn"]["per_s"], 2)}
            for a, v in speed.items()}


def loop_log_likelihood(seg: Tensor, src_len: Tensor, tgt_len: Tensor) -> Tensor:
    """The DP's recursion sentence by sentence, position by position."""
    out, L1 = [], seg.size(-1)
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


def segment_dp(B: int = 64, T: int = 50, L: int = 6) -> dict:
    """ms of the batched DP and of the loop, forward + backward; they must agree."""
    g = torch.Generator().manual_seed(0)
    src_len = torch.randint(T // 2, T + 1, (B,), generator=g)
    tgt_len = torch.randint(T // 2, T + 1, (B,), generator=g)
    seg = torch.randn(B, T, T + 1, L + 1, generator=g) - 2.0
    s, n = torch.arange(T + 1)[:, None], torch.arange(L + 1)[None, :]
    valid = (torch.arange(T)[None, :, None, None] < src_len[:, None, None, None]) \
        & ((s + n)[None, None] <= tgt_len[:, None, None, None])
    seg = torch.where(valid, seg, float("-inf"))
    ms, values = {}, {}
    for name, fn in (("batched", segment_log_likelihood), ("loop", loop_log_likelihood)):
        leaf = seg.clone().requires_grad_(True)
        start = time.process_time()
        values[name] = fn(leaf, src_len, tgt_len)
        values[name].sum().backward()
        ms[name] = round((time.process_time() - start) * 1e3, 1)
    if not torch.allclose(values["batched"].detach(), values["loop"].detach(), atol=1e-9):
        raise RuntimeError("the batched segment DP and the loop disagree")
    return {"batched_ms": ms["batched"], "loop_ms": ms["loop"],
            "speedup": round(ms["loop"] / ms["batched"], 1)}


@torch.no_grad()
def calibrate_stop(model: nn.Module, vocab: Vocabulary, lines: list[str]) -> None:
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


def npmt_decoding(args) -> dict:
    """Greedy and beam-10 output tokens/s (CPU time) through translate's code path."""
    from phrasenmt.translate import SegmentSearch, translate_segments

    if args.npmt_checkpoint:
        model, src_vocab, tgt_vocab, _ = load_model(args.npmt_checkpoint)
        lines = read_lines(args.npmt_input)[: args.decode_sentences]
    else:
        model = harness.preset_model("npmt", args.preset, args.vocab).eval()
        words = [f"w{i}" for i in range(args.vocab - 4)]
        src_vocab = tgt_vocab = Vocabulary.build([" ".join(words)])
        g = torch.Generator().manual_seed(3)
        lines = [" ".join(words[int(i)] for i in torch.randint(0, len(words), (int(
            torch.randint(10, 21, (1,), generator=g)),), generator=g))
            for _ in range(args.decode_sentences)]
        calibrate_stop(model, src_vocab, lines[:16])

    def search(beam: int):
        settings = SegmentSearch(beam, model.cfg.lambda1, 0.0, None, 1.5, 10)
        return lambda part: sum(len(h.split()) for h in translate_segments(
            model, src_vocab, tgt_vocab, part, settings, 64)[0])

    speed = harness.interleaved({"greedy": search(1), "beam10": search(10)},
                                [lines[:8], lines], clock=time.process_time)
    return {f"{k}_tokens_per_s": v["per_s"] for k, v in speed.items()}


def npmt_memory(preset: str, vocab: int, B: int = 64, T: int = 50, L: int = 6) -> dict:
    """Peak resident MB of one batch's segment scores, DP and backward (this process)."""
    model = harness.preset_model("npmt", preset, vocab, max_segment_len=L).train()
    g = torch.Generator().manual_seed(0)
    rows = [torch.randint(4, vocab, (T,), generator=g).tolist() for _ in range(B)]
    batch = collate(rows, rows)

    def rss(field: str) -> float:
        status = Path("/proc/self/status").read_text().splitlines()
        return next(int(line.split()[1]) / 1024 for line in status if line.startswith(field))

    before = rss("VmRSS:")
    Path("/proc/self/clear_refs").write_text("5")  # reset the peak (VmHWM)
    model.loss(batch, 0.0)[0].backward()
    return {"peak_mb_over_resident": round(rss("VmHWM:") - before),
            "score_tensor_mb": round(B * (T + 1) * (T + 1) * (L + 1) * 4 / 2**20, 1)}


def npmt(args) -> dict:
    """NPMT against the Transformer of its size, the DP, decoding and memory."""
    model = harness.preset_model("npmt", args.preset, args.vocab)
    size = model.num_parameters()

    def transformer(d: int) -> nn.Module:  # 2+2 layers of width d, seed 0
        torch.manual_seed(0)
        return build_model("transformer", TransformerConfig(
            src_vocab_size=args.vocab, tgt_vocab_size=args.vocab, d_model=d,
            d_ff=4 * d, n_heads=4, encoder_layers=2, decoder_layers=2, dropout=0.1))

    base = transformer(min(range(16, 513, 16),
                           key=lambda d: abs(size - transformer(d).num_parameters())))
    npmt_update = harness.trainer_update(model, loss=lambda b: model.loss(b, 0.0)[0])
    speed = harness.interleaved(
        {"npmt": npmt_update, "transformer": harness.trainer_update(base)},
        harness.random_batches(args.steps + 1, args.sentences, args.vocab),
        clock=time.process_time)
    code = ("import json; from benchmarks.families import npmt_memory; import torch; "
            f"torch.set_num_threads({args.threads}); "
            f"print(json.dumps(npmt_memory({args.preset!r}, {args.vocab})))")
    memory = json.loads(subprocess.run([sys.executable, "-c", code], cwd=harness.REPO,
                                       capture_output=True, text=True, check=True
                                       ).stdout.splitlines()[-1])
    return {"params": {"npmt": size, "transformer": base.num_parameters()},
            "train_target_tokens_per_s_cpu_time": {k: v["per_s"] for k, v in speed.items()},
            "train_npmt_over_transformer": round(speed["npmt"]["per_s"]
                                                 / speed["transformer"]["per_s"], 3),
            "segment_dp_B64_T50_L6": segment_dp(), "decoding": npmt_decoding(args),
            "memory_B64_T50_L6": memory}


PARTS = {part.__name__: part for part in (transformer, phrase, continuous, npmt)}


def main(argv: Sequence[str]) -> int:
    """Run the chosen parts, writing the result file after each."""
    p = harness.parser("families", __doc__.split("\n")[0], steps=10, sentences=64,
                       vocab=4000, preset=("tiny", "preset of every model but continuous"))
    p.add_argument("--parts", nargs="+", choices=PARTS, default=list(PARTS))
    p.add_argument("--beam", type=positive_int, default=4)
    p.add_argument("--decode-sentences", type=positive_int, default=32)
    p.add_argument("--archs", nargs="+", choices=list(VARIANTS), default=list(VARIANTS),
                   help="phrase variants")
    p.add_argument("--output-vocab", type=positive_int, default=32000,
                   help="continuous: target words V")
    p.add_argument("--phrases", type=positive_int, default=8000,
                   help="continuous: PCoNMT's phrases P")
    p.add_argument("--npmt-checkpoint", type=Path, help="npmt: a trained NPMT to decode")
    p.add_argument("--npmt-input", type=Path, help="npmt: its word-level source")
    p.needs("--npmt-checkpoint", "--npmt-input")
    p.needs("--npmt-input", "--npmt-checkpoint")
    args = harness.parse(p, argv)
    if args.device == "cuda" and "npmt" in args.parts:
        p.error("--parts npmt: measured in CPU time and /proc memory, on --device cpu")
    results = harness.Results("families", args, argv)
    for part in args.parts:
        results.add(part, PARTS[part](args))
    return results.done()
