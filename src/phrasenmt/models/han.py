"""Hierarchical Attention Networks (Miculicich et al. 2018), as the slides give it.

One module, `HierarchicalAttention`, used in three places. For the current
state h_t and the K previous sentences j of the document with states h^j_i:

  word level      q_w = f_w(h_t),  s^j = MultiHead(q_w, h^j)   for each j
  sentence level  q_s = f_s(h_t),  d_t = FFN(MultiHead(q_s, [s^1 ... s^K]))
  context gate    λ_t = σ(W_h h_t + W_d d_t),  out = λ_t h_t + (1 − λ_t) d_t

f_w, f_s are linear maps (the paper's "linear transformation"); the gate has
no bias, as the equation. `han_enc` puts it on the last encoder layer's output
over the previous source sentences' encoder states; `han_dec` on the last
decoder layer's output (before the output projection) over the previous
sentences' decoder states, teacher-forced on their target side: the
references in training and forced scoring, the model's own translations in
decoding (`decoding.context` decodes documents in order); `han_enc_dec` does
both and starts from a trained `han_enc` (`init_modules`).

Context states and gradients. The states of the context sentences are those of
the sentence-level model (θ_s: the Transformer encoder, and for the decoder
states that encoder + the Transformer decoder over the previous target
sentence), not HAN'd themselves (no recursion through the document). In the
HAN step θ_s are frozen, so a context sentence's states are a function of that
sentence alone: `line_states` computes them with θ_s in eval mode (no dropout:
frozen weights give the same states whenever they are computed), without a
gradient, each sentence with equal-length peers only (no padding). A
`models.context_cache.ContextStates` computes them once per sentence and hands
them in as "<side>_states"; without one, `encode` computes the same ones for
the batch, so both give the same run bit for bit. Only while θ_s train (joint
fine-tuning, `train.freeze: none`) are they recomputed with each batch in
training mode (`trained_states`: dropout as configured, gradients into θ_s
unless `model.detach_context`). The reference code takes a context sentence's
states from the training pass that processed it (with dropout), detached; the
paper does not say, and eval-mode states are what a frozen θ_s defines.

Caching. The word-level keys/values of the context states are computed once
per batch in `encode` and kept in the decoder state (`han_dec.*`), so
incremental decoding reuses them and beam search reorders them with
`reorder_state` like any other state tensor.

A missing context sentence is masked at the sentence level; a sentence with no
context at all (a document's first) keeps h_t (the equations leave it
undefined), so it is translated exactly as the sentence-level model does.
Shapes: B batch, S source length, T target length, K context sentences,
Lc context sentence length, C d_model, H heads, Dh = C / H.
"""

from __future__ import annotations

import contextlib

import torch
from torch import Tensor, nn

from phrasenmt.hparams.han import HanConfig
from phrasenmt.io import InputError
from phrasenmt.models.attention import CrossAttention
from phrasenmt.models.context_cache import (
    evaluating,
    length_groups,
    place,
    stack_chunk,
)
from phrasenmt.models.ctx_transformer import (
    context_gate,
    start_as_identity,
)
from phrasenmt.models.layers import FeedForward
from phrasenmt.models.registry import register_model
from phrasenmt.models.transformer import (
    DecoderCache,
    State,
    Transformer,
)
from phrasenmt.nn.dropout import Dropout
from phrasenmt.text.vocab import BOS, PAD

Memory = dict[str, Tensor]  # the cached context of one HAN (see `memory`)
MEMORY_KEYS = ("k", "v", "allowed", "present")


