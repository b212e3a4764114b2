"""The config of the context-aware Transformer (Zhang et al. 2018) and its
integration variants; each arch takes every Transformer preset."""

from __future__ import annotations

from dataclasses import dataclass, field

from phrasenmt import ranges
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


@dataclass
class ContextTransformerConfig(TransformerConfig):
    """Transformer config plus the document-context settings (θ_d)."""

    context_size: int = 2  # K previous source sentences (the slides' best: 2)
    context_layers: int = 1  # N_c layers of the context encoder (best: 1)
    gating: bool = True  # context gating instead of a plain residual
    context_dropout: float = 0.1  # dropout in the context encoder and its branches
    integration: str = "both"  # context attention in: both | encoder | decoder
    # What is read as context: real (the K previous sentences), random (a control:
    # as many sentences of another document) or none (data.documents explains).
    context: str = "real"
    context_seed: int = 1  # draws a random context (the workflow passes its seed)
    # identity | random: how θ_d is initialised (CONTEXT_INITS)
    context_init: str = field(default="identity", metadata={"architecture": False})

    def check(self) -> None:
        """The Transformer's checks plus the context settings."""
        super().check()
        ranges.one_of(self, "integration", INTEGRATIONS)
        ranges.one_of(self, "context_init", CONTEXT_INITS)
        ranges.one_of(self, "context", CONTEXT_MODES)
        ranges.at_least(self, 1, ("context_size",))
        ranges.at_least(self, 0, ("context_layers",))
        ranges.fraction(self, ("context_dropout",))


# ---------------------------------------------------------------------------
# The slides' integration table: both (the model), encoder only, decoder only.

@dataclass
class ContextEncoderOnlyConfig(ContextTransformerConfig):
    """Context attention in the encoder layers only."""

    integration: str = "encoder"


@dataclass
class ContextDecoderOnlyConfig(ContextTransformerConfig):
    """Context attention in the decoder layers only."""

    integration: str = "decoder"


VARIANTS: dict[str, type[ContextTransformerConfig]] = {
    "ctx_transformer": ContextTransformerConfig,
    "ctx_transformer_enc": ContextEncoderOnlyConfig,
    "ctx_transformer_dec": ContextDecoderOnlyConfig,
}


for _arch, _config in VARIANTS.items():
    register_variant(_arch, _config)
