"""The Transformer of Vaswani et al. (2017), as Xu et al. (2020) use it.

Read top to bottom: config, encoder, decoder, the model (the API every model in
the registry follows), then the named presets. Shapes: B batch, S source length,
T target length, C d_model, V vocabulary size.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor, nn

from phrasenmt import ranges
from phrasenmt.models.attention import SENTENCE_KEYS
from phrasenmt.models.base import Seq2Seq
from phrasenmt.models.layers import DecoderLayer, Embeddings, EncoderLayer
from phrasenmt.models.registry import PRESETS, register_model, register_preset
from phrasenmt.nn.loss import linear_sequence_loss
from phrasenmt.precision import any_autocast
from phrasenmt.text.vocab import PAD

State = dict[str, Tensor]
DecoderCache = dict[int, dict[str, Tensor]]


@dataclass
class TransformerConfig:
    """Hyperparameters of the Transformer; stored in every checkpoint."""

    src_vocab_size: int = 0  # source vocabulary size (set from the data)
    tgt_vocab_size: int = 0  # target vocabulary size (set from the data)
    d_model: int = 128  # width of embeddings and hidden states
    d_ff: int = 512  # inner width of the feed-forward blocks
    n_heads: int = 4  # attention heads (d_model must divide by it)
    encoder_layers: int = 2  # encoder stack depth
    decoder_layers: int = 2  # decoder stack depth
    dropout: float = 0.1  # dropout on embeddings and residual branches
    attention_dropout: float = 0.0  # dropout on attention weights
    activation_dropout: float = 0.0  # dropout after the feed-forward ReLU
    pre_norm: bool = False  # layer norm before sublayers (the paper: after)
    share_decoder_embeddings: bool = False  # tie decoder input and output embeddings
    max_positions: int = 1024  # longest sequence the position table covers

    def check(self) -> None:
        """Reject sizes and rates that cannot work, naming the key."""
        ranges.finite(self)
        ranges.at_least(self, 0, ("src_vocab_size", "tgt_vocab_size"))
        ranges.at_least(self, 1, ("d_model", "d_ff", "n_heads", "encoder_layers",
                                  "decoder_layers", "max_positions"))
        ranges.divides(self, "n_heads", "d_model")
        ranges.fraction(self, ("dropout", "attention_dropout", "activation_dropout"))


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
        return self.decoder(tgt_in, self.encode(src, **side))

    def loss(self, batch, label_smoothing: float) -> tuple[Tensor, Tensor]:
        """As `Seq2Seq.loss`; in float32 the output layer and the loss run fused,
        a chunk of target positions at a time (`nn.loss.linear_sequence_loss`:
        the same sums and gradients; a `small` update on one CPU thread took
        2360 instead of 2575 ms, `benchmarks/flops_ceiling.py`). Under bf16
        autocast, or for a subclass with its own forward, the unfused path:
        logits, then `sequence_loss`."""
        if type(self).forward is not Transformer.forward or any_autocast():
            return super().loss(batch, label_smoothing)
        extra = {"context": batch.context} if self.context_sides else {}
        hidden = self.decoder.features(batch.tgt_in,
                                       self.encode(batch.src, **batch.side, **extra))
        return linear_sequence_loss(hidden, self.decoder.output.weight, batch.tgt_out,
                                    label_smoothing)

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


# ---------------------------------------------------------------------------
# Presets: each sets defaults on (model config, training config) and nothing else.
# Learning rates for base/big follow Vaswani et al.: d^-0.5 * warmup^-0.5.


@register_preset("transformer", "tiny")
def tiny(m: TransformerConfig, t: Any) -> None:
    """CPU-sized: trains on ~40k short synthetic pairs in minutes on one thread."""
    m.d_model, m.d_ff, m.n_heads = 128, 512, 4
    m.encoder_layers = m.decoder_layers = 2
    # No dropout: 500 updates of ~1000 tokens are less than one epoch of the
    # synthetic corpus, so there is nothing to regularise yet, and dropout slowed
    # both learning and the step: 53.2 instead of 43.9 BLEU on the synthetic
    # en-de test set after the same 500 updates, and 96 instead of 122 s of
    # training; pr_max_attn_ta 48.9 instead of 14.3
    # (docs/results/2026-11-24-default-run.md). configs/converged_baselines.yaml, 12
    # epochs, keeps the 0.1 it was measured with.
    m.dropout = 0.0
    # Peak lr 3e-3 after 100 updates (was 1e-3 after 250): 43.4 instead of 18.8
    # BLEU on the synthetic en-de test set after the same 500 updates; trained to
    # convergence (configs/converged_baselines.yaml) the model reaches 89.3
    # (docs/results/2026-11-24-default-run.md, "Sizing the default run").
    t.lr, t.warmup_steps = 3e-3, 100
    t.max_tokens, t.update_tokens = 1024, 500  # one batch per update
    # 500 updates of ~1000 tokens: every model of the workflow must train within
    # the 20-minute `make run` on 2 CPU cores (350 updates gave only 19.7 BLEU).
    t.max_steps, t.valid_interval, t.save_interval = 500, 250, 100
    # The last checkpoint, not an average: at 500 updates these models are still
    # learning fast, and averaging the last 100 updates (5 checkpoints) cost BLEU
    # on the synthetic en-de test set: transformer 43.4 -> 43.9 without it,
    # pr_mean 11.5 -> 17.5, pr_max_attn_ta_parse 16.4 -> 22.8
    # (docs/results/2026-11-24-default-run.md, "Sizing the default run").
    # Larger presets average, as Vaswani et al. do.
    t.keep_last, t.average_last = 2, 1


@register_preset("transformer", "small")
def small(m: TransformerConfig, t: Any) -> None:
    """Multi30k-sized: 3+3 layers, d_model 256, ff 1024, 4 heads."""
    m.d_model, m.d_ff, m.n_heads = 256, 1024, 4
    m.encoder_layers = m.decoder_layers = 3
    m.dropout = 0.3
    t.lr, t.warmup_steps = 5e-4, 2000
    t.max_tokens = t.update_tokens = 4096
    t.max_steps, t.valid_interval, t.save_interval = 10000, 500, 500
    t.keep_last = t.average_last = 5


@register_preset("transformer", "iwslt")
def iwslt(m: TransformerConfig, t: Any) -> None:
    """fairseq's transformer_iwslt_de_en: 512/1024/4 heads/6+6."""
    m.d_model, m.d_ff, m.n_heads = 512, 1024, 4
    m.encoder_layers = m.decoder_layers = 6
    m.dropout, m.share_decoder_embeddings = 0.3, True
    t.lr, t.warmup_steps = 5e-4, 4000
    t.max_tokens = t.update_tokens = 4096
    t.max_steps, t.valid_interval, t.save_interval = 50000, 1000, 1000
    t.keep_last = t.average_last = 5


