"""What every model in the registry shares: side inputs and its training loss.

A model may read per-sentence *side inputs*: integer sequences aligned one to
one with the source tokens (e.g. phrase ids for source phrase representations,
fertility labels for PCoNMT). It names them in `side_inputs`; the trainer, the
search and forced decoding pass them as keyword tensors (B, S), padded with -1
(the source's </s> position is padding too). A model with a loss other than
label-smoothed cross-entropy over logits overrides `loss`; one that needs the
vocabularies when it is first built overrides `attach_vocabularies`.

A document-level model reads *context*: it names the sides in `context_sides`
("src", "tgt"), takes K from `cfg.context_size`, and gets the keyword
`context={side: (B, K, Lc) ids}` (see `nn.batching.pad_context`) in
forward and encode. Its parameters split into sentence-level θ_s and
document-level θ_d: `document_modules` names the submodules holding θ_d, and
two-step training (`training.two_step`) freezes θ_s by that split.

A model with `sentence_state` keeps its encoder state at one row per sentence
in beam search (the search does not copy it k times): `decode_step` gets the
state of n sentences with n*k prefixes (k consecutive rows per sentence), and
`reorder_state(state, cache, order, sentences)` selects the state by
`sentences` and the hypotheses' cache by `order` (see `decoding.search`).
"""

from __future__ import annotations

from torch import Tensor, nn

from phrasenmt.nn.batching import SIDE_PAD
from phrasenmt.nn.loss import sequence_loss

__all__ = ["SIDE_PAD", "Seq2Seq"]


class Seq2Seq(nn.Module):
    """Base class: forward(src, tgt_in, **side) -> logits; loss() for training."""

    side_inputs: tuple[str, ...] = ()  # names of the side inputs this model reads
    # values a side input may take: 0..n-1 for a name given here; any other side
    # input indexes its line (a phrase id: 0..tokens-1). Files are checked
    # against it before anything is allocated from them.
    side_classes: dict[str, int] = {}  # noqa: RUF012  (read-only)
    context_sides: tuple[str, ...] = ()  # document context it reads: "src", "tgt"
    document_modules: tuple[str, ...] = ()  # submodule names that hold θ_d
    sentence_state: bool = False  # beam search keeps the state once per sentence
    learns_unk: bool = True  # can be trained on <unk> targets (train.vocab_min_freq > 1)

    def loss(self, batch, label_smoothing: float) -> tuple[Tensor, Tensor]:
        """(smoothed loss sum, NLL sum) over the batch's real target tokens."""
        extra = {"context": batch.context} if self.context_sides else {}
        logits = self(batch.src, batch.tgt_in, **self.side_arguments(batch),
                      **extra)  # (B, T, V)
        return sequence_loss(logits, batch.tgt_out, label_smoothing)

    def side_arguments(self, batch) -> dict:
        """The keyword arguments `loss` passes a training batch's side inputs
        as: the tensors by name; a model that sizes something by a side
        input's values adds the batch's host count (`Batch.side_sizes`)."""
        return dict(batch.side)

    def training_data_note(self, src_lengths, tgt_lengths) -> str | None:
        """A line the trainer logs once about its training pairs (lengths
        without specials), e.g. those this model cannot learn from; None: none."""
        return None

    def is_document_key(self, name: str) -> bool:
        """Whether a parameter/state-dict name lies in a θ_d module."""
        return not set(self.document_modules).isdisjoint(name.split("."))

    def document_parameters(self) -> dict[str, nn.Parameter]:
        """θ_d: parameters inside a module named in `document_modules`."""
        return {n: p for n, p in self.named_parameters() if self.is_document_key(n)}

    def sentence_parameters(self) -> dict[str, nn.Parameter]:
        """θ_s: every other parameter (what a sentence-level model also has)."""
        document = self.document_parameters()
        return {n: p for n, p in self.named_parameters() if n not in document}

    def attach_vocabularies(self, src_vocab, tgt_vocab) -> None:
        """Called once before training starts (not on reload): a model that
        needs the vocabularies (e.g. to align a frozen embedding table with the
        target ids) takes them here and keeps what it needs as buffers."""

    def trained_apart(self) -> list[nn.Parameter]:
        """Parameters a later stage trains, not the translation loss (e.g.
        PCoNMT's fertility module): frozen while the network trains, so that
        every trained parameter gets a gradient (DDP requires it)."""
        return []

    def num_parameters(self) -> int:
        """Trainable parameters (tied weights counted once)."""
        return sum(p.numel() for p in self.parameters() if p.requires_grad)
