"""NPMT's config (Huang et al. 2018: SWAN + soft local reordering) and presets."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field

from phrasenmt.config_entries import MAX_BEAM
from phrasenmt.hparams.registry import register_config, register_preset, validate
from phrasenmt.hparams.reordering import check_window
from phrasenmt.io import InputError


@dataclass
class NPMTConfig:
    """Hyperparameters of NPMT; stored in every checkpoint."""

    src_vocab_size: Annotated[int, Field(
        ge=0, description="source vocabulary size (set from the data)")] = 0
    tgt_vocab_size: Annotated[int, Field(
        ge=0, description="target vocabulary size (set from the data)")] = 0
    embed_size: Annotated[int, Field(
        ge=1, description="source and segment-decoder input embedding width")] = 256
    cell: Annotated[Literal["gru", "lstm"], Field(description=(
        "recurrent cell of encoder and segment decoder: gru | lstm"))] = "gru"
    encoder_hidden: Annotated[int, Field(
        ge=1, description="encoder units per direction (x_t has twice this)")] = 256
    encoder_layers: Annotated[int, Field(
        ge=1, description="bidirectional encoder layers")] = 2
    decoder_hidden: Annotated[int, Field(
        ge=1, description="segment decoder units")] = 512
    decoder_layers: Annotated[int, Field(
        ge=1, description="segment decoder layers")] = 2
    dropout: Annotated[float, Field(ge=0, lt=1, description=(
        "on RNN inputs, between RNN layers and on RNN outputs"))] = 0.5
    use_reordering: Annotated[bool, Field(
        description="the soft local reordering layer (Eq. 2) on/off")] = True
    window: Annotated[int, Field(ge=1, description="reordering window 2τ+1 (odd)")] = 7
    max_segment_len: Annotated[int, Field(
        ge=1, description="L: tokens per segment at most (>= 1)")] = 6
    lambda1: Annotated[float, Field(
        description="Eq. 3 word-count weight (translate's default)")] = 1.2
    lambda2: Annotated[float, Field(
        ge=0, description="Eq. 3 LM weight (used when translate gets --lm)")] = 0.2
    beam: Annotated[int, Field(
        ge=1, le=MAX_BEAM,
        description="beam size (translate's default; 1 = greedy)")] = 10
    max_rollouts: Annotated[int, Field(ge=1, description=(
        "rollouts per scoring chunk (memory bound; see swan)"))] = 16384

    def check(self) -> None:
        """Every field against its annotation, then an odd window."""
        validate(self)
        check_window(self.window)

    def check_train(self, train: Any) -> None:
        """NPMT maximizes a marginal likelihood (Eq. 1): no label smoothing."""
        if train.label_smoothing != 0.0:
            raise InputError("NPMT maximizes a marginal likelihood (Eq. 1); label "
                             f"smoothing must be 0, got {train.label_smoothing}",
                             "train.label_smoothing")


register_config("npmt", NPMTConfig)
register_config("npmt_noreorder", NPMTConfig)


# ---------------------------------------------------------------------------
# Presets (fairseq style: functions that only set defaults).


def tiny(m: NPMTConfig, t: Any) -> None:
    """CPU-sized for the synthetic de->en corpus: about 90 s on one thread.

    SWAN's cost per target token grows with the sentence length (T'·L softmax
    states per token), so the tiny run trains on the pairs of at most 12
    tokens (about half of the corpus) and decodes sentences of any length.
    """
    m.embed_size, m.cell, m.dropout = 64, "gru", 0.0
    m.encoder_hidden, m.encoder_layers = 32, 1  # x_t (64) starts the decoder as is
    m.decoder_hidden, m.decoder_layers = 64, 1
    m.window, m.max_segment_len = 7, 3
    m.lambda1, m.lambda2, m.beam, m.max_rollouts = 1.0, 0.2, 4, 32768
    t.lr, t.warmup_steps, t.clip_norm, t.label_smoothing = 4e-3, 150, 5.0, 0.0
    t.max_tokens, t.update_tokens, t.max_len = 450, 300, 12
    t.max_steps, t.valid_interval, t.save_interval, t.log_interval = 400, 400, 100, 25
    t.keep_last, t.average_last = 3, 1


def iwslt(m: NPMTConfig, t: Any) -> None:
    """Section 3.1 (IWSLT14 de-en): window 7, 2×BiGRU 256, 2×GRU 512, L 6."""
    m.embed_size, m.cell, m.dropout = 256, "gru", 0.5
    m.encoder_hidden, m.encoder_layers = 256, 2
    m.decoder_hidden, m.decoder_layers = 512, 2
    m.window, m.max_segment_len = 7, 6
    m.lambda1, m.lambda2, m.beam, m.max_rollouts = 1.2, 0.2, 10, 8192
    # Adam 1e-3 as the paper; the trainer's schedule adds warm-up and 1/sqrt decay.
    t.lr, t.warmup_steps, t.clip_norm, t.label_smoothing = 1e-3, 1000, 5.0, 0.0
    t.max_tokens = t.update_tokens = 4096  # ~128 sentences: 32 per GPU × 4 GPUs
    t.max_steps, t.valid_interval, t.save_interval, t.log_interval = 50000, 1000, 1000, 100
    t.keep_last, t.average_last = 5, 1


def iwslt_en_de(m: NPMTConfig, t: Any) -> None:
    """Section 3.2 (IWSLT14 en-de): the de-en network, λ1 = 1, λ2 = 0.15."""
    iwslt(m, t)
    m.lambda1, m.lambda2 = 1.0, 0.15


def iwslt_en_vi(m: NPMTConfig, t: Any) -> None:
    """Section 3.3 (IWSLT15 en-vi): 2×BiLSTM 512, 3×LSTM 512, dropout 0.4, L 7."""
    iwslt(m, t)
    m.cell, m.dropout = "lstm", 0.4
    m.encoder_hidden, m.encoder_layers = 512, 2
    m.decoder_hidden, m.decoder_layers = 512, 3
    m.max_segment_len, m.lambda1, m.lambda2 = 7, 0.7, 0.15
    t.max_tokens = t.update_tokens = 3072  # ~48 sentences per GPU


NPMT_PRESETS = {"tiny": tiny, "iwslt": iwslt, "iwslt_en_de": iwslt_en_de,
           "iwslt_en_vi": iwslt_en_vi}


def _without_reordering(preset: Any) -> Any:
    """The same preset with use_reordering off (the npmt_noreorder ablation)."""

    def fn(m: NPMTConfig, t: Any) -> None:
        preset(m, t)
        m.use_reordering = False

    fn.__doc__ = f"{preset.__doc__} No reordering layer."
    return fn


for _name, _preset in NPMT_PRESETS.items():
    register_preset("npmt", _name)(_preset)
    register_preset("npmt_noreorder", _name)(_without_reordering(_preset))
