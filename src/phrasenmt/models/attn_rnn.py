"""Attention-based RNN encoder-decoder, the softmax baseline of Park & Tsvetkov (2019).

A bidirectional LSTM encoder and an LSTM decoder with Luong's "general"
attention (Luong et al. 2015): h̃_t = tanh(W_c [c_t; h_t]) is the attentional
state every output layer reads. Deviations, kept for CPU speed: no input
feeding (the decoder LSTM runs over the whole target prefix at once in
training), and the decoder's initial hidden state is tanh(W_b mean_s h_s)
(a bridge) with a zero cell. `RNNSeq2Seq` is the shared network; the softmax
model `AttnRNN` adds a linear output layer over the target vocabulary, the
continuous-output models (phrasenmt.models.continuous) replace it.
Shapes: B batch, S source length, T target length, E embedding width,
H hidden width, V target vocabulary.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from phrasenmt.hparams.attn_rnn import RNNConfig, base_rnn, tiny_rnn  # noqa: F401
from phrasenmt.models.base import Seq2Seq
from phrasenmt.models.registry import register_model
from phrasenmt.nn.dropout import Dropout
from phrasenmt.precision import run_rnn
from phrasenmt.text.vocab import PAD

State = dict[str, Tensor]
Cache = dict[str, Tensor]


class RNNEncoder(nn.Module):
    """Embeddings + a bidirectional LSTM."""

    def __init__(self, cfg: RNNConfig):
        super().__init__()
        if cfg.hidden_size % 2:
            raise ValueError("hidden_size must be even (two directions)")
        self.embed = nn.Embedding(cfg.src_vocab_size, cfg.embed_size, padding_idx=PAD)
        self.rnn = nn.LSTM(cfg.embed_size, cfg.hidden_size // 2, cfg.layers,
                           batch_first=True, bidirectional=True,
                           dropout=cfg.dropout if cfg.layers > 1 else 0.0)
        self.dropout = Dropout(cfg.dropout)

    def forward(self, src: Tensor) -> State:
        """src (B, S) -> memory (B, S, H), src_mask (B, S), src_embed (B, S, E)."""
        mask = src.ne(PAD)  # (B, S) True = real token
        embedded = self.embed(src)  # (B, S, E)
        lengths = mask.sum(dim=1).clamp(min=1).cpu()
        packed = pack_padded_sequence(self.dropout(embedded), lengths,
                                      batch_first=True, enforce_sorted=False)
        out, _ = run_rnn(self.rnn, packed)  # fp32 on CPU (precision.run_rnn)
        memory, _ = pad_packed_sequence(out, batch_first=True,
                                        total_length=src.size(1))  # (B, S, H)
        return {"memory": memory, "src_mask": mask, "src_embed": embedded}


class AttnDecoder(nn.Module):
    """Target embeddings + LSTM + general attention -> attentional states."""

    def __init__(self, cfg: RNNConfig):
        super().__init__()
        H = cfg.hidden_size
        self.layers = cfg.layers
        self.embed = nn.Embedding(cfg.tgt_vocab_size, cfg.embed_size, padding_idx=PAD)
        self.rnn = nn.LSTM(cfg.embed_size, H, cfg.layers, batch_first=True,
                           dropout=cfg.dropout if cfg.layers > 1 else 0.0)
        self.bridge = nn.Linear(H, H)
        self.attn = nn.Linear(H, H, bias=False)
        self.combine = nn.Linear(2 * H, H, bias=False)
        self.dropout = Dropout(cfg.dropout)

    def initial_hidden(self, state: State) -> tuple[Tensor, Tensor]:
        """(h0, c0), each (L, B, H): tanh(bridge(mean of memory)) and zeros."""
        mask = state["src_mask"].unsqueeze(-1).float()  # (B, S, 1)
        mean = (state["memory"] * mask).sum(1) / mask.sum(1).clamp(min=1)  # (B, H)
        h0 = torch.tanh(self.bridge(mean)).unsqueeze(0).repeat(self.layers, 1, 1)
        return h0, torch.zeros_like(h0)

    def forward(self, tgt: Tensor, state: State,
                hidden: tuple[Tensor, Tensor] | None = None
                ) -> tuple[Tensor, Tensor, tuple[Tensor, Tensor]]:
        """tgt (B, T) -> attentional states (B, T, H), attention (B, T, S), hidden."""
        if hidden is None:
            hidden = self.initial_hidden(state)
        out, hidden = run_rnn(self.rnn, self.dropout(self.embed(tgt)), hidden)  # (B,T,H)
        memory = state["memory"]  # (B, S, H)
        scores = self.attn(out) @ memory.transpose(1, 2)  # (B, T, S)
        scores = scores.masked_fill(~state["src_mask"][:, None, :], float("-inf"))
        attn = torch.softmax(scores.float(), dim=-1).to(out.dtype)  # (B, T, S)
        context = attn @ memory  # (B, T, H)
        h_tilde = torch.tanh(self.combine(torch.cat([context, out], dim=-1)))
        return self.dropout(h_tilde), attn, hidden


class RNNSeq2Seq(Seq2Seq):
    """The shared network: encoder, decoder and the incremental decoding API."""

    config_class = RNNConfig

    def __init__(self, cfg: RNNConfig):
        super().__init__()
        cfg.check()
        if cfg.src_vocab_size <= 0 or cfg.tgt_vocab_size <= 0:
            raise ValueError("src_vocab_size and tgt_vocab_size must be set")
        self.cfg = cfg
        self.encoder = RNNEncoder(cfg)
        self.decoder = AttnDecoder(cfg)

    def encode(self, src: Tensor, **side: Tensor) -> State:
        """src (B, S) -> encoder state (memory, mask, source embeddings)."""
        return self.encoder(src)

    def attentional(self, src: Tensor, tgt_in: Tensor) -> Tensor:
        """Teacher forcing: src (B, S), tgt_in (B, T) -> h̃ (B, T, H)."""
        return self.decoder(tgt_in, self.encode(src))[0]

    def step(self, state: State, tgt_prefix: Tensor, cache: Cache
             ) -> tuple[Tensor, Tensor]:
        """Last token of the prefix -> (h̃ (B, H), attention (B, S)); fills `cache`."""
        hidden = (cache["h"], cache["c"]) if cache else None
        h_tilde, attn, (h, c) = self.decoder(tgt_prefix[:, -1:], state, hidden)
        cache["h"], cache["c"] = h, c  # (L, B, H) each
        return h_tilde[:, -1], attn[:, -1]

    @staticmethod
    def reorder_state(state: State, cache: Cache, order: Tensor
                      ) -> tuple[State, Cache]:
        """Select/reorder batch rows (for beam search) of state and cache."""
        state = {k: v.index_select(0, order) for k, v in state.items()}
        cache = {k: v.index_select(1, order) for k, v in cache.items()}
        return state, cache


@register_model("attn_rnn")
class AttnRNN(RNNSeq2Seq):
    """The softmax model: h̃ -> logits over the target vocabulary."""

    def __init__(self, cfg: RNNConfig):
        super().__init__(cfg)
        self.output = nn.Linear(cfg.hidden_size, cfg.tgt_vocab_size)

    def forward(self, src: Tensor, tgt_in: Tensor, **side: Tensor) -> Tensor:
        """src (B, S), tgt_in (B, T) -> logits (B, T, V)."""
        return self.output(self.attentional(src, tgt_in))

    def decode_step(self, state: State, tgt_prefix: Tensor, cache: Cache) -> Tensor:
        """Prefix (B, t) -> log-probs (B, V) of the next token; fills `cache`."""
        h_tilde, _ = self.step(state, tgt_prefix, cache)
        return torch.log_softmax(self.output(h_tilde).float(), dim=-1)
