"""The config of the Transformer with source phrase representations (Xu et al.
2020) and Table 2's variants; each arch takes every Transformer preset."""

from __future__ import annotations

from dataclasses import dataclass

from phrasenmt import ranges
from phrasenmt.hparams.transformer import TransformerConfig, register_variant

SEGMENTATIONS = ("ngram", "parse")


@dataclass
class PhraseTransformerConfig(TransformerConfig):
    """Transformer config plus the phrase-representation switches."""

    glance: str = "max"  # F_glance of Eq. 2: "mean" or "max" (max-over-time)
    attentive: bool = True  # Eq. 3-5: attentive pooling on top of the glance
    transparent: bool = True  # Eq. 6: Transparent Attention over encoder levels
    segmentation: str = "ngram"  # side-input file the workflow passes: ngram | parse
    phrase_hidden: int = 0  # width of W1 in Eq. 3 (0 = d_model; not in the paper)
    combine_hidden: int = 0  # width of W3 in Eq. 8 (0 = d_model; not in the paper)

    def check(self) -> None:
        """The Transformer's checks plus the phrase-representation switches."""
        super().check()
        ranges.one_of(self, "glance", ("mean", "max"))
        ranges.one_of(self, "segmentation", SEGMENTATIONS)
        ranges.at_least(self, 0, ("phrase_hidden", "combine_hidden"))


# ---------------------------------------------------------------------------
# Table 2's rows: configs that only change defaults, one registered arch each.

@dataclass
class PRMeanConfig(PhraseTransformerConfig):
    """+Mean: element-wise mean phrases, last encoder level only."""

    glance: str = "mean"
    attentive: bool = False
    transparent: bool = False


@dataclass
class PRMaxConfig(PhraseTransformerConfig):
    """+Max: max-over-time phrases, last encoder level only."""

    attentive: bool = False
    transparent: bool = False


@dataclass
class PRMaxAttnConfig(PhraseTransformerConfig):
    """+Max+Attn: attentive pooling over the max glance, no TA."""

    transparent: bool = False


@dataclass
class PRMaxAttnTAConfig(PhraseTransformerConfig):
    """+Max+Attn+TA: the full model on n-gram phrases."""


@dataclass
class PRMaxAttnTAParseConfig(PhraseTransformerConfig):
    """+Max+Attn+TA+Parsing Phrase: phrases from Algorithm 1."""

    segmentation: str = "parse"


VARIANTS: dict[str, type[PhraseTransformerConfig]] = {
    "pr_mean": PRMeanConfig,
    "pr_max": PRMaxConfig,
    "pr_max_attn": PRMaxAttnConfig,
    "pr_max_attn_ta": PRMaxAttnTAConfig,
    "pr_max_attn_ta_parse": PRMaxAttnTAParseConfig,
}


for _arch, _config in VARIANTS.items():
    register_variant(_arch, _config)
