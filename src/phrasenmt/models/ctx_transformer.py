"""The context-aware Transformer of Zhang et al. (2018), as the slides give it.

A context encoder (N_c self-attention + feed-forward layers over the
concatenation X_c of the K previous source sentences, sharing the source
embeddings) gives C^(N_c). Every encoder layer gets a context-attention
sublayer after self-attention, D = MultiHead(B, C, C); every decoder layer one
after self-attention and before the attention to the source,
F = MultiHead(E, C, C). With gating, the residual of these sublayers becomes
Gating(H) = λH + (1−λ)SubLayer(H), λ = σ(W_i H + W_s SubLayer(H)); without, a
plain residual. The sentence-level parameters θ_s keep the names of the
`transformer` arch (so step 1's checkpoint loads strictly); θ_d are the modules
named in `document_modules`. Shapes: B batch, S source length, T target
length, K context sentences, Lc context sentence length, L = K*Lc, C d_model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from phrasenmt.hparams.ctx_transformer import (  # noqa: F401
    CONTEXT_INITS,
    INTEGRATIONS,
    VARIANTS,
    ContextDecoderOnlyConfig,
    ContextEncoderOnlyConfig,
    ContextTransformerConfig,
)
from phrasenmt.io import InputError
from phrasenmt.models.attention import Cache, CrossAttention
from phrasenmt.models.layers import DecoderLayer, Embeddings, EncoderLayer, _Residual
from phrasenmt.models.registry import register_model
from phrasenmt.models.transformer import (
    State,
    Transformer,
    TransformerDecoder,
    TransformerEncoder,
)
from phrasenmt.nn.dropout import Dropout
from phrasenmt.text.vocab import PAD


def start_as_identity(*params: Tensor) -> None:
    """Zero the given parameters in place (see CONTEXT_INITS)."""
    with torch.no_grad():
        for p in params:
            p.zero_()


# On a CPU the context encoder runs on the batch's rows in up to this many
# groups of similar context length, each padded only to its own longest row.
# A batch is sorted by source and target length, not by the length of its
# context sentences, so one padded tensor is mostly padding (68 % of the
# context positions of a `tiny` default-run batch). The position-wise work,
# which is nearly all of it, then runs on about the real tokens only. On a GPU
# one padded tensor stays cheaper than more, smaller kernels.
CPU_CONTEXT_GROUPS = 4


def in_groups(ids: Tensor) -> bool:
    """Whether a batch of context ids (B, ...) is encoded in groups of rows:
    on a CPU, with more than one row."""
    return ids.device.type == "cpu" and ids.size(0) > 1


def row_groups(lengths: list[int], groups: int) -> list[tuple[list[int], int]]:
    """Row numbers by increasing `lengths`, cut into at most `groups` runs of
    about equal row counts -> (rows, the run's longest length, at least 1)."""
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    size = -(-len(order) // max(1, groups))
    runs = [order[i:i + size] for i in range(0, len(order), size)]
    return [(rows, max(1, lengths[rows[-1]])) for rows in runs]


@dataclass
class Context:
    """The encoded context of a batch: C^(N_c) in parts, one per group of rows
    (`row_groups`), which `project` lays out as one (B, L, ·) tensor."""

    parts: list[Tensor]  # per group (n_g, L_g, C), L_g <= L
    # (B,) each batch row's row in the parts' concatenation; None: the same row
    inverse: Tensor | None
    mask: Tensor  # (B, 1, 1, L) True = key allowed (see ContextEncoder)
    keep: Tensor  # (B, 1, 1) True where the sentence has any context

    def project(self, fn: Callable[[Tensor], Tensor]) -> Tensor:
        """A position-wise `fn` (e.g. the key/value projection) of C^(N_c) ->
        (B, L, C'), computed on the parts only; positions past a group's
        length hold zeros (keys there are masked)."""
        length = self.mask.size(-1)
        out = [fn(part) for part in self.parts]
        if len(out) == 1 and out[0].size(1) == length:
            dense = out[0]
        else:
            dense = torch.cat([F.pad(o, (0, 0, 0, length - o.size(1))) for o in out])
        return dense if self.inverse is None else dense.index_select(0, self.inverse)


# Called as observer(w_i, λ, H, S, keep) by every context gate while registered
# with `observe_gates` (the gate statistics of phrasenmt.evaluate.cxmi).
GateObserver = Callable[[nn.Module, Tensor, Tensor, Tensor, "Tensor | None"], None]
_GATE_OBSERVERS: list[GateObserver] = []


@contextmanager
def observe_gates(observer: GateObserver) -> Iterator[None]:
    """Within the block, every `context_gate` call also calls `observer`."""
    _GATE_OBSERVERS.append(observer)
    try:
        yield
    finally:
        _GATE_OBSERVERS.remove(observer)


def context_gate(h: Tensor, s: Tensor, w_i: nn.Module, w_s: nn.Module,
                 keep: Tensor | None = None) -> Tensor:
    """Gating(H) = λH + (1−λ)S with λ = σ(W_i H + W_s S), element-wise; `keep`
    (B, 1, 1) marks the rows that have a context (for observers only)."""
    lam = torch.sigmoid(w_i(h) + w_s(s))  # (B, T, C)
    for observe in _GATE_OBSERVERS:
        observe(w_i, lam, h, s, keep)
    return lam * h + (1.0 - lam) * s


class GatedResidual(_Residual):
    """The residual block of a context sublayer: gated or plain, post- or pre-norm.

    Rows without context (a document's first sentence) pass through unchanged:
    the slides do not define an empty context, and this way such a sentence is
    translated exactly as the sentence-level model (θ_s) translates it.
    """

    def __init__(self, d_model: int, dropout: float, pre_norm: bool, gating: bool):
        super().__init__(d_model, dropout, pre_norm)
        self.gate_h = nn.Linear(d_model, d_model, bias=False) if gating else None
        self.gate_s = nn.Linear(d_model, d_model, bias=False) if gating else None

    def combine(self, h: Tensor, s: Tensor, keep: Tensor | None = None) -> Tensor:
        """Gating(H) with gates, else the residual H + S."""
        if self.gate_h is None:
            return h + s
        return context_gate(h, s, self.gate_h, self.gate_s, keep)

    def forward(self, x: Tensor, fn: Callable[[Tensor], Tensor],
                keep: Tensor | None = None) -> Tensor:
        """x (B, T, C) -> (B, T, C); rows where `keep` (B, 1, 1) is False keep x."""
        if self.pre_norm:
            out = self.combine(x, self.dropout(fn(self.norm(x))), keep)
        else:
            out = self.norm(self.combine(x, self.dropout(fn(x)), keep))
        return out if keep is None else torch.where(keep, out, x)


class ContextAttention(CrossAttention):
    """MultiHead(H, C, C); C's keys and values are projected once per batch
    (the decoder's in `ContextTransformer.encode`, so decoding reuses them)."""

    def context_kv(self, ctx: Context) -> Tensor:
        """The context's keys and values (B, L, 2C), projected group by group."""
        return ctx.project(self.kv_proj)

    def forward(self, x: Tensor, kv: Tensor, mask: Tensor | None) -> Tensor:
        """x (B, T, C) attends over the context's keys and values (B, L, 2C)
        (`context_kv`: once per batch, decoding included) -> (B, T, C)."""
        k, v = kv.chunk(2, dim=-1)
        return self.attend(self.split_heads(self.q_proj(x)), self.split_heads(k),
                           self.split_heads(v), mask)


class ContextEncoder(nn.Module):
    """N_c self-attention layers over X_c, the concatenated context sentences.

    On a CPU they run on groups of rows of similar context length
    (`CPU_CONTEXT_GROUPS`), each padded only to its own longest row.

    The token embeddings are the source encoder's (passed in, not owned, so
    they stay θ_s and appear once in the state dict). X_c is packed (`pack`):
    the sentences' real tokens follow each other without the padding the batch
    puts after each, so the context is K*Lc long only where a row fills it.
    Positions count real tokens along the concatenation, so the result does
    not depend on how much padding the batch adds between sentences. The
    context encoder is θ_d (Zhang et al. 2018 train it in step 2): of the
    context's computation only the embedding lookup is frozen, so there are
    no frozen context states to compute once, as a HAN has.
    """

    def __init__(self, cfg: ContextTransformerConfig):
        super().__init__()
        self.layers = nn.ModuleList(
            EncoderLayer(cfg.d_model, cfg.n_heads, cfg.d_ff, cfg.context_dropout,
                         cfg.attention_dropout, cfg.activation_dropout, cfg.pre_norm)
            for _ in range(cfg.context_layers))
        self.norm = nn.LayerNorm(cfg.d_model) if cfg.pre_norm else nn.Identity()
        self.dropout = Dropout(cfg.context_dropout)

    def embed(self, ids: Tensor, real: Tensor, embed: Embeddings) -> Tensor:
        """ids (B, L) -> (B, L, C): shared token embeddings + positions in X_c."""
        positions = (real.long().cumsum(dim=1) - 1).clamp(min=0)  # (B, L)
        table = embed.positions.size(0)
        if ids.size(1) > table and int(positions.max()) >= table:
            raise ValueError(f"context of {int(positions.max()) + 1} tokens exceeds "
                             f"max_positions {table}")
        x = embed.tokens(ids) * embed.scale + embed.positions[positions]
        return self.dropout(x)

    def forward(self, context: Tensor, embed: Embeddings) -> Context:
        """context (B, K, Lc) ids -> the encoded context C^(N_c)."""
        ids = pack(context.flatten(1))  # (B, L) X_c, oldest sentence first
        real = ids.ne(PAD)  # (B, L)
        keep = real.any(dim=1)  # (B,) sentences with any context
        # A row without context may attend to its first (padding) position, so
        # that attention stays finite; GatedResidual then ignores the row.
        allowed = real.clone()
        allowed[:, 0] |= ~keep
        mask = allowed[:, None, None, :]  # (B, 1, 1, L)
        x = self.embed(ids, real, embed)
        if not in_groups(ids):
            return Context([self.encode(x, mask)], None, mask, keep[:, None, None])
        # Each row's keys are within its group's length, so every real
        # position's states are those of the one padded tensor.
        groups = row_groups(real.sum(dim=1).tolist(), CPU_CONTEXT_GROUPS)
        order = [row for rows, _ in groups for row in rows]
        parts = []
        if order == list(range(len(order))):  # rows already by context length (`loss`)
            start = 0
            for rows, length in groups:
                end = start + len(rows)
                parts.append(self.encode(x[start:end, :length], mask[start:end, ..., :length]))
                start = end
            return Context(parts, None, mask, keep[:, None, None])
        for rows, length in groups:
            index = torch.tensor(rows, device=ids.device)
            parts.append(self.encode(x.index_select(0, index)[:, :length],
                                     mask.index_select(0, index)[..., :length]))
        inverse = torch.empty(len(order), dtype=torch.long, device=ids.device)
        inverse[torch.tensor(order, device=ids.device)] = torch.arange(
            len(order), device=ids.device)
        return Context(parts, inverse, mask, keep[:, None, None])

    def encode(self, x: Tensor, mask: Tensor) -> Tensor:
        """Embedded X_c (n, L, C), its key mask (n, 1, 1, L) -> C^(N_c)."""
        for layer in self.layers:
            x = layer(x, mask)
        return self.norm(x)


def pack(ids: Tensor) -> Tensor:
    """(B, K*Lc) ids with padding between the sentences -> (B, L) with each
    row's real tokens first, in order, L the longest row's count (at least 1).
    Positions count real tokens, so only the padding attended over changes."""
    real = ids.ne(PAD)  # (B, K*Lc)
    length = max(int(real.sum(dim=1).max()), 1) if ids.numel() else 1
    out = ids.new_full((ids.size(0), length), PAD)
    rows, _ = real.nonzero(as_tuple=True)
    out[rows, (real.long().cumsum(dim=1) - 1)[real]] = ids[real]
    return out


class ContextEncoderLayer(EncoderLayer):
    """Self-attention -> context attention (gated) -> feed-forward."""

    def __init__(self, cfg: ContextTransformerConfig):
        super().__init__(cfg.d_model, cfg.n_heads, cfg.d_ff, cfg.dropout,
                         cfg.attention_dropout, cfg.activation_dropout, cfg.pre_norm)
        self.ctx_attn = ContextAttention(cfg.d_model, cfg.n_heads,
                                         cfg.attention_dropout)
        self.res_ctx = GatedResidual(cfg.d_model, cfg.context_dropout, cfg.pre_norm,
                                     cfg.gating)

    def forward(self, x: Tensor, mask: Tensor | None, ctx: Context) -> Tensor:
        """x (B, S, C) with the context -> (B, S, C)."""
        x = self.res1(x, lambda h: self.self_attn(h, mask))
        kv = self.ctx_attn.context_kv(ctx)
        x = self.res_ctx(x, lambda h: self.ctx_attn(h, kv, ctx.mask), ctx.keep)
        return self.res2(x, self.ff)


class ContextDecoderLayer(DecoderLayer):
    """Self-attention -> context attention (gated) -> source attention -> FFN."""

    def __init__(self, cfg: ContextTransformerConfig):
        super().__init__(cfg.d_model, cfg.n_heads, cfg.d_ff, cfg.dropout,
                         cfg.attention_dropout, cfg.activation_dropout, cfg.pre_norm)
        self.ctx_attn = ContextAttention(cfg.d_model, cfg.n_heads,
                                         cfg.attention_dropout)
        self.res_ctx = GatedResidual(cfg.d_model, cfg.context_dropout, cfg.pre_norm,
                                     cfg.gating)

    def forward(self, x: Tensor, memory: Tensor, mem_mask: Tensor | None,
                cache: Cache | None = None, ctx_kv: Tensor | None = None,
                ctx_mask: Tensor | None = None, ctx_keep: Tensor | None = None
                ) -> Tensor:
        """x (B, T, C), memory (B, S, C), the context's keys and values
        (B, L, 2C) with their mask and rows -> (B, T, C)."""
        x = self.res1(x, lambda h: self.self_attn(h, causal=True, cache=cache))
        x = self.res_ctx(x, lambda h: self.ctx_attn(h, ctx_kv, ctx_mask), ctx_keep)
        x = self.res2(x, lambda h: self.cross_attn(h, memory, mem_mask, cache))
        return self.res3(x, self.ff)


class ContextSourceEncoder(TransformerEncoder):
    """The source encoder whose layers also attend to the context."""

    def __init__(self, cfg: ContextTransformerConfig):
        super().__init__(cfg)
        self.layers = nn.ModuleList(ContextEncoderLayer(cfg)
                                    for _ in range(cfg.encoder_layers))

    def forward(self, src: Tensor, ctx: Context) -> State:
        """src (B, S) ids -> {"memory": (B, S, C), "src_mask": (B, 1, 1, S)}."""
        mask = src.ne(PAD)[:, None, None, :]  # (B, 1, 1, S)
        x = self.embed(src)  # (B, S, C)
        for layer in self.layers:
            x = layer(x, mask, ctx)
        return {"memory": self.norm(x), "src_mask": mask}


class ContextDecoder(TransformerDecoder):
    """The decoder whose layers also attend to the context."""

    def __init__(self, cfg: ContextTransformerConfig):
        super().__init__(cfg)
        self.layers = nn.ModuleList(ContextDecoderLayer(cfg)
                                    for _ in range(cfg.decoder_layers))

    def features(self, tgt: Tensor, state: State, cache=None, offset: int = 0) -> Tensor:
        """tgt (B, T) ids starting at position `offset` -> output-layer input (B, T, C)."""
        x = self.embed(tgt, offset)  # (B, T, C)
        for i, layer in enumerate(self.layers):
            layer_cache = None if cache is None else cache.setdefault(i, {})
            x = layer(x, state["memory"], state["src_mask"], layer_cache,
                      state[f"ctx_kv{i}"], state["ctx_mask"], state["ctx_keep"])
        return self.norm(x)


class ContextTransformer(Transformer):
    """Transformer + context encoder, context attention and gating (θ_d)."""

    config_class = ContextTransformerConfig
    context_sides = ("src",)
    document_modules = ("context_encoder", "ctx_attn", "res_ctx")
    sentence_state = False  # its context attention keeps one row per hypothesis

    def __init__(self, cfg: ContextTransformerConfig):
        cfg.check()
        nn.Module.__init__(self)
        if cfg.src_vocab_size <= 0 or cfg.tgt_vocab_size <= 0:
            raise ValueError("src_vocab_size and tgt_vocab_size must be set")
        self.cfg = cfg
        self.in_encoder = cfg.integration in ("both", "encoder")
        self.in_decoder = cfg.integration in ("both", "decoder")
        self.encoder = (ContextSourceEncoder(cfg) if self.in_encoder
                        else TransformerEncoder(cfg))
        self.decoder = (ContextDecoder(cfg) if self.in_decoder
                        else TransformerDecoder(cfg))
        self.context_encoder = ContextEncoder(cfg)
        self._init_linear_layers()
        if cfg.context_init == "identity":
            for layer in self.context_layers():
                start_as_identity(layer.ctx_attn.out_proj.weight,
                                  layer.ctx_attn.out_proj.bias,
                                  *(layer.res_ctx.gate_h.weight, layer.res_ctx.gate_s.weight)
                                  if cfg.gating else ())

    def loss(self, batch, label_smoothing: float) -> tuple[Tensor, Tensor]:
        """As `Transformer.loss`; on a CPU with the batch's rows first ordered
        by context length: the loss sums over rows, and the context encoder's
        groups (`CPU_CONTEXT_GROUPS`) are then runs of rows, laid out again
        without a gather."""
        ids = batch.context.get("src")
        if ids is not None and in_groups(ids):
            order = ids.ne(PAD).flatten(1).sum(dim=1).sort(stable=True).indices
            batch = batch.apply(lambda t: t.index_select(0, order))
        return super().loss(batch, label_smoothing)

    def context_layers(self) -> list[nn.Module]:
        """The encoder and decoder layers that attend to the context."""
        return [layer for part, used in ((self.encoder, self.in_encoder),
                                         (self.decoder, self.in_decoder)) if used
                for layer in part.layers]

    def encode(self, src: Tensor, context: dict[str, Tensor] | None = None,
               **side: Tensor) -> State:
        """src (B, S), context {"src": (B, K, Lc)} -> decoder state."""
        if context is None or "src" not in context:
            raise InputError("this model reads document context: give --docs "
                             "(or --context)", "--docs")
        ids = context["src"]  # (B, K, Lc)
        if ids.dim() != 3 or ids.size(0) != src.size(0) or (
                ids.size(1) != self.cfg.context_size):
            raise ValueError(f"context must be (B={src.size(0)}, "
                             f"K={self.cfg.context_size}, Lc), got {tuple(ids.shape)}")
        ctx = self.context_encoder(ids, self.encoder.embed)
        state = self.encoder(src, ctx) if self.in_encoder else self.encoder(src)
        if self.in_decoder:  # each layer's context keys and values, once
            state.update({f"ctx_kv{i}": layer.ctx_attn.context_kv(ctx)
                          for i, layer in enumerate(self.decoder.layers)},
                         ctx_mask=ctx.mask, ctx_keep=ctx.keep)
        return state


for _arch, _config in VARIANTS.items():
    register_model(_arch)(type(f"ContextTransformer_{_arch}", (ContextTransformer,),
                                 {"config_class": _config, "__doc__": _config.__doc__}))
