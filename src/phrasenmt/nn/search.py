"""Search primitives below the models: a finished hypothesis, GNMT's length
penalty, per-sentence length limits and the mask of one search step.

`decoding.search` builds greedy and beam search from them; a model with a search
of its own (the continuous-output models' nearest-neighbour search) reads them
here, so that models never import the decoding layer above them.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch import Tensor, nn

from phrasenmt.text.vocab import BOS, EOS, PAD


@dataclass
class Hypothesis:
    """A finished translation."""

    tokens: list[int]  # generated target ids, </s> excluded
    score: float  # sum of token log-probs, </s> included
    normalized: float  # score divided by the length penalty


def length_penalty(length: int, alpha: float) -> float:
    """GNMT length penalty ((5 + length) / 6) ** alpha."""
    return ((5.0 + length) / 6.0) ** alpha


def max_lengths(src: Tensor, a: float, b: float, model: nn.Module | None = None
                ) -> Tensor:
    """Per-sentence output limits a * src_len + b (src has a trailing </s>).

    Capped so that <s> + output fit the model's position table, if it has one.
    """
    src_len = src.ne(PAD).sum(dim=1) - 1  # (B,)
    limits = (a * src_len.float() + b).floor().long().clamp(min=1)
    cap = getattr(getattr(model, "cfg", None), "max_positions", None)
    return limits if cap is None else limits.clamp(max=cap - 1)


def mask_log_probs(log_probs: Tensor, limits: Tensor, step: int,
                   min_len: int = 0) -> Tensor:
    """Forbid <pad>/<s>; rows whose length limit is reached may only emit </s>;
    before step min_len + 1 no row may emit </s> (fairseq's --min-len: at
    least min_len tokens), except where the length limit comes first."""
    log_probs = log_probs.clone()
    log_probs[:, PAD] = log_probs[:, BOS] = float("-inf")
    at_limit = limits <= step  # (N,)
    if at_limit.any():
        eos = log_probs[:, EOS].clone()
        log_probs[at_limit] = float("-inf")
        log_probs[at_limit, EOS] = eos[at_limit]
    if step <= min_len:
        log_probs[~at_limit, EOS] = float("-inf")
    return log_probs
