"""Frozen context states, computed once per sentence and looked up by index.

In step 2 of a HAN (Miculicich et al. 2018) θ_s are frozen, so the
sentence-level states a context sentence contributes (its encoder states, and
for the decoder-side HAN its teacher-forced decoder states) are a function of
that sentence alone. A model that has such states names them in
`frozen_state_sides` and computes them with `line_states` (θ_s in eval mode, no
gradient, each sentence with equal-length peers only, so without padding);
`ContextStates` keeps them by line index, and `lookup` lays them out as the
(B, K, L, C) tensors the model reads from its context as `<side>_states`
instead of encoding the context ids again (`LINE_CHUNK` says why a line's
states do not depend on the lines computed with it). A model given no states computes
the same ones per batch (`line_states` on the batch's sentences), so a run
with the store equals one without it bit for bit.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import torch
from torch import Tensor, nn

from phrasenmt.text.vocab import EOS

Ids = Sequence[int]
BYTES_PER_MB = 2 ** 20


@contextmanager
def evaluating(*modules: nn.Module) -> Iterator[None]:
    """Within the block the modules run in eval mode (dropout off)."""
    modes = [m.training for m in modules]
    for m in modules:
        m.train(False)
    try:
        yield
    finally:
        for m, mode in zip(modules, modes, strict=True):
            m.train(mode)


# Context lines are computed in chunks of exactly this many rows (a short chunk
# is filled with copies of its first row): a matrix product's rounding may
# depend on its number of rows, never (measured on CPU) on a row's neighbours,
# so a line's states are the same whichever lines share its chunk.
LINE_CHUNK = 8


def length_groups(keys: Sequence[tuple[int, ...]]) -> list[list[int]]:
    """Row numbers grouped by equal `keys` (lengths), in chunks of at most
    LINE_CHUNK rows."""
    groups: dict[tuple[int, ...], list[int]] = {}
    for n, key in enumerate(keys):
        groups.setdefault(key, []).append(n)
    return [rows[i: i + LINE_CHUNK] for _, rows in sorted(groups.items())
            for i in range(0, len(rows), LINE_CHUNK)]


def stack_chunk(rows: Sequence[Tensor]) -> Tensor:
    """Equal-length rows -> (LINE_CHUNK, L), filled with copies of the first."""
    return torch.stack([*rows, *[rows[0]] * (LINE_CHUNK - len(rows))])


class ContextStates:
    """The frozen states of context lines by line index, for one split.

    `lines[side][j]` is line j's ids on that side (no </s>); `add` computes the
    states of lines not held yet (in one pass over them all: `prepare` for the
    lines a split needs); `lookup` lays them out for a batch.
    """

    def __init__(self, model: nn.Module, lines: dict[str, Sequence[Ids]],
                 needed: Sequence[int] = ()):
        self.model, self.lines, self.needed = model, lines, list(needed)
        self.sides: tuple[str, ...] = model.frozen_state_sides
        self.held: dict[str, dict[int, Tensor]] = {s: {} for s in self.sides}
        self.d_model = model.cfg.d_model

    def nbytes(self, indices: Sequence[int] | None = None) -> int:
        """Bytes the states of `indices` (default: the needed lines) take (fp32)."""
        indices = self.needed if indices is None else indices
        tokens = sum(len(self.lines[s][j]) + 1 for s in self.sides for j in indices)
        return 4 * self.d_model * tokens

    def add(self, indices: Sequence[int]) -> None:
        """Compute and keep the states of the lines `indices` not held yet."""
        todo = [j for j in dict.fromkeys(indices) if j not in self.held[self.sides[0]]]
        if not todo:
            return
        device = next(self.model.parameters()).device
        rows = {s: [torch.tensor([*self.lines[s][j], EOS], device=device)
                    for j in todo] for s in self.model.context_sides}
        states = self.model.line_states(rows["src"], rows.get("tgt"))
        for side in self.sides:
            for j, value in zip(todo, states[side], strict=True):
                self.held[side][j] = value

    def prepare(self) -> None:
        """Compute the states of every needed line not held yet."""
        self.add(self.needed)

    def lookup(self, index: Tensor) -> dict[str, Tensor]:
        """Line indices (B, K), -1 where no line (`DocContext.batch`'s "index")
        -> {"<side>_states": (B, K, L, C)}, zeros where no line; the first call
        computes every needed line (`prepare`), any later line not held yet is
        computed when asked for."""
        rows = index.tolist()
        if not self.held[self.sides[0]]:
            self.prepare()  # the first batch: every needed line in one pass
        self.add([j for row in rows for j in row if j >= 0])
        like = next(self.model.parameters())
        empty = like.new_zeros(0, self.d_model)
        return {f"{side}_states": place(
            [[self.held[side][j] if j >= 0 else empty for j in row] for row in rows],
            index.size(1), self.d_model, like) for side in self.sides}


def place(rows: Sequence[Sequence[Tensor]], size: int, d_model: int,
          like: Tensor) -> Tensor:
    """Per row up to `size` states (L_j, C), oldest first -> (B, K, L, C), each
    in slot K - len(row) + k (as `pad_context`), zeros elsewhere; L the longest
    (1 when there are none, as `pad_context`)."""
    flat = [like.new_zeros(0, d_model)] * (len(rows) * size)
    for b, row in enumerate(rows):
        for k, value in enumerate(row, start=size - len(row)):
            flat[b * size + k] = value
    if all(t.size(0) == 0 for t in flat):
        flat[0] = like.new_zeros(1, d_model)
    dtype = next((t.dtype for t in flat if t.numel()), like.dtype)
    out = nn.utils.rnn.pad_sequence([t.to(dtype) for t in flat], batch_first=True)
    return out.view(len(rows), size, *out.shape[1:])
