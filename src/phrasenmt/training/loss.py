"""Label-smoothed cross entropy: the math is a free function (fairseq style).

Both functions run outside autocast on float32 (or wider) inputs
(`precision.full_precision`): under bf16 autocast the logits may come in bf16,
the log-softmax, its log-sum-exp and the sums over tokens never do.
"""

from __future__ import annotations

import torch
from torch import Tensor

from phrasenmt.precision import full_precision
from phrasenmt.text.vocab import PAD


@full_precision
def label_smoothed_nll_loss(log_probs: Tensor, target: Tensor, epsilon: float,
                            ignore_index: int = PAD) -> tuple[Tensor, Tensor]:
    """Summed (label-smoothed loss, NLL) over non-pad targets.

    log_probs (N, V) float, target (N,). As in fairseq, the smoothing mass
    epsilon is spread over the V - 1 wrong classes.
    """
    keep = target.ne(ignore_index)  # (N,)
    nll = -log_probs.gather(-1, target.unsqueeze(-1)).squeeze(-1)  # (N,)
    smooth = -log_probs.sum(dim=-1)  # (N,)
    nll = torch.where(keep, nll, 0.0).sum()
    smooth = torch.where(keep, smooth, 0.0).sum()
    eps_i = epsilon / (log_probs.size(-1) - 1)
    loss = (1.0 - epsilon - eps_i) * nll + eps_i * smooth
    return loss, nll


@full_precision
def sequence_loss(logits: Tensor, target: Tensor,
                  epsilon: float) -> tuple[Tensor, Tensor]:
    """Logits (B, T, V) and targets (B, T) -> summed (smoothed loss, NLL)."""
    log_probs = torch.log_softmax(logits.float(), dim=-1)
    return label_smoothed_nll_loss(log_probs.view(-1, log_probs.size(-1)),
                                   target.reshape(-1), epsilon)
