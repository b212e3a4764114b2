"""The config of the hierarchical attention network (Miculicich et al. 2018);
its three archs share it and take every Transformer preset."""

from __future__ import annotations

from dataclasses import dataclass, field

from phrasenmt import ranges
from phrasenmt.data.documents import CONTEXT_MODES
from phrasenmt.hparams.ctx_transformer import CONTEXT_INITS
from phrasenmt.hparams.transformer import TransformerConfig, register_variant

ARCHS = ("han_enc", "han_dec", "han_enc_dec")


@dataclass
class HanConfig(TransformerConfig):
    """Transformer config plus the HAN settings (θ_d)."""

    context_size: int = 3  # K previous sentences (the paper's default and best: 3)
    context_dropout: float = 0.1  # dropout on d_t and inside the HAN's FFN
    # What is read as context: real (the K previous sentences), random (a control:
    # as many sentences of another document) or none (data.documents explains).
    context: str = "real"
    context_seed: int = 1  # draws a random context (the workflow passes its seed)
    # The reference code's layer normalizations, which the paper does not give:
    # on the queries (before f_w, f_s), on the word-level summaries s^j, a
    # pre-norm residual around the FFN, and after the gate. Without them d_t may
    # grow against h_t and the gates close, and han_dec learned its context
    # slowly: 60.1 % contrastive pronoun accuracy after 1,250 step-2 updates
    # instead of 82.6 % with them (docs/results/2026-11-26-context-usage.md).
    # False: the paper's equations exactly.
    reference_norms: bool = True
    # Stop gradients at the context states (matters only when θ_s train, i.e.
    # joint fine-tuning); a training choice, so a step may change it.
    detach_context: bool = field(default=False, metadata={"architecture": False})
    # identity | random: how the HAN starts (ctx_transformer.CONTEXT_INITS):
    # identity zeroes the sentence-level attention's output projection, the
    # FFN's second layer and the gate weights, so d_t = 0 and λ_t = 1/2.
    context_init: str = field(default="identity", metadata={"architecture": False})

    def check(self) -> None:
        """The Transformer's checks plus the HAN settings."""
        super().check()
        ranges.one_of(self, "context_init", CONTEXT_INITS)
        ranges.at_least(self, 1, ("context_size",))
        ranges.fraction(self, ("context_dropout",))
        ranges.one_of(self, "context", CONTEXT_MODES)


for _arch in ARCHS:
    register_variant(_arch, HanConfig)
