"""The config of continuous-output NMT (CoNMT, Kumar & Tsvetkov 2019; PCoNMT,
Park & Tsvetkov 2019) and its presets: one config, four archs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from phrasenmt import ranges
from phrasenmt.hparams.attn_rnn import RNNConfig, base_rnn, tiny_rnn
from phrasenmt.hparams.registry import register_config, register_preset
from phrasenmt.io import InputError


@dataclass
class ContinuousConfig(RNNConfig):
    """The attention RNN plus the output table, loss and fertility settings."""

    embed_dim: int = 100  # dimension m of the target embedding table
    word_table: str = ""  # word2vec text file of word vectors (read once, at start)
    phrase_table: str = ""  # word2vec text file of phrase vectors ("" = words only)
    fasttext_model: str = ""  # fastText .bin for tokens in neither file ("" = random)
    center_table: bool = True  # subtract the mean vector before unit-normalizing
    lambda1: float = 0.02  # weight of the ‖ê‖ penalty (NLLvMF reg. 1; 0 = off)
    lambda2: float = 0.1  # weight of the cosine term (NLLvMF reg. 2; 1 = off)
    approximate_logc: bool = False  # closed-form log C_m instead of the exact one
    fertility_classes: int = 0  # 0 (no fertility module), 2 or 4
    fertility_hidden: int = 64  # hidden width of the fertility FFNN

    def check(self) -> None:
        """The RNN's checks plus the table, loss and fertility settings."""
        super().check()
        ranges.at_least(self, 1, ("embed_dim", "fertility_hidden"))
        ranges.at_least(self, 0.0, ("lambda1", "lambda2"))
        if self.fertility_classes not in (0, 2, 4):
            raise InputError(f"must be 0, 2 or 4, got {self.fertility_classes}",
                             "model.fertility_classes")


# ---------------------------------------------------------------------------
# Registered names: one class, the table and fertility set by the preset.

CONTINUOUS_ARCHS = {"conmt": 0, "pconmt_nofert": 0, "pconmt_fert2": 2,
                    "pconmt_fert4": 4}  # arch -> fertility classes
PHRASE_ARCHS = ("pconmt_nofert", "pconmt_fert2", "pconmt_fert4")


def _presets(arch: str, classes: int) -> None:
    """Register tiny and base for `arch` (the attention RNN's sizes and schedule)."""

    def tiny(m: ContinuousConfig, t: Any) -> None:
        tiny_rnn(m, t)
        t.lr = 1e-2  # CoNMT: 30.3 BLEU after 400 updates (3e-3: 7.1; converged: 57.4)
        m.fertility_classes, m.fertility_hidden = classes, 64

    def base(m: ContinuousConfig, t: Any) -> None:
        base_rnn(m, t)
        m.embed_dim, m.fertility_classes, m.fertility_hidden = 300, classes, 256

    tiny.__doc__ = f"{arch}: the tiny attention RNN, fertility classes {classes}."
    base.__doc__ = f"{arch}: Kumar & Tsvetkov's De-En network, 300-d tables."
    register_preset(arch, "tiny")(tiny)
    register_preset(arch, "base")(base)


for _arch, _classes in CONTINUOUS_ARCHS.items():
    register_config(_arch, ContinuousConfig)
    _presets(_arch, _classes)
