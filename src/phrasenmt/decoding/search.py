"""Greedy and batched beam search over any model with the registry's decode API.

Models provide `encode(src)`, `decode_step(state, prefix, cache)` -> log-probs and
`reorder_state(state, cache, order)`. Scores are sums of token log-probs with
</s> included, so with the length penalty off a hypothesis' score equals its
forced-decoding log-probability. Length penalty: GNMT's ((5 + n) / 6) ** alpha
(Wu et al. 2016, used by Vaswani et al. with alpha 0.6), n = tokens incl. </s>;
alpha 0 turns it off.

A model with `sentence_state` (see `models.base`) keeps its encoder state and
the keys/values computed from it once per sentence: beam search then never
copies them per hypothesis, and selects them only when sentences finish.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from phrasenmt.nn.search import Hypothesis, length_penalty, mask_log_probs, max_lengths
from phrasenmt.text.vocab import BOS, EOS, PAD


@torch.no_grad()
def greedy_search(model: nn.Module, src: Tensor, max_len_a: float = 1.5,
                  max_len_b: float = 10, side: dict[str, Tensor] | None = None,
                  min_len: int = 0) -> list[Hypothesis]:
    """Pick the most probable token at every step; src (B, S) -> B hypotheses."""
    B = src.size(0)
    state, cache = model.encode(src, **(side or {})), {}
    limits = max_lengths(src, max_len_a, max_len_b, model)  # (B,)
    tokens = torch.full((B, 1), BOS, dtype=torch.long, device=src.device)
    scores = torch.zeros(B, device=src.device)
    done = torch.zeros(B, dtype=torch.bool, device=src.device)
    for step in range(1, int(limits.max()) + 1):
        log_probs = mask_log_probs(model.decode_step(state, tokens, cache), limits,
                                   step, min_len)
        best_lp, best = log_probs.max(dim=-1)  # (B,), (B,)
        scores += torch.where(done, 0.0, best_lp)
        tokens = torch.cat([tokens, torch.where(done, PAD, best)[:, None]], dim=1)
        done |= best.eq(EOS)
        if done.all():
            break
    return [_hypothesis(row[1:].tolist(), float(s), 0.0)
            for row, s in zip(tokens, scores, strict=True)]


def _hypothesis(ids: list[int], score: float, alpha: float) -> Hypothesis:
    """Cut ids at </s>; length for the penalty counts </s>."""
    ids = [i for i in ids if i != PAD]
    if EOS in ids:
        ids = ids[: ids.index(EOS)]
    return Hypothesis(ids, score, score / length_penalty(len(ids) + 1, alpha))


@dataclass
class _Beams:
    """Search state for the n sentences still decoding, k beams each."""

    tokens: Tensor  # (n*k, t) prefixes starting with <s>
    scores: Tensor  # (n*k,) cumulative log-probs
    limits: Tensor  # (n*k,) output length limits
    alive: Tensor  # (n,) original sentence index of each row group


def _top_candidates(beams: _Beams, log_probs: Tensor,
                    k: int) -> tuple[Tensor, Tensor, Tensor]:
    """The 2k best extensions per sentence -> (scores, beam ids, tokens), (n, 2k)."""
    n, V = beams.alive.numel(), log_probs.size(-1)
    total = (beams.scores[:, None] + log_probs).view(n, k * V)  # (n, k*V)
    cand_scores, flat = total.topk(min(2 * k, k * V), dim=1)  # (n, 2k)
    return cand_scores, flat // V, flat % V


def _finalize(beams: _Beams, cand: tuple[Tensor, Tensor, Tensor], k: int,
              alpha: float, finished: list[list[Hypothesis]]) -> None:
    """Turn </s> candidates among each sentence's k best into hypotheses."""
    scores, beam_ids, tokens = cand
    is_final = tokens[:, :k].eq(EOS) & scores[:, :k].isfinite()  # (n, k)
    for row, pos in is_final.nonzero().tolist():
        sentence = finished[int(beams.alive[row])]
        if len(sentence) < k:
            prefix = beams.tokens[row * k + int(beam_ids[row, pos]), 1:].tolist()
            sentence.append(_hypothesis(prefix, float(scores[row, pos]), alpha))


def _advance(beams: _Beams, cand: tuple[Tensor, Tensor, Tensor], k: int,
             keep: Tensor) -> tuple[_Beams, Tensor]:
    """Continue the k best non-</s> candidates of the sentences in `keep`.

    Returns the new beams and the row order to reorder model state/cache by.
    """
    scores, beam_ids, tokens = cand
    width = scores.size(1)
    rank = tokens.eq(EOS).long() * width + torch.arange(width, device=scores.device)
    pick = rank.topk(k, dim=1, largest=False).indices[keep]  # (m, k)
    rows = keep[:, None] * k + beam_ids[keep].gather(1, pick)  # (m, k)
    order = rows.view(-1)  # (m*k,)
    new_tokens = tokens[keep].gather(1, pick).view(-1, 1)  # (m*k, 1)
    return _Beams(tokens=torch.cat([beams.tokens[order], new_tokens], dim=1),
                  scores=scores[keep].gather(1, pick).view(-1),
                  limits=beams.limits[order], alive=beams.alive[keep]), order


@torch.no_grad()
def beam_search(model: nn.Module, src: Tensor, beam: int = 4, lenpen: float = 0.6,
                max_len_a: float = 1.5, max_len_b: float = 10,
                side: dict[str, Tensor] | None = None,
                min_len: int = 0) -> list[list[Hypothesis]]:
    """src (B, S) -> per sentence up to `beam` hypotheses, best first."""
    B, k, device = src.size(0), beam, src.device
    state, cache = model.encode(src, **(side or {})), {}
    if not getattr(model, "sentence_state", False):  # one state row per beam
        state, cache = model.reorder_state(
            state, cache, torch.arange(B, device=device).repeat_interleave(k))
    start_scores = torch.full((B, k), float("-inf"), device=device)
    start_scores[:, 0] = 0.0  # all beams start equal: keep one to avoid duplicates
    limits = max_lengths(src, max_len_a, max_len_b, model)  # (B,)
    beams = _Beams(tokens=torch.full((B * k, 1), BOS, dtype=torch.long, device=device),
                   scores=start_scores.view(-1), limits=limits.repeat_interleave(k),
                   alive=torch.arange(B, device=device))
    finished: list[list[Hypothesis]] = [[] for _ in range(B)]
    for step in range(1, int(beams.limits.max()) + 1):
        log_probs = model.decode_step(state, beams.tokens, cache)  # (n*k, V)
        log_probs = mask_log_probs(log_probs, beams.limits, step, min_len)
        cand = _top_candidates(beams, log_probs, k)
        _finalize(beams, cand, k, lenpen, finished)
        n_done = torch.tensor([len(finished[i]) for i in beams.alive.tolist()],
                              device=device)
        at_limit = beams.limits.view(-1, k)[:, 0] <= step
        keep = (n_done.lt(k) & ~at_limit).nonzero().squeeze(1)  # (m,)
        if keep.numel() == 0:
            break
        beams, order = _advance(beams, cand, k, keep)
        if getattr(model, "sentence_state", False):
            state, cache = model.reorder_state(state, cache, order, keep)
        else:
            state, cache = model.reorder_state(state, cache, order)
    return [sorted(h, key=lambda h: -h.normalized) for h in finished]
