"""What every model in the registry shares: side inputs and its training loss.

A model may read per-sentence *side inputs*: integer sequences aligned one to
one with the source tokens (e.g. phrase ids for source phrase representations,
fertility labels for PCoNMT). It names them in `side_inputs`; the trainer, the
search and forced decoding pass them as keyword tensors (B, S), padded with -1
(the source's </s> position is padding too). A model with a loss other than
label-smoothed cross-entropy over logits overrides `loss`; one that needs the
vocabularies when it is first built overrides `attach_vocabularies`.
"""

from __future__ import annotations

from torch import Tensor, nn

from phrasenmt.training.batching import SIDE_PAD
from phrasenmt.training.loss import sequence_loss

__all__ = ["SIDE_PAD", "Seq2Seq"]


class Seq2Seq(nn.Module):
    """Base class: forward(src, tgt_in, **side) -> logits; loss() for training."""

    side_inputs: tuple[str, ...] = ()  # names of the side inputs this model reads

    def loss(self, batch, label_smoothing: float) -> tuple[Tensor, Tensor]:
        """(smoothed loss sum, NLL sum) over the batch's real target tokens."""
        logits = self(batch.src, batch.tgt_in, **batch.side)  # (B, T, V)
        return sequence_loss(logits, batch.tgt_out, label_smoothing)

    def attach_vocabularies(self, src_vocab, tgt_vocab) -> None:
        """Called once before training starts (not on reload): a model that
        needs the vocabularies (e.g. to align a frozen embedding table with the
        target ids) takes them here and keeps what it needs as buffers."""

    def num_parameters(self) -> int:
        """Trainable parameters (tied weights counted once)."""
        return sum(p.numel() for p in self.parameters() if p.requires_grad)
