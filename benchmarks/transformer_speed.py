"""Training and beam-search throughput of our Transformer vs. torch.nn.Transformer.

Both models get identical dimensions, the same embeddings (scaled, sinusoidal),
the same output layer, loss and optimizer, and train on the same random batches;
updates alternate between the two so that machine load affects both alike.

    python benchmarks/transformer_speed.py [--presets tiny base] [--threads 1]
"""

from __future__ import annotations

import argparse
import time

import torch
from torch import Tensor, nn

from phrasenmt.decoding.search import beam_search
from phrasenmt.models import build_model
from phrasenmt.models.layers import Embeddings
from phrasenmt.models.registry import get_preset
from phrasenmt.models.transformer import TransformerConfig
from phrasenmt.nn.loss import sequence_loss
from phrasenmt.text.vocab import BOS, EOS, PAD
from phrasenmt.training.config import TrainConfig


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


def random_batches(n: int, tokens: int, vocab: int, seed: int
                   ) -> list[tuple[Tensor, Tensor, Tensor]]:
    """n batches of ~`tokens` target tokens, lengths 10-20, right-padded."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n):
        size = tokens // 16
        lens = torch.randint(10, 21, (size,), generator=g)
        ids = torch.randint(4, vocab, (size, 21), generator=g)
        keep = torch.arange(21)[None, :] < lens[:, None]
        src = torch.where(keep, ids, PAD)
        src[torch.arange(size), lens] = EOS
        tgt_out = src.clone()
        tgt_in = torch.cat([torch.full((size, 1), BOS), src[:, :-1]], dim=1)
        tgt_in = torch.where(tgt_in.eq(EOS), PAD, tgt_in)
        out.append((src, tgt_in, tgt_out))
    return out


def train_step(model: nn.Module, opt: torch.optim.Optimizer,
               batch: tuple[Tensor, Tensor, Tensor]) -> tuple[float, int]:
    """One update -> (seconds, target tokens)."""
    src, tgt_in, tgt_out = batch
    start = time.perf_counter()
    loss, _ = sequence_loss(model(src, tgt_in), tgt_out, 0.1)
    ntokens = int(tgt_out.ne(PAD).sum())
    (loss / ntokens).backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    return time.perf_counter() - start, ntokens


def compare_training(cfg: TransformerConfig, steps: int, tokens: int
                     ) -> dict[str, float]:
    """Target tokens/s of both models, updates interleaved."""
    torch.manual_seed(0)
    models = {"ours": build_model("transformer", cfg),
              "torch.nn.Transformer": ReferenceTransformer(cfg)}
    opts = {k: torch.optim.Adam(m.parameters(), 1e-4, betas=(0.9, 0.98), eps=1e-9)
            for k, m in models.items()}
    batches = random_batches(steps + 1, tokens, cfg.tgt_vocab_size, seed=1)
    totals = {k: [0.0, 0] for k in models}
    for i, batch in enumerate(batches):
        for name, model in models.items():
            seconds, ntok = train_step(model.train(), opts[name], batch)
            if i > 0:  # the first update warms up allocators and kernels
                totals[name][0] += seconds
                totals[name][1] += ntok
    return {k: ntok / sec for k, (sec, ntok) in totals.items()}


@torch.no_grad()
def beam_speed(cfg: TransformerConfig, sentences: int, beam: int) -> float:
    """Sentences/s of beam search (random weights, outputs <= src_len + 5)."""
    torch.manual_seed(0)
    model = build_model("transformer", cfg).eval()
    src = random_batches(1, sentences * 16, cfg.src_vocab_size, seed=2)[0][0]
    src = src[:sentences]
    beam_search(model, src[:2], beam=beam)  # warm-up
    start = time.perf_counter()
    beam_search(model, src, beam=beam, lenpen=0.6, max_len_a=1.0, max_len_b=5)
    return sentences / (time.perf_counter() - start)


def main() -> None:
    """Print a table of throughputs per preset."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--presets", nargs="+", default=["tiny", "base"])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--vocab", type=int, default=4000)
    p.add_argument("--steps", type=int, nargs="+", default=[20, 3],
                   help="timed updates per preset (after one warm-up update)")
    p.add_argument("--tokens", type=int, nargs="+", default=[2048, 1024],
                   help="target tokens per batch, per preset")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    print(f"threads={args.threads} vocab={args.vocab} torch={torch.__version__}")
    for i, preset in enumerate(args.presets):
        cfg, train = TransformerConfig(), TrainConfig()
        get_preset("transformer", preset)(cfg, train)
        cfg.src_vocab_size = cfg.tgt_vocab_size = args.vocab
        steps = args.steps[min(i, len(args.steps) - 1)]
        tokens = args.tokens[min(i, len(args.tokens) - 1)]
        speeds = compare_training(cfg, steps, tokens)
        ratio = speeds["ours"] / speeds["torch.nn.Transformer"]
        for name, speed in speeds.items():
            print(f"{preset:6s} train {name:22s} {speed:9.0f} target tokens/s")
        print(f"{preset:6s} train ours / reference     {ratio:9.2f}")
        print(f"{preset:6s} beam4 ours                 "
              f"{beam_speed(cfg, 32, 4):9.2f} sentences/s")


if __name__ == "__main__":
    main()
