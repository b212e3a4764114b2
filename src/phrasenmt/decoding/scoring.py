"""Forced decoding: the log-probability a model gives a given target."""

from __future__ import annotations

import torch
from torch import Tensor, nn

from phrasenmt.precision import full_precision
from phrasenmt.text.vocab import PAD


@torch.no_grad()
def forced_log_probs(model: nn.Module, src: Tensor, tgt_in: Tensor,
                     tgt_out: Tensor, side: dict[str, Tensor] | None = None) -> Tensor:
    """Sum of target token log-probs (</s> included) per sentence -> (B,)."""
    logits = model(src, tgt_in, **(side or {}))  # (B, T, V)
    return target_log_probs(logits, tgt_out)


@torch.no_grad()
def forced_token_log_probs(model: nn.Module, src: Tensor, tgt_in: Tensor,
                           tgt_out: Tensor, side: dict[str, Tensor] | None = None
                           ) -> Tensor:
    """log p(y_t | y_<t, x) of every target token (</s> included) -> (B, T),
    0.0 at padding."""
    return token_log_probs(model(src, tgt_in, **(side or {})), tgt_out)


def target_log_probs(logits: Tensor, tgt_out: Tensor) -> Tensor:
    """Logits (B, T, V), targets (B, T) -> summed target log-probs (B,), in fp32."""
    return token_log_probs(logits, tgt_out).sum(dim=1)


@full_precision
def token_log_probs(logits: Tensor, tgt_out: Tensor) -> Tensor:
    """Logits (B, T, V), targets (B, T) -> target log-probs (B, T), in fp32,
    0.0 at padding."""
    log_probs = torch.log_softmax(logits, dim=-1)
    token_lp = log_probs.gather(-1, tgt_out.unsqueeze(-1)).squeeze(-1)  # (B, T)
    return torch.where(tgt_out.ne(PAD), token_lp, 0.0)
