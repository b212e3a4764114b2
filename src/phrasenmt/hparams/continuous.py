"""The config of continuous-output NMT (CoNMT, Kumar & Tsvetkov 2019; PCoNMT,
Park & Tsvetkov 2019) and its presets: one config, four archs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field

from phrasenmt.hparams.attn_rnn import RNNConfig, base_rnn, tiny_rnn
from phrasenmt.hparams.registry import register_config, register_preset


@dataclass
class ContinuousConfig(RNNConfig):
    """The attention RNN plus the output table, loss and fertility settings."""

    embed_dim: Annotated[int, Field(
        ge=1, description="dimension m of the target embedding table")] = 100
    word_table: Annotated[str, Field(
        description="word2vec text file of word vectors (read once, at start)")] = ""
    phrase_table: Annotated[str, Field(
        description="word2vec text file of phrase vectors (\"\" = words only)")] = ""
    fasttext_model: Annotated[str, Field(
        description="fastText .bin for tokens in neither file (\"\" = random)")] = ""
    center_table: Annotated[bool, Field(
        description="subtract the mean vector before unit-normalizing")] = True
    lambda1: Annotated[float, Field(
        ge=0, description="weight of the ‖ê‖ penalty (NLLvMF reg. 1; 0 = off)")] = 0.02
    lambda2: Annotated[float, Field(
        ge=0, description="weight of the cosine term (NLLvMF reg. 2; 1 = off)")] = 0.1
    approximate_logc: Annotated[bool, Field(
        description="closed-form log C_m instead of the exact one")] = False
    fertility_classes: Annotated[Literal[0, 2, 4], Field(
        description="0 (no fertility module), 2 or 4")] = 0
    fertility_hidden: Annotated[int, Field(
        ge=1, description="hidden width of the fertility FFNN")] = 64


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
