"""Multi-head attention (Vaswani et al. 2017) on top of fused SDPA kernels.

Self-attention uses one fused QKV projection; cross-attention projects the
queries alone and the memory with one fused KV projection, so the memory's keys
and values can be computed once and cached for the whole decoding run.

In beam search the k hypotheses of a sentence share its memory: cross-attention
takes queries of N = n*g rows (g consecutive rows per sentence) over a memory of
n rows, so the memory's keys and values are computed and kept once per sentence
rather than once per hypothesis. Cache entries named in `SENTENCE_KEYS` hold
one row per sentence; the others (self-attention's) one row per hypothesis.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

Cache = dict[str, Tensor]
SENTENCE_KEYS = frozenset({"mem_k", "mem_v", "phr_k", "phr_v"})


class _Attention(nn.Module):
    """Shared head splitting/merging and the attention call itself."""

    def __init__(self, d_model: int, n_heads: int, dropout: float):
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"d_model {d_model} not divisible by {n_heads} heads")
        self.n_heads, self.d_head, self.dropout = n_heads, d_model // n_heads, dropout
        self.out_proj = nn.Linear(d_model, d_model)

    def split_heads(self, x: Tensor) -> Tensor:
        """(B, T, C) -> (B, H, T, C/H)."""
        B, T, _ = x.shape
        return x.view(B, T, self.n_heads, self.d_head).transpose(1, 2)

    def attend(self, q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None = None,
               causal: bool = False) -> Tensor:
        """softmax(QK^T/sqrt(d))V over heads, then the output projection."""
        p = self.dropout if self.training else 0.0
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p,
                                           is_causal=causal)  # (B, H, Tq, Dh)
        B, H, T, Dh = y.shape
        y = y.transpose(1, 2).reshape(B, T, H * Dh)  # (B, Tq, C)
        return self.out_proj(y)


class SelfAttention(_Attention):
    """Self-attention with a fused QKV projection and optional incremental cache."""

    def __init__(self, d_model: int, n_heads: int, dropout: float):
        super().__init__(d_model, n_heads, dropout)
        self.qkv_proj = nn.Linear(d_model, 3 * d_model)

    def forward(self, x: Tensor, mask: Tensor | None = None, causal: bool = False,
                cache: Cache | None = None) -> Tensor:
        """x (B, T, C) -> (B, T, C); with `cache`, x holds only the newest step."""
        q, k, v = self.qkv_proj(x).chunk(3, dim=-1)  # 3 x (B, T, C)
        q, k, v = self.split_heads(q), self.split_heads(k), self.split_heads(v)
        if cache is not None:
            if "k" in cache:  # append this step's keys/values to earlier ones
                k = torch.cat([cache["k"], k], dim=2)  # (B, H, t, Dh)
                v = torch.cat([cache["v"], v], dim=2)
            cache["k"], cache["v"] = k, v
            causal = False  # the newest query may see every cached position
        return self.attend(q, k, v, mask, causal)


class CrossAttention(_Attention):
    """Attention of decoder states over encoder memory (fused KV projection)."""

    def __init__(self, d_model: int, n_heads: int, dropout: float):
        super().__init__(d_model, n_heads, dropout)
        self.q_proj = nn.Linear(d_model, d_model)
        self.kv_proj = nn.Linear(d_model, 2 * d_model)

    def memory_kv(self, memory: Tensor) -> tuple[Tensor, Tensor]:
        """Encoder memory (B, S, C) -> keys, values, each (B, H, S, Dh)."""
        k, v = self.kv_proj(memory).chunk(2, dim=-1)
        return self.split_heads(k), self.split_heads(v)

    def cached_kv(self, memory: Tensor, cache: Cache | None,
                  name: str) -> tuple[Tensor, Tensor]:
        """memory_kv, computed once per decoding run under cache[name + "_k"/"_v"]."""
        if cache is not None and f"{name}_k" in cache:
            return cache[f"{name}_k"], cache[f"{name}_v"]
        k, v = self.memory_kv(memory)
        if cache is not None:
            cache[f"{name}_k"], cache[f"{name}_v"] = k, v
        return k, v

    def attend_memory(self, x: Tensor, k: Tensor, v: Tensor,
                      mask: Tensor | None) -> Tensor:
        """x (N, T, C) over keys/values (n, H, S, Dh) -> (N, T, C), N = n*g.

        Row r of x belongs to memory row r // g: the g query rows of a sentence
        become one sequence of g*T queries (queries do not attend to each other).
        """
        N, T, C = x.shape
        n = k.size(0)
        if N % n:
            raise ValueError(f"{N} query rows cannot share a memory of {n} rows")
        q = self.split_heads(self.q_proj(x).view(n, N // n * T, C))  # (n,H,gT,Dh)
        return self.attend(q, k, v, mask).view(N, T, C)

    def forward(self, x: Tensor, memory: Tensor, mask: Tensor | None,
                cache: Cache | None = None) -> Tensor:
        """x (N, T, C) attends over memory (n, S, C) -> (N, T, C), N = n*g."""
        k, v = self.cached_kv(memory, cache, "mem")
        return self.attend_memory(x, k, v, mask)
