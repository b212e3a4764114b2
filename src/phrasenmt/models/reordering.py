"""Soft local reordering (Huang et al. 2018, Eq. 2) and the `attn_rnn_reorder` model.

    h_t = tanh( Σ_{i=0..2τ} σ(w_iᵀ [e_{t−τ}; …; e_{t+τ}] + b_i) · e_{t−τ+i} )

A window of 2τ+1 embeddings centred on t; every gate sees the whole window;
the gates are not normalised (they can switch everything off). Positions
beyond the sentence edges, and beyond a sentence's real length in a padded
batch, read zero vectors. The layer returns its gates (B, S, 2τ+1) too, for
the Appendix A heatmap: `python -m phrasenmt.evaluate.gates` writes them as a
tidy TSV (position, source_token, offset, gate).

`attn_rnn_reorder` is the attention RNN of `attn_rnn` with this layer between
the source embeddings and the BiLSTM (the paper's Section 3.1 ablation).
Shapes: B batch, S source length, E embedding width, W = 2τ+1 window.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from phrasenmt.hparams.reordering import ReorderRNNConfig, check_window
from phrasenmt.models.attn_rnn import AttnRNN
from phrasenmt.models.registry import register_model
from phrasenmt.text.vocab import PAD

GATE_BIAS = 3.0  # initial b_i: σ(3) = 0.95 at the centre, σ(-3) = 0.05 elsewhere


class SoftLocalReordering(nn.Module):
    """Eq. 2: gated sum over a centred window of embeddings, then tanh."""

    def __init__(self, embed_size: int, window: int = 7):
        super().__init__()
        check_window(window)
        self.window, self.tau = window, window // 2
        self.gate = nn.Linear(window * embed_size, window)  # rows w_i, biases b_i
        with torch.no_grad():  # start near the identity: the centre gate open
            self.gate.bias.fill_(-GATE_BIAS)
            self.gate.bias[self.tau] = GATE_BIAS

    def forward(self, embedded: Tensor, mask: Tensor) -> tuple[Tensor, Tensor]:
        """embedded (B, S, E), mask (B, S) True = real -> h (B, S, E), gates (B, S, W)."""
        B, S, E = embedded.shape
        e = embedded * mask.unsqueeze(-1).to(embedded.dtype)  # zeros past the end
        padded = F.pad(e, (0, 0, self.tau, self.tau))  # (B, S + 2τ, E)
        windows = padded.unfold(1, self.window, 1).transpose(2, 3)  # (B, S, W, E)
        gates = torch.sigmoid(self.gate(windows.reshape(B, S, self.window * E)))
        h = torch.tanh(torch.einsum("bsw,bswe->bse", gates, windows))  # (B, S, E)
        return h, gates


class ReorderedEmbedding(nn.Module):
    """Token embeddings followed by soft local reordering: ids (B, S) -> (B, S, E)."""

    def __init__(self, tokens: nn.Embedding, window: int):
        super().__init__()
        self.tokens = tokens
        self.reorder = SoftLocalReordering(tokens.embedding_dim, window)

    def forward(self, ids: Tensor) -> Tensor:
        """ids (B, S) -> reordered embeddings h (B, S, E)."""
        return self.reorder(self.tokens(ids), ids.ne(PAD))[0]


# ---------------------------------------------------------------------------
# The attention RNN with the reordering layer in front (an ablation).


@register_model("attn_rnn_reorder")
class AttnRNNReorder(AttnRNN):
    """AttnRNN whose encoder reads reordered embeddings (Section 3.1 ablation)."""

    config_class = ReorderRNNConfig

    def __init__(self, cfg: ReorderRNNConfig):
        super().__init__(cfg)  # runs cfg.check()
        self.encoder.embed = ReorderedEmbedding(self.encoder.embed, cfg.window)
