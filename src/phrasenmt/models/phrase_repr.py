"""Phrase representations and their use in a layer (Xu et al. 2020, Eq. 2-8).

Phrases are contiguous source tokens sharing a phrase id (side input
`phrases`, -1 on padding and </s>). Pooling is done with segment (scatter)
operations in the token layout: the result equals padding every phrase to the
longest phrase in the batch and masking the padding, without building that
(B, P, L, C) tensor. Shapes: B batch, S source tokens, P phrases (the most in
any sentence of the batch), T target tokens, C d_model.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from phrasenmt.models.attention import Cache, CrossAttention


@dataclass
class Segments:
    """Where every source token goes when pooled into phrases."""

    index: Tensor  # (B*S,) flat bucket b*(P+1)+p; padding -> the spare bucket P
    valid: Tensor  # (B, S) True on tokens that belong to a phrase
    n_phrases: int  # P, the most phrases of any sentence in the batch
    counts: Tensor  # (B, P) tokens per phrase (0 for a padded phrase slot)

    @classmethod
    def build(cls, phrases: Tensor, n_phrases: int | None = None) -> Segments:
        """phrases (B, S) phrase ids, -1 = padding -> Segments.

        `n_phrases`: 1 + the largest id, counted on the host (a training batch's
        `side_sizes`); without it the ids are read back from their device once."""
        B = phrases.size(0)
        valid = phrases.ge(0)
        if n_phrases is None:
            n_phrases = int(phrases.max()) + 1 if phrases.numel() else 0
        P = max(n_phrases, 1)
        row = torch.arange(B, device=phrases.device)[:, None] * (P + 1)
        index = (row + torch.where(valid, phrases, P)).view(-1)  # (B*S,)
        counts = torch.zeros(B * (P + 1), device=phrases.device)
        counts.index_add_(0, index, valid.view(-1).float())
        return cls(index, valid, P, counts.view(B, P + 1)[:, :P])

    def phrase_mask(self) -> Tensor:
        """(B, 1, 1, P) True on real phrases, for attention over phrases."""
        return self.counts.gt(0)[:, None, None, :]

    def to_phrases(self, flat: Tensor, B: int) -> Tensor:
        """Bucket rows (B*(P+1), C) -> (B, P, C), dropping the spare bucket."""
        return flat.view(B, self.n_phrases + 1, -1)[:, : self.n_phrases]

    def segment_sum(self, values: Tensor) -> Tensor:
        """values (B, S, C) summed per phrase -> buckets (B*(P+1), C)."""
        B, _, C = values.shape
        out = values.new_zeros(B * (self.n_phrases + 1), C)
        return out.index_add(0, self.index, values.reshape(-1, C))

    def segment_max(self, values: Tensor) -> Tensor:
        """values (B, S, C) max-over-time per phrase -> buckets (B*(P+1), C)."""
        B, _, C = values.shape
        out = values.new_zeros(B * (self.n_phrases + 1), C)
        idx = self.index[:, None].expand(-1, C)
        return out.scatter_reduce(0, idx, values.reshape(-1, C), "amax",
                                  include_self=False)


class PhrasePooling(nn.Module):
    """R_phrase from token vectors: F_glance (Eq. 2), optionally attentive (Eq. 3-5)."""

    def __init__(self, d_model: int, glance: str, attentive: bool, hidden: int):
        super().__init__()
        if glance not in ("mean", "max"):
            raise ValueError(f"glance must be 'mean' or 'max', got {glance!r}")
        self.glance, self.attentive = glance, attentive
        if attentive:
            self.w1 = nn.Linear(2 * d_model, hidden)  # W1, b1 over [R_t | R_all]
            self.w2 = nn.Linear(hidden, 1)  # W2, b2 -> one score per token

    def glance_buckets(self, x: Tensor, seg: Segments) -> Tensor:
        """Eq. 2: element-wise mean or max-over-time -> buckets (B*(P+1), C)."""
        if self.glance == "max":
            return seg.segment_max(x)
        counts = F.pad(seg.counts, (0, 1)).view(-1, 1).clamp(min=1).to(x.dtype)
        return seg.segment_sum(x) / counts

    def token_weights(self, x: Tensor, glance: Tensor, seg: Segments) -> Tensor:
        """Eq. 3-4: softmax over each phrase's real tokens -> (B, S); padding 0."""
        C = x.size(-1)
        # W1 [R_t | R_all] = W1[:, :C] R_t + W1[:, C:] R_all; the glance half is
        # computed once per phrase and gathered back to its tokens.
        h_tok = F.linear(x, self.w1.weight[:, :C], self.w1.bias)  # (B, S, H)
        h_all = F.linear(glance, self.w1.weight[:, C:])  # (B*(P+1), H)
        h = h_tok + h_all[seg.index].view_as(h_tok)
        s = self.w2(torch.sigmoid(h)).squeeze(-1).float()  # (B, S) scores
        s = s.masked_fill(~seg.valid, float("-inf"))
        top = torch.full((seg.index.numel(),), float("-inf"), device=s.device)
        top = top.scatter_reduce(0, seg.index, s.view(-1).detach(), "amax")
        e = torch.exp(s.view(-1) - top[seg.index]).nan_to_num(0.0)  # exp(-inf) = 0
        denom = torch.zeros_like(top).index_add(0, seg.index, e)
        p = e / denom[seg.index].clamp(min=1e-30)
        return p.view_as(s).to(x.dtype)

    def forward(self, x: Tensor, seg: Segments) -> Tensor:
        """x (B, S, C) token vectors -> R_phrase (B, P, C)."""
        glance = self.glance_buckets(x, seg)  # (B*(P+1), C)
        if self.attentive:
            p = self.token_weights(x, glance, seg)  # (B, S)
            glance = seg.segment_sum(x * p[..., None])  # Eq. 5
        return seg.to_phrases(glance, x.size(0))


