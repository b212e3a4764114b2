"""Useful FLOPs (tests/gpu/useful.py): on a batch without padding they are the
FLOP counter's figure (up to the decoder's causal half and the counter's
attention-backward convention); padding is not counted."""

from __future__ import annotations

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from benchmarks.ceiling import UNCOUNTED
from phrasenmt.hparams.transformer import TransformerConfig
from phrasenmt.models.registry import build_model
from phrasenmt.nn.batching import collate
from tests.gpu.useful import transformer_update_flops, update_figures

CFG = {"src_vocab_size": 50, "tgt_vocab_size": 60, "d_model": 32, "d_ff": 64,
       "n_heads": 2, "encoder_layers": 2, "decoder_layers": 1, "dropout": 0.0,
       "attention_dropout": 0.0}


def counted(src: list[list[int]], tgt: list[list[int]]) -> tuple[float, TransformerConfig]:
    torch.manual_seed(0)
    cfg = TransformerConfig(**CFG)
    model = build_model("transformer", cfg)
    with FlopCounterMode(display=False, custom_mapping=UNCOUNTED) as counter:
        loss, _ = model.loss(collate(src, tgt), 0.0)
        loss.backward()
    return counter.get_total_flops(), cfg


def test_without_padding_useful_flops_are_the_counted_ones():
    B, Ls, Lt = 3, 7, 5  # with </s> / <s>
    got, cfg = counted([[5] * (Ls - 1)] * B, [[6] * (Lt - 1)] * B)
    useful = transformer_update_flops(cfg, [Ls] * B, [Lt] * B)
    # the counter takes the decoder's full Lt x Lt score matrix, not its causal half
    causal = 3 * 2 * 2 * cfg.d_model * cfg.decoder_layers * B * (Lt * Lt - Lt * (Lt + 1) / 2)
    assert useful + causal == pytest.approx(got, rel=0.02)


def test_padding_is_not_useful():
    src = [[5] * 20, [5] * 2, [5] * 2]
    tgt = [[6] * 18, [6] * 3, [6] * 1]
    got, cfg = counted(src, tgt)
    flops, padding = update_figures(cfg, [([20, 2, 2], [18, 3, 1])])
    assert flops == transformer_update_flops(cfg, [21, 3, 3], [19, 4, 2])
    assert padding == pytest.approx(1 - (27 + 25) / (3 * 21 + 3 * 19))
    assert flops < 0.6 * got  # the padded rows cost the counter, not us