class HierarchicalAttention(nn.Module):
    """HAN: word-level attention per context sentence, sentence-level attention
    over their summaries, FFN, and the context gate."""

    def __init__(self, cfg: HanConfig):
        super().__init__()
        C = cfg.d_model
        self.f_w, self.f_s = nn.Linear(C, C), nn.Linear(C, C)
        self.word_attn = CrossAttention(C, cfg.n_heads, cfg.attention_dropout)
        self.sent_attn = CrossAttention(C, cfg.n_heads, cfg.attention_dropout)
        self.ffn = FeedForward(C, cfg.d_ff, cfg.context_dropout)
        self.gate_h = nn.Linear(C, C, bias=False)  # W_h
        self.gate_d = nn.Linear(C, C, bias=False)  # W_d
        self.dropout = Dropout(cfg.context_dropout)
        # reference_norms: LN(h) before f_w and f_s, LN(s^j), d + FFN(LN(d)), LN(out)
        self.norms = (nn.ModuleDict({name: nn.LayerNorm(C) for name in
                                     ("query_w", "query_s", "summary", "ffn", "out")})
                      if cfg.reference_norms else None)
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.xavier_uniform_(module.weight)
                if module.bias is not None:
                    nn.init.zeros_(module.bias)
        if cfg.context_init == "identity":
            start_as_identity(self.sent_attn.out_proj.weight, self.sent_attn.out_proj.bias,
                              self.ffn.fc2.weight, self.ffn.fc2.bias,
                              self.gate_h.weight, self.gate_d.weight)

    def memory(self, states: Tensor, real: Tensor) -> Memory:
        """Context states (B, K, Lc, C), real tokens (B, K, Lc) -> the word-level
        keys/values (B, K, H, Lc, Dh) and masks, computed once per batch."""
        B, K, Lc, C = states.shape
        k, v = self.word_attn.memory_kv(states.reshape(B * K, Lc, C))
        present = real.any(dim=2)  # (B, K) sentence j exists
        # An empty sentence may attend to its first (padding) position, so that
        # attention stays finite; the sentence level masks it out.
        allowed = real.clone()
        allowed[..., 0] |= ~present
        return {"k": k.view(B, K, *k.shape[1:]), "v": v.view(B, K, *v.shape[1:]),
                "allowed": allowed, "present": present}

    def word_level(self, h: Tensor, mem: Memory) -> Tensor:
        """s^j = MultiHead(f_w(h_t), h^j) for every j -> (B, T, K, C)."""
        B, T, C = h.shape
        K = mem["k"].size(1)
        q = self.word_attn.split_heads(self.word_attn.q_proj(
            self.f_w(self.norm("query_w", h))))  # (B, H, T, Dh)
        q = q[:, None].expand(B, K, *q.shape[1:]).flatten(0, 1)  # (B*K, H, T, Dh)
        mask = mem["allowed"].flatten(0, 1)[:, None, None, :]  # (B*K, 1, 1, Lc)
        s = self.word_attn.attend(q, mem["k"].flatten(0, 1), mem["v"].flatten(0, 1),
                                  mask)  # (B*K, T, C)
        return self.norm("summary", s.view(B, K, T, C).transpose(1, 2))  # (B,T,K,C)

    def sentence_level(self, h: Tensor, s: Tensor, present: Tensor) -> Tensor:
        """d_t = FFN(MultiHead(f_s(h_t), [s^1 ... s^K])) -> (B, T, C)."""
        B, T, K, C = s.shape
        q = self.sent_attn.q_proj(self.f_s(self.norm("query_s", h))).reshape(B * T, 1, C)
        k, v = self.sent_attn.memory_kv(s.reshape(B * T, K, C))  # (B*T, H, K, Dh)
        allowed = present.clone()  # (B, K); no context at all: see `forward`
        allowed[:, 0] |= ~present.any(dim=1)
        mask = allowed[:, None, :].expand(B, T, K).reshape(B * T, 1, 1, K)
        d = self.sent_attn.attend(self.sent_attn.split_heads(q), k, v, mask)
        d = d.view(B, T, C)
        if self.norms is None:
            return self.ffn(d)  # (B, T, C)
        return d + self.dropout(self.ffn(self.norms["ffn"](d)))

    def norm(self, name: str, x: Tensor) -> Tensor:
        """The reference code's layer norm `name` on x, or x without them."""
        return x if self.norms is None else self.norms[name](x)

    def forward(self, h: Tensor, mem: Memory) -> Tensor:
        """h (B, T, C) -> λh + (1−λ)d (B, T, C); rows without context keep h."""
        d = self.dropout(self.sentence_level(h, self.word_level(h, mem),
                                             mem["present"]))
        keep = mem["present"].any(dim=1)[:, None, None]  # (B, 1, 1)
        out = self.norm("out", context_gate(h, d, self.gate_h, self.gate_d, keep))
        return torch.where(keep, out, h)


