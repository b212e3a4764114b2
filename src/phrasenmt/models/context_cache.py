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

import numpy as np
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
    lines a split needs); `lookup` lays them out for a batch. The states of a
    side are rows of one flat tensor (row 0 zeros, the padding), and line j
    holds `length[side][j]` rows from `start[side][j]`; `lookup` is then one
    gather for a whole batch, not one copy per context sentence (on a GPU a
    kernel each, hundreds an update).
    """

    def __init__(self, model: nn.Module, lines: dict[str, Sequence[Ids]],
                 needed: Sequence[int] = ()):
        self.model, self.lines, self.needed = model, lines, list(needed)
        self.sides: tuple[str, ...] = model.frozen_state_sides
        self.d_model = model.cfg.d_model
        # per side and line: its first row in `flat` and its row count (0: not
        # held); they grow with `lines` (a `decoding.context.StatePool` adds lines)
        self.start = {s: np.zeros(len(lines[s]), dtype=np.int64) for s in self.sides}
        self.length = {s: np.zeros(len(lines[s]), dtype=np.int64) for s in self.sides}
        self.flat: dict[str, Tensor | None] = dict.fromkeys(self.sides)
        self.used = dict.fromkeys(self.sides, 1)  # rows of `flat` in use (row 0: zeros)
        # `start` and `length` on the states' device, for `gather` (rebuilt after `add`)
        self.tables: dict[str, tuple[Tensor, Tensor]] = {}

    def holds(self, j: int) -> bool:
        """Whether line j's states are held."""
        held = self.length[self.sides[0]]
        return j < held.size and bool(held[j])

    def missing(self, lines: np.ndarray) -> list[int]:
        """The lines (-1: none) whose states are not held, each once (the
        batch's lines checked at once: a lookup on the hot path)."""
        wanted = np.unique(lines[lines >= 0])
        held = self.length[self.sides[0]]
        known = wanted < held.size
        return [*wanted[~known].tolist(), *wanted[known][held[wanted[known]] == 0].tolist()]

    def held(self, side: str) -> list[int]:
        """The lines whose states on the side are held, in index order."""
        return np.flatnonzero(self.length[side]).tolist()

    def state(self, side: str, j: int) -> Tensor:
        """Line j's states (L_j, C) on the side (held)."""
        start = int(self.start[side][j])
        return self.flat[side][start: start + int(self.length[side][j])]

    @property
    def empty(self) -> bool:
        """Whether no line's states are held yet."""
        return self.used[self.sides[0]] == 1

    def nbytes(self, indices: Sequence[int] | None = None) -> int:
        """Bytes the states of `indices` (default: the needed lines) take (fp32)."""
        indices = self.needed if indices is None else indices
        tokens = sum(len(self.lines[s][j]) + 1 for s in self.sides for j in indices)
        return 4 * self.d_model * tokens

    def add(self, indices: Sequence[int]) -> None:
        """Compute and keep the states of the lines `indices` not held yet."""
        todo = [j for j in dict.fromkeys(indices) if not self.holds(j)]
        if not todo:
            return
        device = next(self.model.parameters()).device
        rows = {s: [torch.tensor([*self.lines[s][j], EOS], device=device)
                    for j in todo] for s in self.model.context_sides}
        states = self.model.line_states(rows["src"], rows.get("tgt"))
        for side in self.sides:
            self.append(side, todo, states[side])

    def fit(self, side: str, lines: int) -> None:
        """`start` and `length` of the side cover `lines` lines."""
        if self.length[side].size < lines:
            for table in (self.start, self.length):
                table[side] = np.concatenate(
                    [table[side], np.zeros(lines - table[side].size, dtype=np.int64)])

    def append(self, side: str, todo: Sequence[int], values: Sequence[Tensor]) -> None:
        """Lines `todo`'s states (L_j, C) into the side's flat tensor, which
        doubles when full (decoding adds lines a chunk at a time)."""
        need = self.used[side] + sum(v.size(0) for v in values)
        flat = self.flat[side]
        if flat is None or flat.size(0) < need:
            like = values[0]
            grown = like.new_zeros(max(need, 2 * (0 if flat is None else flat.size(0))),
                                   self.d_model)
            if flat is not None:
                grown[: self.used[side]] = flat[: self.used[side]]
            self.flat[side] = flat = grown
        self.fit(side, max(todo) + 1)
        start = self.used[side]
        flat[start: need] = torch.cat([v.to(flat.dtype) for v in values])
        for j, value in zip(todo, values, strict=True):
            self.start[side][j], self.length[side][j] = start, value.size(0)
            start += value.size(0)
        self.used[side] = need
        self.tables.pop(side, None)

    def prepare(self) -> None:
        """Compute the states of every needed line not held yet."""
        self.add(self.needed)

    def lookup(self, index: Tensor, widths: dict[str, int] | None = None
               ) -> dict[str, Tensor]:
        """Line indices (B, K), -1 where no line (`DocContext.batch`'s "index")
        -> {"<side>_states": (B, K, L, C)}, zeros where no line, L the longest
        line (1 when there is none; as `place`) or the side's `widths` where
        that is more (the batch's context ids padded to a length bucket); the
        first call computes every needed line (`prepare`), any later line not
        held yet is computed when asked for."""
        lines = index.cpu().numpy()
        if self.empty:
            self.prepare()  # the first batch: every needed line in one pass
        self.add(self.missing(lines))
        like = next(self.model.parameters())
        widths = widths or {}
        return {f"{side}_states": self.gather(side, index, lines, like,
                                              widths.get(side, 1))
                for side in self.sides}

    def gather(self, side: str, index: Tensor, lines: np.ndarray, like: Tensor,
               width: int = 1) -> Tensor:
        """The states of the lines `index` (B, K) (-1: none; `lines` the same on
        the host) from the flat tensor in one gather -> (B, K, L, C), L at least
        `width`. The host reads only its own copies (L from `lines`), and the
        rows to gather are worked out on the states' device: on a GPU nothing
        waits for it (the trainer's batches come in pinned memory)."""
        present = lines >= 0
        flat = self.flat[side]
        if flat is None or not present.any():  # no line: zeros as `place` gives them
            return like.new_zeros(*lines.shape, width, self.d_model)
        count = self.length[side][np.where(present, lines, 0)][present]
        longest = max(int(count.max()), width)
        if side not in self.tables:
            self.tables[side] = (torch.from_numpy(self.start[side]).to(flat.device),
                                 torch.from_numpy(self.length[side]).to(flat.device))
        start, length = self.tables[side]
        index = index.to(flat.device, non_blocking=True)
        real, at = index >= 0, index.clamp(min=0)
        first = torch.where(real, start[at], 0)[..., None]  # (B, K, 1)
        steps = torch.arange(longest, device=flat.device)
        rows = torch.where(steps < torch.where(real, length[at], 0)[..., None],
                           first + steps, 0)  # (B, K, L); 0: the zero row
        return flat[rows]


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
