"""Useful FLOPs: what a Transformer update computes on real (non-padding) tokens.

The FLOP counter (tests/gpu/timing.py) counts the matrix products as run, padding
included, so a batch with much padding looks busier than it is. Here every
sentence counts at its own length, </s> or <s> included, per side:

- encoder, per layer and source token: the Q, K, V, O projections (4 d^2
  multiply-adds) and the feed-forward block (2 d d_ff); self-attention, per
  pair of real tokens of a sentence: 2 d (scores Q K^T and the sum over V);
- decoder, per layer and target token: self-attention and cross-attention
  projections of the target (4 d^2 + 2 d^2), the feed-forward block (2 d d_ff);
  the cross-attention K, V of every source token (2 d^2); causal
  self-attention over the L(L+1)/2 pairs a sentence of L tokens has; cross
  attention over its L_t x L_s pairs;
- the output projection: d V per target token.

A multiply-add is 2 FLOPs; a training update is 3 forward passes (forward,
and backward's two products per forward product). Embedding look-ups, layer
norms, softmax and the optimizer are not counted, as in the FLOP counter.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from phrasenmt.nn.batching import bucket_width


def transformer_update_flops(cfg: object, src_lens: Sequence[int],
                             tgt_lens: Sequence[int]) -> float:
    """Training FLOPs of one update over sentences of these real lengths
    (specials included) for a TransformerConfig-like `cfg`."""
    s = np.asarray(src_lens, np.float64)
    t = np.asarray(tgt_lens, np.float64)
    d, ff = float(cfg.d_model), float(cfg.d_ff)
    encoder = cfg.encoder_layers * (s.sum() * (4 * d * d + 2 * d * ff)
                                    + 2 * d * (s * s).sum())
    decoder = cfg.decoder_layers * (t.sum() * (6 * d * d + 2 * d * ff)
                                    + s.sum() * 2 * d * d
                                    + 2 * d * (t * (t + 1) / 2).sum()
                                    + 2 * d * (t * s).sum())
    output = t.sum() * d * cfg.tgt_vocab_size
    return 3 * 2 * float(encoder + decoder + output)


def padding_fraction(real: Sequence[int], padded: Sequence[int]) -> float:
    """Share of the batch cells that hold padding (both sides together)."""
    return 1.0 - float(np.sum(real)) / max(float(np.sum(padded)), 1.0)


def update_figures(cfg: object | None, batches: Sequence[tuple[Sequence[int],
                                                               Sequence[int]]],
                   buckets: Sequence[int] = ()) -> tuple[float | None, float]:
    """One update's useful FLOPs (None without a Transformer config) and its
    padding fraction, from each batch's (source, target) lengths without
    specials (`buckets`: the widths the batches were padded to, length_buckets)."""
    src = [np.asarray(s) + 1 for s, _ in batches]  # + </s>
    tgt = [np.asarray(t) + 1 for _, t in batches]  # + <s> (input) / </s> (output)
    real = [a.sum() + b.sum() for a, b in zip(src, tgt, strict=True)]
    padded = [len(a) * (bucket_width(int(a.max()), buckets)
                        + bucket_width(int(b.max()), buckets))
              for a, b in zip(src, tgt, strict=True)]
    flops = None if cfg is None else sum(
        transformer_update_flops(cfg, a, b) for a, b in zip(src, tgt, strict=True))
    return flops, padding_fraction(real, padded)
