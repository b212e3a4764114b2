"""Translation models, registered by name (see `registry`).

Each model family is imported here explicitly so that importing
`phrasenmt.models` registers it; a new family adds one import line.
"""

from phrasenmt.models import (
    attn_rnn,  # noqa: F401  (registers "attn_rnn")
    continuous,  # noqa: F401  (conmt, pconmt_*)
    ctx_transformer,  # noqa: F401  (ctx_transformer, ctx_transformer_enc/_dec)
    han,  # noqa: F401  (registers han_enc, han_dec, han_enc_dec)
    npmt,  # noqa: F401  (registers npmt, npmt_noreorder)
    phrase_transformer,  # noqa: F401  (registers pr_*)
    reordering,  # noqa: F401  (registers attn_rnn_reorder)
    transformer,  # noqa: F401  (registers "transformer")
)
from phrasenmt.models.registry import (
    MODELS,
    PRESETS,
    build_model,
    get_model_class,
    register_model,
    register_preset,
)

__all__ = ["MODELS", "PRESETS", "build_model", "get_model_class", "register_model",
           "register_preset"]
