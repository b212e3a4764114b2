"""Transformer with source phrase representations (Xu et al. 2020).

Every encoder layer pools its input into phrase vectors R^k (Eq. 2-5) and runs
attentive combination over them (Eq. 7-8) -> self-attention -> feed-forward.
Every decoder layer runs self-attention -> attentive combination over source
phrases -> attention over source tokens -> feed-forward. Decoder layer j reads
the phrases of the last encoder level, or with Transparent Attention (Eq. 6) a
softmax-weighted sum over the d+1 levels (0 = embeddings, k = output of encoder
layer k). The variants of the paper's Table 2 are registered as separate archs
whose configs differ only in defaults. Shapes: B batch, S source length, P
phrases, T target length, C d_model, J decoder layers.
"""

from __future__ import annotations

from torch import Tensor, nn

from phrasenmt.hparams.phrase_transformer import (  # noqa: F401
    SEGMENTATIONS,
    VARIANTS,
    PhraseTransformerConfig,
)
from phrasenmt.io import InputError
from phrasenmt.models.attention import Cache
from phrasenmt.models.layers import DecoderLayer, EncoderLayer, _Residual
from phrasenmt.models.phrase_repr import (
    AttentiveCombination,
    PhrasePooling,
    Segments,
    TransparentAttention,
)
from phrasenmt.models.registry import register_model
from phrasenmt.models.transformer import (
    State,
    Transformer,
    TransformerDecoder,
    TransformerEncoder,
)
from phrasenmt.text.vocab import PAD


def _combination(cfg: PhraseTransformerConfig) -> AttentiveCombination:
    """The attentive combination over phrases (Eq. 7-8) both layer kinds use."""
    return AttentiveCombination(cfg.d_model, cfg.n_heads, cfg.attention_dropout,
                                cfg.combine_hidden or cfg.d_model)


class PhraseEncoderLayer(EncoderLayer):
    """Attentive combination over phrases -> self-attention -> feed-forward."""

    def __init__(self, cfg: PhraseTransformerConfig):
        super().__init__(cfg.d_model, cfg.n_heads, cfg.d_ff, cfg.dropout,
                         cfg.attention_dropout, cfg.activation_dropout, cfg.pre_norm)
        self.combine = _combination(cfg)
        self.res0 = _Residual(cfg.d_model, cfg.dropout, cfg.pre_norm)

    def forward(self, x: Tensor, mask: Tensor | None, phrases: Tensor | None = None,
                phrase_mask: Tensor | None = None) -> Tensor:
        """x (B, S, C) with phrases (B, P, C) -> (B, S, C)."""
        x = self.res0(x, lambda h: self.combine(h, phrases, phrase_mask))
        return super().forward(x, mask)


class PhraseDecoderLayer(DecoderLayer):
    """Self-attention -> phrases -> source tokens -> feed-forward."""

    def __init__(self, cfg: PhraseTransformerConfig):
        super().__init__(cfg.d_model, cfg.n_heads, cfg.d_ff, cfg.dropout,
                         cfg.attention_dropout, cfg.activation_dropout, cfg.pre_norm)
        self.combine = _combination(cfg)
        self.res_phrase = _Residual(cfg.d_model, cfg.dropout, cfg.pre_norm)

    def forward(self, x: Tensor, memory: Tensor, mem_mask: Tensor | None,
                cache: Cache | None = None, phrases: Tensor | None = None,
                phrase_mask: Tensor | None = None) -> Tensor:
        """x (B, T, C), memory (B, S, C), phrases (B, P, C) -> (B, T, C)."""
        x = self.res1(x, lambda h: self.self_attn(h, causal=True, cache=cache))
        x = self.res_phrase(x, lambda h: self.combine(h, phrases, phrase_mask, cache))
        x = self.res2(x, lambda h: self.cross_attn(h, memory, mem_mask, cache))
        return self.res3(x, self.ff)


