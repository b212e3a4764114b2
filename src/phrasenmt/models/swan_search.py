"""SWAN decoding: greedy segments and beam search with Eq. 3.

Greedy: every position emits its step-wise most likely segment (at most L
tokens, then $), all positions of all sentences in one batch; positions whose
segment has ended drop out of the batch.

Beam search ranks hypotheses by Eq. 3,

    Q(y) = log p(y|x) + λ1 · |y| + λ2 · log p_LM(y),

where log p(y|x) sums over the segmentations the search has found: two
hypotheses with the same words are one output, merged by log-sum-exp of their
log p(y|x) (the λ terms are the same for both). Segments are independent given
x_t, so each position's candidate segments are computed once per sentence, by
a beam of the same width K over the segment decoder: the candidates are the
empty segment and the K best non-empty segments the beam finishes (K + 1; a
partial segment no better than the K-th finished one stops early, as it can
only lose probability). Every hypothesis is extended by every
candidate, identical word sequences are merged, and the K best by Q go on.
With K at least the number of segments (tiny vocabularies, tests) the search
is exhaustive and Q equals the DP's log p(y|x) (λ1 = λ2 = 0). The LM score of
a hypothesis counts </s> only at the end. A merged hypothesis shows the
segmentation of its most probable path.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor

from phrasenmt.models.swan import NEG_INF, SegmentDecoder, select_hidden
from phrasenmt.text.vocab import BOS, EOS, PAD

Segment = tuple[int, ...]


@dataclass
class SegmentHypothesis:
    """A finished translation with one segmentation (one segment per position)."""

    tokens: list[int]  # target ids, no </s>
    segments: list[list[int]]  # per source position (</s> included) its tokens
    score: float  # Eq. 3 (greedy: the sum of the chosen tokens' log-probs)
    log_prob: float  # log p(y|x) over the segmentations found (greedy: this path)


def _rows(src_len: Tensor, P: int) -> Tensor:
    """(b, t) of every real position (N, 2)."""
    at = torch.arange(P, device=src_len.device)[None, :] < src_len[:, None]
    return at.nonzero()


@torch.no_grad()
def greedy_segments(decoder: SegmentDecoder, x: Tensor, src_len: Tensor,
                    max_len: int) -> list[SegmentHypothesis]:
    """x (B, P, D) -> per sentence the concatenation of per-position argmax segments."""
    bt = _rows(src_len, x.size(1))
    N, dev = bt.size(0), x.device
    hidden = decoder.initial_hidden(x[bt[:, 0], bt[:, 1]])
    alive = torch.arange(N, device=dev)
    tokens = torch.full((N,), BOS, dtype=torch.long, device=dev)
    chosen = torch.full((N, max_len), PAD, dtype=torch.long, device=dev)
    scores = torch.zeros(N, device=dev)
    for k in range(max_len + 1):
        out, hidden = decoder.run(tokens[:, None], hidden)
        log_probs = decoder.log_probs(out[:, 0])  # (n, V)
        log_probs[:, PAD] = log_probs[:, BOS] = NEG_INF
        if k == max_len:  # the L-th token must be followed by $
            scores[alive] += log_probs[:, EOS]
            break
        best_lp, best = log_probs.max(dim=-1)
        scores[alive] += best_lp
        go = best.ne(EOS)
        chosen[alive[go], k] = best[go]
        alive, tokens, hidden = alive[go], best[go], select_hidden(hidden, go)
        if alive.numel() == 0:
            break
    segments = [[i for i in row if i != PAD] for row in chosen.tolist()]
    return _assemble(bt, segments, scores.tolist(), src_len.size(0))


def _assemble(bt: Tensor, segments: list[list[int]], scores: list[float], B: int
              ) -> list[SegmentHypothesis]:
    """Per-position results in (b, t) order -> one hypothesis per sentence."""
    out = [SegmentHypothesis([], [], 0.0, 0.0) for _ in range(B)]
    for (b, _), seg, score in zip(bt.tolist(), segments, scores, strict=True):
        out[b].segments.append(seg)
        out[b].tokens += seg
        out[b].score += score
        out[b].log_prob += score
    return out


# ---------------------------------------------------------------------------
# Per-position candidate segments: a batched beam over the segment decoder.


@torch.no_grad()
def segment_candidates(decoder: SegmentDecoder, x: Tensor, src_len: Tensor,
                       max_len: int, width: int) -> list[list[list[tuple]]]:
    """Per sentence, per position: [(segment, log p(segment $ | x_t)), ...]."""
    bt = _rows(src_len, x.size(1))
    N, K, L, dev = bt.size(0), width, max_len, x.device
    out, hidden = decoder.run(torch.full((N, 1), BOS, dtype=torch.long, device=dev),
                              decoder.initial_hidden(x[bt[:, 0], bt[:, 1]]))
    log_probs = decoder.log_probs(out[:, 0])  # (N, V)
    empty = log_probs[:, EOS].tolist()  # the empty segment, always a candidate
    best = _Finished(log_probs.new_full((N, K), NEG_INF),
                     torch.full((N, K, L), PAD, dtype=torch.long, device=dev))
    rows = torch.arange(N, device=dev)  # positions whose beam still runs
    part_scores = log_probs.new_zeros(N, 1)  # (n, k) partial segments' log-probs
    part_tokens = torch.zeros((N, 1, 0), dtype=torch.long, device=dev)
    for k in range(1, L + 1):
        ext = _extendable(log_probs).view(rows.numel(), part_scores.size(1), -1)
        total = (part_scores[:, :, None] + ext).view(rows.numel(), -1)
        part_scores, flat = total.topk(min(K, total.size(1)), dim=1)  # (n, K)
        origin, token = flat // ext.size(2), flat % ext.size(2)
        # A partial segment no better than the K-th finished one cannot enter.
        part_scores[part_scores <= best.scores[rows, -1:]] = NEG_INF
        part_tokens = torch.cat([part_tokens.gather(1, origin[..., None].expand(
            -1, -1, k - 1)), token[..., None]], dim=2)  # (n, K, k)
        go = part_scores.amax(dim=1) > NEG_INF  # (n,)
        parent = (torch.arange(rows.numel(), device=dev)[:, None] * ext.size(1)
                  + origin)[go].view(-1)
        rows, part_scores, part_tokens = rows[go], part_scores[go], part_tokens[go]
        if rows.numel() == 0:
            break
        out, hidden = decoder.run(token[go].view(-1, 1), select_hidden(hidden, parent))
        log_probs = decoder.log_probs(out[:, 0])  # (n·K, V)
        best.add(rows, part_scores + log_probs[:, EOS].view(rows.numel(), -1),
                 part_tokens)
    return best.candidates(bt, empty, src_len.size(0))


@dataclass
class _Finished:
    """The K best non-empty finished segments per position, best first."""

    scores: Tensor  # (N, K) log p(segment $ | x_t), −inf = none
    tokens: Tensor  # (N, K, L) their tokens, <pad>-filled

    def add(self, rows: Tensor, scores: Tensor, tokens: Tensor) -> None:
        """Merge new segments (n, K), tokens (n, K, k) of positions `rows`."""
        L = self.tokens.size(2)
        tokens = F.pad(tokens, (0, L - tokens.size(2)), value=PAD)
        all_scores = torch.cat([self.scores[rows], scores], dim=1)  # (n, 2K)
        top, pick = all_scores.topk(self.scores.size(1), dim=1)
        all_tokens = torch.cat([self.tokens[rows], tokens], dim=1)  # (n, 2K, L)
        self.scores[rows] = top
        self.tokens[rows] = all_tokens.gather(1, pick[..., None].expand(-1, -1, L))

    def candidates(self, bt: Tensor, empty: list[float], B: int
                   ) -> list[list[list[tuple]]]:
        """Per sentence, per position: the empty segment and the finished ones."""
        out: list[list[list[tuple]]] = [[] for _ in range(B)]
        scores, tokens = self.scores.tolist(), self.tokens.tolist()
        for n, (b, _) in enumerate(bt.tolist()):
            cands = [((), empty[n])]
            cands += [(tuple(i for i in seg if i != PAD), score)
                      for seg, score in zip(tokens[n], scores[n], strict=True)
                      if score > NEG_INF]
            out[b].append(cands)
        return out


def _extendable(log_probs: Tensor) -> Tensor:
    """Log-probs of tokens that may continue a segment (not <pad>, <s>, $)."""
    log_probs = log_probs.clone()
    log_probs[:, [PAD, BOS, EOS]] = NEG_INF
    return log_probs


# ---------------------------------------------------------------------------
# Sentence-level beam with merging by log-sum-exp (Eq. 3).


@dataclass
class _Hyp:
    """A partial hypothesis: its merged log p and its best segmentation."""

    log_prob: float  # log-sum-exp over the merged segmentations
    best_path: float  # log-prob of the best single segmentation
    segments: tuple | None  # that segmentation as (earlier, last segment) pairs

    def segment_list(self) -> list[list[int]]:
        """The best segmentation, one token list per position."""
        out, node = [], self.segments
        while node is not None:
            node, seg = node
            out.append(list(seg))
        return out[::-1]


class _LMScores:
    """Cached LM states and scores of word-id prefixes (one sentence's search)."""

    def __init__(self, lm: Any, words: Sequence[str]):
        self.lm, self.words = lm, words
        self.cache: dict[Segment, tuple[Any, float]] = {(): (lm.begin(), 0.0)}

    def prefix(self, ids: Segment) -> tuple[Any, float]:
        """(state, log p_LM(ids)) without </s>."""
        if ids not in self.cache:
            state, score = self.prefix(ids[:-1])
            state, logp = self.lm.advance(state, self.words[ids[-1]])
            self.cache[ids] = (state, score + logp)
        return self.cache[ids]

    def final(self, ids: Segment) -> float:
        """log p_LM(ids </s>)."""
        state, score = self.prefix(ids)
        return score + self.lm.end(state)


def combine_segments(candidates: list[list[tuple]], beam: int, lambda1: float,
                     lambda2: float, lm: _LMScores | None, max_tokens: int
                     ) -> list[SegmentHypothesis]:
    """One sentence: candidates per position -> hypotheses by Eq. 3, best first."""
    hyps: dict[Segment, _Hyp] = {(): _Hyp(0.0, 0.0, None)}
    for position in candidates:
        new: dict[Segment, _Hyp] = {}
        for words, hyp in hyps.items():
            for seg, seg_lp in position:
                key = words + seg
                if len(key) > max_tokens:
                    continue
                lp, path = hyp.log_prob + seg_lp, hyp.best_path + seg_lp
                old = new.get(key)
                if old is None:
                    new[key] = _Hyp(lp, path, (hyp.segments, seg))
                    continue
                old.log_prob = _logaddexp(old.log_prob, lp)
                if path > old.best_path:
                    old.best_path, old.segments = path, (hyp.segments, seg)
        hyps = dict(heapq.nlargest(beam, new.items(), key=lambda item: _q(
            item[0], item[1], lambda1, lambda2, lm, final=False)))
    finals = sorted(((_q(k, h, lambda1, lambda2, lm, final=True), k, h)
                     for k, h in hyps.items()), key=lambda item: -item[0])
    return [SegmentHypothesis(list(k), h.segment_list(), q, h.log_prob)
            for q, k, h in finals]


def _q(words: Segment, hyp: _Hyp, lambda1: float, lambda2: float,
       lm: _LMScores | None, final: bool) -> float:
    """Eq. 3 of a (partial) hypothesis."""
    score = hyp.log_prob + lambda1 * len(words)
    if lm is not None and lambda2 != 0.0:
        score += lambda2 * (lm.final(words) if final else lm.prefix(words)[1])
    return score


def _logaddexp(a: float, b: float) -> float:
    """log(e^a + e^b) for floats, −inf safe."""
    if a == NEG_INF:
        return b
    hi, lo = (a, b) if a >= b else (b, a)
    return hi + math.log1p(math.exp(lo - hi))


def beam_segments(decoder: SegmentDecoder, x: Tensor, src_len: Tensor, max_len: int,
                  beam: int, lambda1: float = 0.0, lambda2: float = 0.0,
                  lm: Any = None, words: Sequence[str] = (),
                  max_tokens: Sequence[int] | None = None,
                  ) -> list[list[SegmentHypothesis]]:
    """x (B, P, D) -> per sentence up to `beam` hypotheses by Eq. 3, best first."""
    candidates = segment_candidates(decoder, x, src_len, max_len, beam)
    limits = max_tokens or [max_len * int(n) for n in src_len.tolist()]
    return [combine_segments(cands, beam, lambda1, lambda2,
                             _LMScores(lm, words) if lm is not None else None, limit)
            for cands, limit in zip(candidates, limits, strict=True)]
