"""The config of the context-aware Transformer (Zhang et al. 2018) and its
integration variants; each arch takes every Transformer preset."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Literal

from pydantic import Field

from phrasenmt.data.documents import CONTEXT_MODES
from phrasenmt.hparams.transformer import TransformerConfig, register_variant

INTEGRATIONS = ("both", "encoder", "decoder")
# How θ_d starts (the papers do not say): "identity" zeroes the last projection
# of every context branch and the gate weights, so that at the start of step 2
# the branch adds nothing, every gate is λ = 1/2, and the document model computes
# the step-1 model's function up to the layer norm after the gate (post-norm;
# LN(H/2) = LN(H)); "random": Xavier, like every other projection. With
# "random", step 2 starts far above step 1's dev loss, and repairing that damage
# shuts the gates of the source-side models for good, so that they never learn
# to read their context (docs/context-usage.md#how-the-context-modules-start).
CONTEXT_INITS = ("identity", "random")
Integration = Annotated[Literal[INTEGRATIONS], Field(
    description="context attention in: both | encoder | decoder")]



# The context fields every document model declares (han.py reads them too).
ContextMode = Annotated[Literal[CONTEXT_MODES], Field(description=(
    "What is read as context: real (the K previous sentences), random (a "
    "control: as many sentences of another document) or none (data.documents "
    "explains)."))]
ContextSeed = Annotated[int, Field(
    description="draws a random context (the workflow passes its seed)")]

@dataclass
class ContextTransformerConfig(TransformerConfig):
    """Transformer config plus the document-context settings (θ_d)."""

    context_size: Annotated[int, Field(
        ge=1, description="K previous source sentences (the slides' best: 2)")] = 2
    context_layers: Annotated[int, Field(
        ge=0, description="N_c layers of the context encoder (best: 1)")] = 1
    gating: Annotated[bool, Field(
        description="context gating instead of a plain residual")] = True
    context_dropout: Annotated[float, Field(ge=0, lt=1, description=(
        "dropout in the context encoder and its branches"))] = 0.1
    integration: Integration = "both"
    context: ContextMode = "real"
    context_seed: ContextSeed = 1
    context_init: Annotated[Literal[CONTEXT_INITS], Field(description=(
        "identity | random: how θ_d is initialised (CONTEXT_INITS)"))] = field(
            default="identity", metadata={"architecture": False})


# ---------------------------------------------------------------------------
# The slides' integration table: both (the model), encoder only, decoder only.

@dataclass
class ContextEncoderOnlyConfig(ContextTransformerConfig):
    """Context attention in the encoder layers only."""

    integration: Integration = "encoder"


@dataclass
class ContextDecoderOnlyConfig(ContextTransformerConfig):
    """Context attention in the decoder layers only."""

    integration: Integration = "decoder"


VARIANTS: dict[str, type[ContextTransformerConfig]] = {
    "ctx_transformer": ContextTransformerConfig,
    "ctx_transformer_enc": ContextEncoderOnlyConfig,
    "ctx_transformer_dec": ContextDecoderOnlyConfig,
}


for _arch, _config in VARIANTS.items():
    register_variant(_arch, _config)