class PhraseEncoder(TransformerEncoder):
    """Token encoder that also returns the phrase vectors for the decoder."""

    def __init__(self, cfg: PhraseTransformerConfig):
        super().__init__(cfg)
        self.layers = nn.ModuleList(PhraseEncoderLayer(cfg)
                                    for _ in range(cfg.encoder_layers))
        hidden = cfg.phrase_hidden or cfg.d_model
        # One pooling per level: inputs of layers 1..d, then the encoder output.
        self.pool = nn.ModuleList(PhrasePooling(cfg.d_model, cfg.glance,
                                                cfg.attentive, hidden)
                                  for _ in range(cfg.encoder_layers + 1))
        self.ta = (TransparentAttention(cfg.encoder_layers + 1, cfg.decoder_layers)
                   if cfg.transparent else None)

    def forward(self, src: Tensor, phrases: Tensor, n_phrases: int | None = None
                ) -> State:
        """src (B, S), phrases (B, S) -> memory, masks and phrase memory;
        `n_phrases` as in `Segments.build`."""
        mask = src.ne(PAD)[:, None, None, :]  # (B, 1, 1, S)
        seg = Segments.build(phrases, n_phrases)
        phrase_mask = seg.phrase_mask()  # (B, 1, 1, P)
        x = self.embed(src)  # (B, S, C)
        levels = []
        for pool, layer in zip(self.pool, self.layers, strict=False):
            levels.append(pool(x, seg))  # R^k from this layer's input (B, P, C)
            x = layer(x, mask, levels[-1], phrase_mask)
        x = self.norm(x)
        levels.append(self.pool[-1](x, seg))  # R^d from the encoder output
        if self.ta is None:
            phrase_memory = levels[-1][:, None]  # (B, 1, P, C) shared by all layers
        else:
            phrase_memory = self.ta(levels)  # (B, J, P, C)
        return {"memory": x, "src_mask": mask, "phrase_memory": phrase_memory,
                "phrase_mask": phrase_mask}


class PhraseDecoder(TransformerDecoder):
    """Decoder whose layers also attend to the source phrases."""

    def __init__(self, cfg: PhraseTransformerConfig):
        super().__init__(cfg)
        self.layers = nn.ModuleList(PhraseDecoderLayer(cfg)
                                    for _ in range(cfg.decoder_layers))

    def features(self, tgt: Tensor, state: State, cache=None, offset: int = 0) -> Tensor:
        """tgt (B, T) ids starting at position `offset` -> output-layer input (B, T, C)."""
        x = self.embed(tgt, offset)  # (B, T, C)
        phrases = state.get("phrase_memory")  # (B, J or 1, P, C); None once cached
        for j, layer in enumerate(self.layers):
            layer_cache = None if cache is None else cache.setdefault(j, {})
            mine = None if phrases is None else phrases[:, min(j, phrases.size(1) - 1)]
            x = layer(x, state["memory"], state["src_mask"], layer_cache, mine,
                      state["phrase_mask"])
        return self.norm(x)


class PhraseTransformer(Transformer):
    """Transformer + phrase representations; reads the side input `phrases`."""

    config_class = PhraseTransformerConfig
    side_inputs = ("phrases",)

    def __init__(self, cfg: PhraseTransformerConfig):
        cfg.check()
        nn.Module.__init__(self)
        if cfg.src_vocab_size <= 0 or cfg.tgt_vocab_size <= 0:
            raise ValueError("src_vocab_size and tgt_vocab_size must be set")
        self.cfg = cfg
        self.encoder = PhraseEncoder(cfg)
        self.decoder = PhraseDecoder(cfg)
        self._init_linear_layers()

    def encode(self, src: Tensor, phrases: Tensor | None = None,
               n_phrases: int | None = None, **side: Tensor) -> State:
        """src (B, S), phrases (B, S) -> decoder state (memory + phrase memory);
        `n_phrases`: 1 + the largest phrase id, when known on the host."""
        if phrases is None:
            raise InputError("this model needs the side input 'phrases' "
                             "(--side phrases=FILE)", "--side")
        return self.encoder(src, phrases, n_phrases)

    def side_arguments(self, batch) -> dict:
        """The side inputs, and the phrase count the batch was collated with
        (no read-back of the ids to size the phrase tensors)."""
        return {**batch.side, "n_phrases": batch.side_sizes.get("phrases")}

    @staticmethod
    def reorder_state(state: State, cache, order: Tensor,
                      sentences: Tensor | None = None):
        """As the Transformer's, but once every layer has cached the phrases'
        keys and values the phrase memory is dropped instead of copied."""
        if cache and all("phr_k" in layer for layer in cache.values()):
            state = {k: v for k, v in state.items() if k != "phrase_memory"}
        return Transformer.reorder_state(state, cache, order, sentences)


for _arch, _config in VARIANTS.items():
    register_model(_arch)(type(f"PhraseTransformer_{_arch}", (PhraseTransformer,),
                                 {"config_class": _config, "__doc__": _config.__doc__}))