def shift_right(ids: Tensor) -> Tensor:
    """Context target ids (N, L) `y </s> <pad>..` -> decoder input `<s> y <pad>..`,
    whose real positions are those of `ids` (one state per target token)."""
    shifted = torch.cat([torch.full_like(ids[:, :1], BOS), ids[:, :-1]], dim=1)
    return shifted.masked_fill(ids.eq(PAD), PAD)


def pad_to(states: Tensor, length: int) -> Tensor:
    """(B, K, L, C) states zero-padded (or cut: only padding) to L = `length`."""
    if states.size(2) >= length:
        return states[:, :, :length]
    return nn.functional.pad(states, (0, 0, 0, length - states.size(2)))


def scatter_rows(rows: Tensor, values: Tensor | None, shape: tuple[int, ...],
                 like: Tensor) -> Tensor:
    """(N, L, C) `values` of the rows `rows` into zeros of `shape` (n, L, C), with
    the dtype/device of `values` (of `like` when there are none)."""
    if values is None:
        return like.new_zeros(shape)
    return values.new_zeros(shape).index_copy(0, rows, values)


class HanTransformer(Transformer):
    """Transformer (θ_s, the `transformer` names) + HAN modules (θ_d)."""

    config_class = HanConfig
    document_modules = ("han_encoder", "han_decoder")
    sentence_state = False  # its context attention keeps one row per hypothesis
    places: tuple[str, ...] = ()  # where HAN sits: "encoder", "decoder"
    init_modules: tuple[str, ...] = ()  # θ_d that --init-from must provide

    def __init__(self, cfg: HanConfig):
        super().__init__(cfg)  # runs cfg.check()
        self.han_encoder = (HierarchicalAttention(cfg) if "encoder" in self.places
                            else None)
        self.han_decoder = (HierarchicalAttention(cfg) if "decoder" in self.places
                            else None)

    def features(self, tgt: Tensor, state: State, cache: DecoderCache | None = None,
                 offset: int = 0) -> Tensor:
        """Decoder output -> HAN decoder (if any): what the output projection
        reads (B, T, C); `Transformer.loss` fuses that projection with the loss."""
        h = self.decoder.features(tgt, state, cache, offset)  # (B, T, C)
        if self.han_decoder is not None:
            h = self.han_decoder(h, {k: state[f"han_dec.{k}"] for k in MEMORY_KEYS})
        return h

    def logits(self, tgt: Tensor, state: State, cache: DecoderCache | None = None,
               offset: int = 0) -> Tensor:
        """Decoder output -> HAN decoder (if any) -> output projection (B, T, V)."""
        return self.decoder.output(self.features(tgt, state, cache, offset))

    def decode_step(self, state: State, tgt_prefix: Tensor,
                    cache: DecoderCache) -> Tensor:
        """Prefix (B, t) -> log-probs (B, V) of the next token; fills `cache`."""
        t = tgt_prefix.size(1)
        logits = self.logits(tgt_prefix[:, -1:], state, cache, offset=t - 1)
        return torch.log_softmax(logits[:, -1].float(), dim=-1)  # (B, V)

    @property
    def frozen_state_sides(self) -> tuple[str, ...]:
        """The sides whose context states this model reads (see `line_states`)."""
        return tuple(side for side, han in (("src", self.han_encoder),
                                            ("tgt", self.han_decoder)) if han)

    def sentence_frozen(self) -> bool:
        """Whether θ_s (the encoder and decoder) are frozen (step 2)."""
        return not any(p.requires_grad for part in (self.encoder, self.decoder)
                       for p in part.parameters())

    def context_frozen(self) -> bool:
        """Whether the context states are fixed: θ_s frozen, or evaluated
        without gradients (validation, decoding)."""
        return self.sentence_frozen() or not (self.training
                                              or torch.is_grad_enabled())

    def encode(self, src: Tensor, context: dict[str, Tensor] | None = None,
               **side: Tensor) -> State:
        """src (B, S), context {"src": (B, K, Ls)[, "tgt": (B, K, Lt)]} (and, from
        a `ContextStates`, "<side>_states" (B, K, L, C)) -> state."""
        ids = self.check_context(src, context)
        state = self.encoder(src)  # memory (B, S, C), src_mask
        states = self.given_states(ids, context)
        if states is None:
            states = (self.batch_line_states(ids) if self.context_frozen()
                      else self.trained_states(ids))
        if self.han_encoder is not None:
            mem = self.han_encoder.memory(states["src"], ids["src"].ne(PAD))
            state["memory"] = self.han_encoder(state["memory"], mem)
        if self.han_decoder is not None:
            mem = self.han_decoder.memory(states["tgt"], ids["tgt"].ne(PAD))
            state.update({f"han_dec.{k}": v for k, v in mem.items()})
        return state

    def given_states(self, ids: dict[str, Tensor], context: dict[str, Tensor]
                     ) -> dict[str, Tensor] | None:
        """The "<side>_states" a `ContextStates` put in the context, if any."""
        if not all(f"{s}_states" in context for s in self.frozen_state_sides):
            return None
        if not self.context_frozen():
            raise ValueError("context states were given, but θ_s train: they "
                             "would not follow the weights")
        out = {s: context[f"{s}_states"] for s in self.frozen_state_sides}
        for s, value in out.items():
            if value.shape[:3] != ids[s].shape:
                raise ValueError(f"context {s}_states {tuple(value.shape)} do not "
                                 f"match the ids {tuple(ids[s].shape)}")
        return out

    def line_states(self, src: list[Tensor], tgt: list[Tensor] | None = None
                    ) -> dict[str, list[Tensor]]:
        """Context lines (ids with </s>, no padding) -> per side of
        `frozen_state_sides` each line's θ_s states (L, C): θ_s in eval mode, no
        gradient when θ_s are frozen, each line in a chunk of equal-length lines
        (`context_cache.LINE_CHUNK`), so its states do not depend on the others."""
        lengths = [(len(s), 0 if tgt is None else len(tgt[n]))
                   for n, s in enumerate(src)]
        out: dict[str, list[Tensor | None]] = {
            s: [None] * len(src) for s in self.frozen_state_sides}
        grad = torch.no_grad() if self.sentence_frozen() else contextlib.nullcontext()
        with evaluating(self.encoder, self.decoder), grad:
            for rows in length_groups(lengths):
                enc = self.encoder(stack_chunk([src[n] for n in rows]))  # (G, Ls, C)
                if "src" in out:
                    for i, n in enumerate(rows):
                        out["src"][n] = enc["memory"][i]
                if "tgt" in out and lengths[rows[0]][1]:
                    tgt_in = shift_right(stack_chunk([tgt[n] for n in rows]))
                    dec = self.decoder.features(tgt_in, enc)  # (G, Lt, C)
                    for i, n in enumerate(rows):
                        out["tgt"][n] = dec[i]
        return out

    def batch_line_states(self, ids: dict[str, Tensor]) -> dict[str, Tensor]:
        """The batch's context sentences through `line_states` -> per side of
        `frozen_state_sides` (B, K, L, C), zeros where no sentence."""
        B, K, _ = ids["src"].shape
        lines = {s: [row[row.ne(PAD)] for row in ids[s].flatten(0, 1)]
                 for s in ids}  # per side B*K rows, empty where none
        present = [n for n, row in enumerate(lines["src"]) if row.numel()]
        if "tgt" in lines:
            self.check_target_context(lines, present)
        states = self.line_states([lines["src"][n] for n in present],
                                  [lines["tgt"][n] for n in present]
                                  if "tgt" in lines else None)
        out = {}
        for side, values in states.items():
            rows: list[list[Tensor]] = [[] for _ in range(B)]
            empty = self.decoder.output.weight.new_zeros(0, self.cfg.d_model)
            slots = dict(zip(present, values, strict=True))
            for n in range(B * K):
                value = slots.get(n)
                rows[n // K].append(empty if value is None else value)
            out[side] = place(rows, K, self.cfg.d_model, self.decoder.output.weight)
            out[side] = pad_to(out[side], ids[side].size(2))
        return out

    @staticmethod
    def check_target_context(lines: dict[str, list[Tensor]], present: list[int]
                             ) -> None:
        """Every target context sentence needs its source sentence."""
        has_src = set(present)
        if any(row.numel() and n not in has_src for n, row in enumerate(lines["tgt"])):
            raise InputError("a target context sentence has no source sentence",
                             "--context")

    def trained_states(self, ids: dict[str, Tensor]) -> dict[str, Tensor]:
        """Context states while θ_s train (joint fine-tuning): one padded batch,
        dropout as configured, gradients into θ_s unless `detach_context`."""
        B, K, Ls = ids["src"].shape
        real = ids["src"].ne(PAD)  # (B, K, Ls)
        rows = real.flatten(0, 1).any(dim=1).nonzero().squeeze(1)  # present ones
        enc = self.encoder(ids["src"].flatten(0, 1)[rows]) if rows.numel() else None
        out = {}
        if self.han_encoder is not None:
            values = None if enc is None else enc["memory"]  # (N, Ls, C)
            states = self.context_states(rows, values, (B * K, Ls, self.cfg.d_model))
            out["src"] = states.view(B, K, Ls, -1)
        if self.han_decoder is not None:
            out["tgt"] = self.target_states(ids, rows, enc)[0]
        return out

    def context_states(self, rows: Tensor, values: Tensor | None,
                       shape: tuple[int, ...]) -> Tensor:
        """Sentence-level states (N, L, C) of the present context sentences `rows`
        -> (B*K, L, C), zeros elsewhere; detached if `detach_context`."""
        out = scatter_rows(rows, values, shape, self.decoder.output.weight)
        return out.detach() if self.cfg.detach_context else out

    def target_states(self, ids: dict[str, Tensor], rows: Tensor,
                      enc: State | None) -> tuple[Tensor, Tensor]:
        """Decoder states of the context sentences, teacher-forced on their target
        side over their source's encoding `enc` -> (B, K, Lt, C), real (B, K, Lt)."""
        B, K, Lt = ids["tgt"].shape
        tgt = ids["tgt"].flatten(0, 1)  # (B*K, Lt)
        present = tgt.ne(PAD).any(dim=1)  # (B*K,)
        has_src = torch.zeros_like(present).index_fill(0, rows, True)
        if (present & ~has_src).any():
            raise InputError("a target context sentence has no source sentence",
                             "--context")
        t_rows = present.nonzero().squeeze(1)
        values = None
        if t_rows.numel():
            pick = (has_src.long().cumsum(0) - 1)[t_rows]  # row -> index in enc
            memory = {"memory": enc["memory"][pick], "src_mask": enc["src_mask"][pick]}
            values = self.decoder.features(shift_right(tgt[t_rows]), memory)
        states = self.context_states(t_rows, values, (B * K, Lt, self.cfg.d_model))
        return states.view(B, K, Lt, -1), ids["tgt"].ne(PAD)

    def check_context(self, src: Tensor, context: dict[str, Tensor] | None
                      ) -> dict[str, Tensor]:
        """The context ids of every side this model reads, shapes checked."""
        if context is None or any(s not in context for s in self.context_sides):
            raise InputError("this model reads document context: give --docs "
                             "(or --context)", "--docs")
        for side in self.context_sides:
            ids = context[side]
            if ids.dim() != 3 or ids.size(0) != src.size(0) or (
                    ids.size(1) != self.cfg.context_size):
                raise ValueError(f"context[{side!r}] must be (B={src.size(0)}, "
                                 f"K={self.cfg.context_size}, L), got "
                                 f"{tuple(ids.shape)}")
        return {side: context[side] for side in self.context_sides}


class HanEncoder(HanTransformer):
    """HAN encoder: over the previous source sentences' encoder states."""

    places = ("encoder",)
    context_sides = ("src",)


class HanDecoder(HanTransformer):
    """HAN decoder: over the previous sentences' decoder states."""

    places = ("decoder",)
    context_sides = ("src", "tgt")


class HanEncoderDecoder(HanTransformer):
    """HAN encoder + HAN decoder, initialised from a trained `han_enc`."""

    places = ("encoder", "decoder")
    context_sides = ("src", "tgt")
    init_modules = ("han_encoder",)


VARIANTS: dict[str, type[HanTransformer]] = {
    "han_enc": HanEncoder, "han_dec": HanDecoder, "han_enc_dec": HanEncoderDecoder}

for _arch, _cls in VARIANTS.items():
    register_model(_arch)(_cls)
