"""Each arch's hyperparameters without its model code (and so without torch).

One module per model family, named as the family's module in
`phrasenmt.models`, holds its config dataclass and named presets and declares
its archs in `registry`; the model classes register on top of them. Importing
`phrasenmt.hparams` declares every family; a new family adds one import line.
The workflow's start-up checks read these classes (`training.spec`).

Each field declares its type, bound and description in its annotation
(`phrasenmt.fields`); `validate(cfg)` checks every field against it, and a
class's `check()` runs that and then its rules between fields.
"""

from phrasenmt.hparams import (
    attn_rnn,  # noqa: F401  (declares "attn_rnn")
    continuous,  # noqa: F401  (conmt, pconmt_*)
    ctx_transformer,  # noqa: F401  (ctx_transformer, ctx_transformer_enc/_dec)
    han,  # noqa: F401  (han_enc, han_dec, han_enc_dec)
    npmt,  # noqa: F401  (npmt, npmt_noreorder)
    phrase_transformer,  # noqa: F401  (pr_*)
    reordering,  # noqa: F401  (attn_rnn_reorder)
    transformer,  # noqa: F401  ("transformer")
)
from phrasenmt.hparams.registry import (
    CONFIGS,
    PRESETS,
    config_class,
    get_preset,
    validate,
)

__all__ = ["CONFIGS", "PRESETS", "config_class", "get_preset", "validate"]
