"""NPMT (Huang et al. 2018): soft local reordering + BiRNN encoder + SWAN.

source ids -> embeddings e -> soft local reordering h (Eq. 2, `reordering`)
-> bidirectional GRU/LSTM (packed: padding never reaches a real position)
-> x_1..x_T' -> SWAN (`swan`): each x_t emits a segment of 0..L target tokens.

The input positions are the source tokens and the source's </s>, so T' = |x|+1.
SWAN's y is the target WITHOUT </s>: the output ends when the input ends (the
segment decoder's $ reuses the </s> id). Training maximizes Eq. 1 through the
exact segment DP; `loss` returns (−Σ log p(y|x), the same) over the batch, so
the trainer's division by batch.ntokens gives the NLL per target token (the
denominator counts one </s> per sentence, which SWAN does not emit). Label
smoothing does not apply to a marginal likelihood: train.label_smoothing
must be 0 (the presets set it). Pairs no segmentation can produce
(|y| > L·T') are skipped (loss 0) and counted on the device in the
`skipped_pairs` buffer (no read-back per batch); the trainer says how many
training pairs that is when it loads the data (`training_data_note`).
`npmt_noreorder` is the same network without the reordering layer.
Shapes: B batch, S source length (+</s>), T target length, E embedding width,
D = 2 × encoder width, L max segment length.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from phrasenmt.hparams.npmt import NPMTConfig
from phrasenmt.io import InputError
from phrasenmt.log import get_logger
from phrasenmt.models.base import Seq2Seq
from phrasenmt.models.registry import register_model
from phrasenmt.models.reordering import SoftLocalReordering
from phrasenmt.models.swan import SegmentDecoder, possible, segment_log_likelihood
from phrasenmt.models.swan_search import (
    SegmentHypothesis,
    beam_segments,
    greedy_segments,
)
from phrasenmt.nn.dropout import Dropout
from phrasenmt.precision import run_rnn
from phrasenmt.text.vocab import EOS, PAD

_log = get_logger(__name__)


class NPMTEncoder(nn.Module):
    """Embeddings -> (reordering) -> packed bidirectional RNN -> x (B, S, D)."""

    def __init__(self, cfg: NPMTConfig):
        super().__init__()
        rnn = {"gru": nn.GRU, "lstm": nn.LSTM}[cfg.cell]
        self.embed = nn.Embedding(cfg.src_vocab_size, cfg.embed_size, padding_idx=PAD)
        self.reorder = (SoftLocalReordering(cfg.embed_size, cfg.window)
                        if cfg.use_reordering else None)
        self.rnn = rnn(cfg.embed_size, cfg.encoder_hidden, cfg.encoder_layers,
                       batch_first=True, bidirectional=True,
                       dropout=cfg.dropout if cfg.encoder_layers > 1 else 0.0)
        self.dropout = Dropout(cfg.dropout)

    def forward(self, src: Tensor) -> dict[str, Tensor]:
        """src (B, S) -> x (B, S, D), src_len (B,), gates (B, S, W) if reordering."""
        mask = src.ne(PAD)  # (B, S)
        lengths = mask.sum(dim=1)  # (B,)
        h = self.embed(src)  # (B, S, E)
        state: dict[str, Tensor] = {"src_len": lengths}
        if self.reorder is not None:
            h, state["gates"] = self.reorder(h, mask)
        packed = pack_padded_sequence(self.dropout(h), lengths.clamp(min=1).cpu(),
                                      batch_first=True, enforce_sorted=False)
        out, _ = run_rnn(self.rnn, packed)  # fp32 on CPU (precision.run_rnn)
        x, _ = pad_packed_sequence(out, batch_first=True, total_length=src.size(1))
        state["x"] = self.dropout(x)  # (B, S, D)
        return state


class NPMT(Seq2Seq):
    """Neural phrase-based MT: reordering, BiRNN encoder, SWAN output."""

    config_class = NPMTConfig

    def __init__(self, cfg: NPMTConfig):
        super().__init__()
        cfg.check()
        if cfg.src_vocab_size <= 0 or cfg.tgt_vocab_size <= 0:
            raise ValueError("src_vocab_size and tgt_vocab_size must be set")
        self.cfg = cfg
        self.encoder = NPMTEncoder(cfg)
        self.decoder = SegmentDecoder(2 * cfg.encoder_hidden, cfg.tgt_vocab_size,
                                      cfg.embed_size, cfg.decoder_hidden,
                                      cfg.decoder_layers, cfg.cell, cfg.dropout)
        self.register_buffer("skipped_pairs", torch.zeros((), dtype=torch.long))

    def encode(self, src: Tensor, **side: Tensor) -> dict[str, Tensor]:
        """src (B, S) with </s> -> encoder state (x, src_len, gates)."""
        return self.encoder(src)

    def segment_scores(self, src: Tensor, tgt_out: Tensor) -> tuple[Tensor, Tensor,
                                                                     Tensor]:
        """-> seg (B, S, T+1, L+1), src_len, tgt_len; tgt_out is y + </s>, padded."""
        state = self.encode(src)
        tgt, tgt_len = strip_eos(tgt_out)
        seg = self.decoder.segment_scores(state["x"], state["src_len"], tgt, tgt_len,
                                          self.cfg.max_segment_len,
                                          self.cfg.max_rollouts)
        return seg, state["src_len"], tgt_len

    def forward(self, src: Tensor, tgt_out: Tensor, **side: Tensor) -> Tensor:
        """src (B, S), tgt_out (B, T) = y + </s> -> log p(y|x) (B,) float64."""
        seg, src_len, tgt_len = self.segment_scores(src, tgt_out)
        return segment_log_likelihood(seg, src_len, tgt_len)

    def loss(self, batch: Any, label_smoothing: float) -> tuple[Tensor, Tensor]:
        """(−Σ log p(y|x), the same) over the batch's possible pairs."""
        if label_smoothing != 0.0:  # resolve_spec rejects it (check_train)
            raise InputError("NPMT maximizes a marginal likelihood (Eq. 1); label "
                             f"smoothing must be 0, got {label_smoothing}",
                             "train.label_smoothing")
        seg, src_len, tgt_len = self.segment_scores(batch.src, batch.tgt_out)
        ok = possible(src_len, tgt_len, self.cfg.max_segment_len)
        if self.training:  # counted on the device: no read-back
            self.skipped_pairs += ok.logical_not().sum()
        ll = segment_log_likelihood(seg, src_len, tgt_len)
        nll = -torch.where(ok, ll, 0.0).sum().float()
        return nll, nll

    def training_data_note(self, src_lengths: Sequence[int],
                           tgt_lengths: Sequence[int]) -> str | None:
        """How many training pairs (lengths without specials) `loss` will skip:
        |y| > L·T', T' = |x| + 1 input positions."""
        L = self.cfg.max_segment_len
        skip = sum(t > L * (s + 1) for s, t in zip(src_lengths, tgt_lengths,
                                                   strict=True))
        if not skip:
            return None
        return (f"note: {skip} of {len(src_lengths)} training pairs are longer than "
                f"L·T' (L = {L}, T' = source tokens + 1): no segmentation produces "
                f"them; skipped (loss 0), counted in the model's `skipped_pairs` buffer")

    @torch.no_grad()
    def score_pairs(self, src: Tensor, tgt_out: Tensor) -> Tensor:
        """Forced scoring (translate score): log p(y|x) (B,) by the DP; −inf where
        no segmentation can produce y."""
        return self(src, tgt_out)

    @torch.no_grad()
    def decode_segments(self, src: Tensor, beam: int = 1, lambda1: float = 0.0,
                        lambda2: float = 0.0, lm: Any = None,
                        words: list[str] | None = None,
                        max_tokens: list[int] | None = None
                        ) -> list[SegmentHypothesis]:
        """src (B, S) -> the best hypothesis per sentence (beam 1 = greedy)."""
        state = self.encode(src)
        L = self.cfg.max_segment_len
        if beam == 1:
            best = greedy_segments(self.decoder, state["x"], state["src_len"], L)
            return [truncate(h, n) for h, n in
                    zip(best, max_tokens or [len(h.tokens) for h in best], strict=True)]
        hyps = beam_segments(self.decoder, state["x"], state["src_len"], L, beam,
                             lambda1, lambda2, lm, words or [], max_tokens)
        return [h[0] for h in hyps]


def strip_eos(tgt_out: Tensor) -> tuple[Tensor, Tensor]:
    """y + </s> (B, T) -> y (B, T) with </s> as <pad>, and |y| (B,)."""
    tgt = torch.where(tgt_out.eq(EOS), PAD, tgt_out)
    return tgt, tgt.ne(PAD).sum(dim=1)


def truncate(hyp: SegmentHypothesis, limit: int) -> SegmentHypothesis:
    """Cut a greedy output (and its segments) to at most `limit` tokens."""
    if len(hyp.tokens) <= limit:
        return hyp
    segments, room = [], limit
    for seg in hyp.segments:
        segments.append(seg[:room])
        room -= len(segments[-1])
    return SegmentHypothesis(hyp.tokens[:limit], segments, hyp.score, hyp.log_prob)


register_model("npmt")(NPMT)
register_model("npmt_noreorder")(NPMT)
