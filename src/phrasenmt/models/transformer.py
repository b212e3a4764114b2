"""The Transformer of Vaswani et al. (2017), as Xu et al. (2020) use it.

Read top to bottom: encoder, decoder, the model (the API every model in the
registry follows); its config and named presets are phrasenmt.hparams.transformer.
Shapes: B batch, S source length, T target length, C d_model, V vocabulary size.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from phrasenmt.hparams.transformer import TransformerConfig
from phrasenmt.models.attention import SENTENCE_KEYS
from phrasenmt.models.base import Seq2Seq
from phrasenmt.models.layers import DecoderLayer, Embeddings, EncoderLayer
from phrasenmt.models.registry import register_model
from phrasenmt.nn.loss import linear_sequence_loss
from phrasenmt.text.vocab import PAD

State = dict[str, Tensor]
DecoderCache = dict[int, dict[str, Tensor]]


class TransformerEncoder(nn.Module):
    """Embeddings + a stack of self-attention layers."""

    def __init__(self, cfg: TransformerConfig):
        super().__init__()
        self.embed = Embeddings(cfg.src_vocab_size, cfg.d_model, cfg.max_positions,
                                cfg.dropout)
        self.layers = nn.ModuleList(
            EncoderLayer(cfg.d_model, cfg.n_heads, cfg.d_ff, cfg.dropout,
                         cfg.attention_dropout, cfg.activation_dropout, cfg.pre_norm)
            for _ in range(cfg.encoder_layers))
        self.norm = nn.LayerNorm(cfg.d_model) if cfg.pre_norm else nn.Identity()

    def forward(self, src: Tensor) -> State:
        """src (B, S) ids -> {"memory": (B, S, C), "src_mask": (B, 1, 1, S)}."""
        mask = src.ne(PAD)[:, None, None, :]  # (B, 1, 1, S) True = real token
        x = self.embed(src)  # (B, S, C)
        for layer in self.layers:
            x = layer(x, mask)
        return {"memory": self.norm(x), "src_mask": mask}


class TransformerDecoder(nn.Module):
    """Embeddings + a stack of causal decoder layers + the output projection."""

    def __init__(self, cfg: TransformerConfig):
        super().__init__()
        self.embed = Embeddings(cfg.tgt_vocab_size, cfg.d_model, cfg.max_positions,
                                cfg.dropout)
        self.layers = nn.ModuleList(
            DecoderLayer(cfg.d_model, cfg.n_heads, cfg.d_ff, cfg.dropout,
                         cfg.attention_dropout, cfg.activation_dropout, cfg.pre_norm)
            for _ in range(cfg.decoder_layers))
        self.norm = nn.LayerNorm(cfg.d_model) if cfg.pre_norm else nn.Identity()
        self.output = nn.Linear(cfg.d_model, cfg.tgt_vocab_size, bias=False)
        if cfg.share_decoder_embeddings:
            self.output.weight = self.embed.tokens.weight
        else:
            nn.init.normal_(self.output.weight, mean=0.0, std=cfg.d_model**-0.5)

    def forward(self, tgt: Tensor, state: State, cache: DecoderCache | None = None,
                offset: int = 0) -> Tensor:
        """tgt (B, T) ids starting at position `offset` -> logits (B, T, V)."""
        return self.output(self.features(tgt, state, cache, offset))  # (B, T, V)

    def features(self, tgt: Tensor, state: State, cache: DecoderCache | None = None,
                 offset: int = 0) -> Tensor:
        """The states the output layer reads: (B, T, C)."""
        x = self.embed(tgt, offset)  # (B, T, C)
        for i, layer in enumerate(self.layers):
            layer_cache = None if cache is None else cache.setdefault(i, {})
            x = layer(x, state["memory"], state["src_mask"], layer_cache)
        return self.norm(x)


@register_model("transformer")
class Transformer(Seq2Seq):
    """Encoder-decoder Transformer with incremental decoding for search."""

    config_class = TransformerConfig
    sentence_state = True  # beams share their sentence's memory and its K/V

    def __init__(self, cfg: TransformerConfig):
        super().__init__()
        cfg.check()
        if cfg.src_vocab_size <= 0 or cfg.tgt_vocab_size <= 0:
            raise ValueError("src_vocab_size and tgt_vocab_size must be set")
        self.cfg = cfg
        self.encoder = TransformerEncoder(cfg)
        self.decoder = TransformerDecoder(cfg)
        self._init_linear_layers()

    def _init_linear_layers(self) -> None:
        """Xavier-uniform weights and zero biases for every projection."""
        for name, module in self.named_modules():
            if isinstance(module, nn.Linear) and not name.endswith("output"):
                nn.init.xavier_uniform_(module.weight)
                if module.bias is not None:
                    nn.init.zeros_(module.bias)

    def forward(self, src: Tensor, tgt_in: Tensor, **side: Tensor) -> Tensor:
        """Teacher forcing: src (B, S), tgt_in (B, T) -> logits (B, T, V)."""
        return self.decoder.output(self.features(tgt_in, self.encode(src, **side)))

    def features(self, tgt: Tensor, state: State, cache: DecoderCache | None = None,
                 offset: int = 0) -> Tensor:
        """The states the output layer reads (B, T, C): the decoder's; a model
        that puts a module between the decoder and the output layer (the HAN
        decoder) overrides this, and `loss` stays fused for it."""
        return self.decoder.features(tgt, state, cache, offset)

    def loss(self, batch, label_smoothing: float) -> tuple[Tensor, Tensor]:
        """As `Seq2Seq.loss`, with the output layer and the loss fused, a chunk
        of target positions at a time and only the rows of real targets
        (`nn.loss.linear_sequence_loss`: the same sums and gradients; in float32
        a `small` update on one CPU thread took 2360 instead of 2575 ms,
        `benchmarks/flops_ceiling.py`; under bf16 autocast the logits are in
        bf16 and no float32 positions x vocabulary tensor is made). A subclass
        with its own forward takes the unfused path: logits, then `sequence_loss`."""
        if type(self).forward is not Transformer.forward:
            return super().loss(batch, label_smoothing)
        extra = {"context": batch.context} if self.context_sides else {}
        hidden = self.features(batch.tgt_in,
                               self.encode(batch.src, **self.side_arguments(batch), **extra))
        return linear_sequence_loss(hidden, self.decoder.output.weight, batch.tgt_out,
                                    label_smoothing, ntokens=batch.ntokens)

    def encode(self, src: Tensor, **side: Tensor) -> State:
        """src (B, S) -> decoder state (encoder memory and its padding mask)."""
        return self.encoder(src)

    def decode_step(self, state: State, tgt_prefix: Tensor,
                    cache: DecoderCache) -> Tensor:
        """Prefix (B, t) -> log-probs (B, V) of the next token; fills `cache`."""
        t = tgt_prefix.size(1)
        logits = self.decoder(tgt_prefix[:, -1:], state, cache, offset=t - 1)
        return torch.log_softmax(logits[:, -1].float(), dim=-1)  # (B, V)

    @staticmethod
    def reorder_state(state: State, cache: DecoderCache, order: Tensor,
                      sentences: Tensor | None = None) -> tuple[State, DecoderCache]:
        """Select/reorder batch rows (for beam search) of state and cache.

        `order` picks the hypotheses' rows (self-attention keys/values). Without
        `sentences` the state and every cache entry have one row per hypothesis
        and follow `order`; with it, the state and the source-side cache entries
        (`SENTENCE_KEYS`) have one row per sentence and follow `sentences`, the
        increasing indices of the sentences still decoding (all of them: no copy).
        """
        source_rows = order if sentences is None else sentences
        if sentences is not None and (
                sentences.numel() == next(iter(state.values())).size(0)):
            source_rows = None  # every sentence is still decoding: keep the rows
        state = {k: _rows(v, source_rows) for k, v in state.items()}
        cache = {i: {k: _rows(v, source_rows if k in SENTENCE_KEYS else order)
                     for k, v in layer.items()} for i, layer in cache.items()}
        return state, cache


def _rows(t: Tensor, index: Tensor | None) -> Tensor:
    """t's rows at `index` (None: all of them, as they are)."""
    return t if index is None else t.index_select(0, index)
