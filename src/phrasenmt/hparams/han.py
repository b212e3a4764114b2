"""The config of the hierarchical attention network (Miculicich et al. 2018);
its three archs share it and take every Transformer preset."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Literal

from pydantic import Field

from phrasenmt.hparams.ctx_transformer import CONTEXT_INITS, ContextMode, ContextSeed
from phrasenmt.hparams.transformer import TransformerConfig, register_variant

ARCHS = ("han_enc", "han_dec", "han_enc_dec")


@dataclass
class HanConfig(TransformerConfig):
    """Transformer config plus the HAN settings (θ_d)."""

    context_size: Annotated[int, Field(
        ge=1, description="K previous sentences (the paper's default and best: 3)")] = 3
    context_dropout: Annotated[float, Field(
        ge=0, lt=1, description="dropout on d_t and inside the HAN's FFN")] = 0.1
    context: ContextMode = "real"
    context_seed: ContextSeed = 1
    reference_norms: Annotated[bool, Field(description=(
        "The reference code's layer normalizations, which the paper does not give: on "
        "the queries (before f_w, f_s), on the word-level summaries s^j, a pre-norm "
        "residual around the FFN, and after the gate. Without them d_t may grow "
        "against h_t and the gates close, and han_dec learned its context slowly: 60.1 "
        "% contrastive pronoun accuracy after 1,250 step-2 updates instead of 82.6 % "
        "with them (docs/results/2026-11-26-context-usage.md). False: the paper's "
        "equations exactly."))] = True
    detach_context: Annotated[bool, Field(description=(
        "Stop gradients at the context states (matters only when θ_s train, i.e. joint "
        "fine-tuning); a training choice, so a step may change it."))] = field(
            default=False, metadata={"architecture": False})
    context_init: Annotated[Literal[CONTEXT_INITS], Field(description=(
        "identity | random: how the HAN starts (ctx_transformer.CONTEXT_INITS): "
        "identity zeroes the sentence-level attention's output projection, the FFN's "
        "second layer and the gate weights, so d_t = 0 and λ_t = 1/2."))] = field(
            default="identity", metadata={"architecture": False})


for _arch in ARCHS:
    register_variant(_arch, HanConfig)
