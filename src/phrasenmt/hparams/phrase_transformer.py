"""The config of the Transformer with source phrase representations (Xu et al.
2020) and Table 2's variants; each arch takes every Transformer preset."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import Field

from phrasenmt.hparams.transformer import TransformerConfig, register_variant

SEGMENTATIONS = ("ngram", "parse")
# The switches Table 2's rows set, declared once for the config and its rows.
Glance = Annotated[Literal["mean", "max"], Field(
    description="F_glance of Eq. 2: \"mean\" or \"max\" (max-over-time)")]
Attentive = Annotated[bool, Field(
    description="Eq. 3-5: attentive pooling on top of the glance")]
Transparent = Annotated[bool, Field(
    description="Eq. 6: Transparent Attention over encoder levels")]
Segmentation = Annotated[Literal[SEGMENTATIONS], Field(
    description="side-input file the workflow passes: ngram | parse")]


@dataclass
class PhraseTransformerConfig(TransformerConfig):
    """Transformer config plus the phrase-representation switches."""

    glance: Glance = "max"
    attentive: Attentive = True
    transparent: Transparent = True
    segmentation: Segmentation = "ngram"
    phrase_hidden: Annotated[int, Field(
        ge=0, description="width of W1 in Eq. 3 (0 = d_model; not in the paper)")] = 0
    combine_hidden: Annotated[int, Field(
        ge=0, description="width of W3 in Eq. 8 (0 = d_model; not in the paper)")] = 0


# ---------------------------------------------------------------------------
# Table 2's rows: configs that only change defaults, one registered arch each.

@dataclass
class PRMeanConfig(PhraseTransformerConfig):
    """+Mean: element-wise mean phrases, last encoder level only."""

    glance: Glance = "mean"
    attentive: Attentive = False
    transparent: Transparent = False


@dataclass
class PRMaxConfig(PhraseTransformerConfig):
    """+Max: max-over-time phrases, last encoder level only."""

    attentive: Attentive = False
    transparent: Transparent = False


@dataclass
class PRMaxAttnConfig(PhraseTransformerConfig):
    """+Max+Attn: attentive pooling over the max glance, no TA."""

    transparent: Transparent = False


@dataclass
class PRMaxAttnTAConfig(PhraseTransformerConfig):
    """+Max+Attn+TA: the full model on n-gram phrases."""


@dataclass
class PRMaxAttnTAParseConfig(PhraseTransformerConfig):
    """+Max+Attn+TA+Parsing Phrase: phrases from Algorithm 1."""

    segmentation: Segmentation = "parse"


VARIANTS: dict[str, type[PhraseTransformerConfig]] = {
    "pr_mean": PRMeanConfig,
    "pr_max": PRMaxConfig,
    "pr_max_attn": PRMaxAttnConfig,
    "pr_max_attn_ta": PRMaxAttnTAConfig,
    "pr_max_attn_ta_parse": PRMaxAttnTAParseConfig,
}


for _arch, _config in VARIANTS.items():
    register_variant(_arch, _config)