@register_preset("transformer", "base")
def base(m: TransformerConfig, t: Any) -> None:
    """Transformer Base as in Xu et al. 2020: 512/2048/8/6+6, 100k steps."""
    m.d_model, m.d_ff, m.n_heads = 512, 2048, 8
    m.encoder_layers = m.decoder_layers = 6
    m.dropout, m.share_decoder_embeddings = 0.1, True
    t.lr, t.warmup_steps = 512**-0.5 * 8000**-0.5, 8000
    t.max_tokens, t.update_tokens = 8192, 25000
    t.max_steps, t.valid_interval, t.save_interval = 100000, 1500, 1500
    t.keep_last = t.average_last = 5


@register_preset("transformer", "big")
def big(m: TransformerConfig, t: Any) -> None:
    """Transformer Big as in Xu et al. 2020: 1024/4096/16/6+6, 300k steps."""
    m.d_model, m.d_ff, m.n_heads = 1024, 4096, 16
    m.encoder_layers = m.decoder_layers = 6
    m.dropout, m.share_decoder_embeddings = 0.3, True
    t.lr, t.warmup_steps = 1024**-0.5 * 8000**-0.5, 8000
    t.max_tokens, t.update_tokens = 4096, 25000
    t.max_steps, t.valid_interval, t.save_interval = 300000, 1500, 1500
    t.keep_last = t.average_last = 20


def register_variant(arch: str, cls: type) -> type:
    """Register a Transformer variant under `arch` with every Transformer preset
    (the presets only set sizes and schedules, which every variant shares)."""
    register_model(arch)(cls)
    for name in ("tiny", "small", "iwslt", "base", "big"):
        register_preset(arch, name)(PRESETS["transformer"][name])
    return cls
