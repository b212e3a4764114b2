"""The config of the attention RNN with NPMT's soft local reordering layer in
front (Huang et al. 2018, Section 3.1's ablation), and the window's check."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import Field

from phrasenmt.hparams.attn_rnn import RNNConfig, base_rnn, tiny_rnn
from phrasenmt.hparams.registry import register_config, register_preset
from phrasenmt.io import InputError


def check_window(window: int, key: str = "model.window") -> None:
    """A reordering window must be odd (centred) and positive; else InputError."""
    if window < 1 or window % 2 == 0:
        raise InputError(f"reordering window must be an odd number >= 1 (2τ+1), "
                         f"got {window}", key)


@dataclass
class ReorderRNNConfig(RNNConfig):
    """The attention RNN's settings plus the reordering window."""

    window: Annotated[int, Field(
        ge=1, description="reordering window 2τ+1 (odd); the paper's 7")] = 7

    def check(self) -> None:
        """The RNN's checks plus an odd window."""
        super().check()
        check_window(self.window)


register_config("attn_rnn_reorder", ReorderRNNConfig)
register_preset("attn_rnn_reorder", "tiny")(tiny_rnn)
register_preset("attn_rnn_reorder", "base")(base_rnn)
