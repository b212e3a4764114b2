"""Transformer building blocks: embeddings, positions, feed-forward, layers."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import Tensor, nn

from phrasenmt.models.attention import Cache, CrossAttention, SelfAttention
from phrasenmt.nn.dropout import Dropout


def sinusoidal_table(n_positions: int, d_model: int) -> Tensor:
    """Vaswani et al.'s fixed positions: sin on even, cos on odd dims -> (P, C)."""
    pos = torch.arange(n_positions, dtype=torch.float32)[:, None]  # (P, 1)
    div = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32)
                    * (-math.log(10000.0) / d_model))  # (C/2,)
    table = torch.zeros(n_positions, d_model)
    table[:, 0::2] = torch.sin(pos * div)
    table[:, 1::2] = torch.cos(pos * div[: d_model // 2])
    return table


class Embeddings(nn.Module):
    """Token embeddings scaled by sqrt(d_model) plus sinusoidal positions."""

    def __init__(self, vocab_size: int, d_model: int, max_positions: int,
                 dropout: float, padding_idx: int = 0):
        super().__init__()
        self.tokens = nn.Embedding(vocab_size, d_model, padding_idx=padding_idx)
        nn.init.normal_(self.tokens.weight, mean=0.0, std=d_model**-0.5)
        nn.init.zeros_(self.tokens.weight[padding_idx])
        self.register_buffer("positions", sinusoidal_table(max_positions, d_model),
                             persistent=False)
        self.scale = math.sqrt(d_model)
        self.dropout = Dropout(dropout)

    def forward(self, ids: Tensor, offset: int = 0) -> Tensor:
        """ids (B, T) -> (B, T, C); `offset` is the position of ids[:, 0]."""
        T = ids.size(1)
        if offset + T > self.positions.size(0):
            raise ValueError(f"sequence of {offset + T} tokens exceeds max_positions "
                             f"{self.positions.size(0)}")
        x = self.tokens(ids) * self.scale + self.positions[offset: offset + T]
        return self.dropout(x)


class FeedForward(nn.Module):
    """Position-wise ReLU feed-forward network: C -> F -> C."""

    def __init__(self, d_model: int, d_ff: int, dropout: float):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(d_model, d_ff), nn.Linear(d_ff, d_model)
        self.dropout = Dropout(dropout)

    def forward(self, x: Tensor) -> Tensor:
        """(B, T, C) -> (B, T, C)."""
        return self.fc2(self.dropout(torch.relu(self.fc1(x))))


class _Residual(nn.Module):
    """Residual wrapper: post-norm LN(x + f(x)) or pre-norm x + f(LN(x))."""

    def __init__(self, d_model: int, dropout: float, pre_norm: bool):
        super().__init__()
        self.norm, self.dropout, self.pre_norm = (
            nn.LayerNorm(d_model), Dropout(dropout), pre_norm)

    def forward(self, x: Tensor, fn: Callable[[Tensor], Tensor]) -> Tensor:
        """Apply sublayer `fn` with dropout, residual and layer norm."""
        if self.pre_norm:
            return x + self.dropout(fn(self.norm(x)))
        return self.norm(x + self.dropout(fn(x)))


class EncoderLayer(nn.Module):
    """Self-attention then feed-forward, each in a residual block."""

    def __init__(self, d_model: int, n_heads: int, d_ff: int, dropout: float,
                 attention_dropout: float, activation_dropout: float,
                 pre_norm: bool):
        super().__init__()
        self.self_attn = SelfAttention(d_model, n_heads, attention_dropout)
        self.ff = FeedForward(d_model, d_ff, activation_dropout)
        self.res1 = _Residual(d_model, dropout, pre_norm)
        self.res2 = _Residual(d_model, dropout, pre_norm)

    def forward(self, x: Tensor, mask: Tensor | None) -> Tensor:
        """x (B, S, C), mask (B, 1, 1, S) True where attention is allowed."""
        x = self.res1(x, lambda h: self.self_attn(h, mask))
        return self.res2(x, self.ff)


class DecoderLayer(nn.Module):
    """Causal self-attention, cross-attention, feed-forward (residual blocks)."""

    def __init__(self, d_model: int, n_heads: int, d_ff: int, dropout: float,
                 attention_dropout: float, activation_dropout: float,
                 pre_norm: bool):
        super().__init__()
        self.self_attn = SelfAttention(d_model, n_heads, attention_dropout)
        self.cross_attn = CrossAttention(d_model, n_heads, attention_dropout)
        self.ff = FeedForward(d_model, d_ff, activation_dropout)
        self.res1 = _Residual(d_model, dropout, pre_norm)
        self.res2 = _Residual(d_model, dropout, pre_norm)
        self.res3 = _Residual(d_model, dropout, pre_norm)

    def forward(self, x: Tensor, memory: Tensor, mem_mask: Tensor | None,
                cache: Cache | None = None) -> Tensor:
        """x (B, T, C) over memory (B, S, C) -> (B, T, C); cache for decoding."""
        x = self.res1(x, lambda h: self.self_attn(h, causal=True, cache=cache))
        x = self.res2(x, lambda h: self.cross_attn(h, memory, mem_mask, cache))
        return self.res3(x, self.ff)