class AttentiveCombination(nn.Module):
    """Eq. 7-8: multi-head attention of x over phrases, then W4 σ(W3 [x|out] + b3) + b4.

    Eq. 7 in the paper's text reads "x as keys and R_phrase as queries and
    values", which cannot give one output per token; we follow Figure 2: x are
    the queries, the phrases the keys and values.
    """

    def __init__(self, d_model: int, n_heads: int, attention_dropout: float,
                 hidden: int):
        super().__init__()
        self.attn = CrossAttention(d_model, n_heads, attention_dropout)
        self.w3 = nn.Linear(2 * d_model, hidden)
        self.w4 = nn.Linear(hidden, d_model)

    def forward(self, x: Tensor, phrases: Tensor, mask: Tensor,
                cache: Cache | None = None) -> Tensor:
        """x (N, T, C) over phrases (n, P, C), mask (n, 1, 1, P) -> (N, T, C);
        N = n*g rows, g per sentence (beam search's hypotheses)."""
        k, v = self.attn.cached_kv(phrases, cache, "phr")  # (n, H, P, Dh) each
        out = self.attn.attend_memory(x, k, v, mask)  # Eq. 7, (N, T, C)
        return self.w4(torch.sigmoid(self.w3(torch.cat([x, out], dim=-1))))  # Eq. 8


class TransparentAttention(nn.Module):
    """Eq. 6: decoder layer j reads Σ_i softmax(w_j)_i R^i over d+1 encoder levels."""

    def __init__(self, n_levels: int, n_decoder_layers: int):
        super().__init__()
        self.weights = nn.Parameter(torch.zeros(n_decoder_layers, n_levels))

    def probabilities(self) -> Tensor:
        """(J, d+1) softmax-normalised weights, one row per decoder layer."""
        return torch.softmax(self.weights, dim=-1)

    def forward(self, levels: list[Tensor]) -> Tensor:
        """d+1 tensors (B, P, C) -> per decoder layer (B, J, P, C)."""
        stacked = torch.stack(levels, dim=1)  # (B, d+1, P, C)
        w = self.probabilities().to(stacked.dtype)
        return torch.einsum("jd,bdpc->bjpc", w, stacked)
