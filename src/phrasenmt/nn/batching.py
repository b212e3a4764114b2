"""Token-based batching with length bucketing, deterministic given a seed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import Tensor

from phrasenmt.text.vocab import BOS, EOS, PAD

SIDE_PAD = -1  # padding of side-input tensors (see phrasenmt.models.base)


@dataclass
class Batch:
    """One padded batch of sentence pairs, ready for teacher forcing."""

    src: Tensor  # (B, S) source ids + </s>, right-padded with <pad>
    tgt_in: Tensor  # (B, T) <s> + target ids, right-padded
    tgt_out: Tensor  # (B, T) target ids + </s>, right-padded
    ntokens: int  # real target tokens, </s> included
    side: dict[str, Tensor] = field(default_factory=dict)  # name -> (B, S), pad -1
    # Document context by side ("src", "tgt") -> (B, K, Lc), see `pad_context`;
    # empty for models that read none.
    context: dict[str, Tensor] = field(default_factory=dict)
    # Per side input, 1 + its largest value in the batch (0 if all padding),
    # counted on the host when the batch is collated (`side_sizes`): a model
    # sizes its tensors by it (e.g. P phrases) without reading the device.
    side_sizes: dict[str, int] = field(default_factory=dict)

    def to(self, device: torch.device | str, non_blocking: bool = False) -> Batch:
        """The same batch on `device` (`non_blocking`: from pinned memory, the
        copy overlaps the GPU's work), but for the context's line "index": the
        host reads it to lay out frozen context states (`with_states`), and on a
        GPU reading it back would wait for the device in every forward pass."""
        index = self.context.get("index")
        return self.apply(lambda t: t if t is index
                          else t.to(device, non_blocking=non_blocking))

    def pin_memory(self) -> Batch:
        """The same batch in page-locked host memory (for non_blocking copies)."""
        return self.apply(lambda t: t.pin_memory())

    def apply(self, fn: Any) -> Batch:
        """The batch with `fn` applied to each of its tensors."""
        return Batch(fn(self.src), fn(self.tgt_in), fn(self.tgt_out), self.ntokens,
                     {k: fn(v) for k, v in self.side.items()},
                     {k: fn(v) for k, v in self.context.items()}, dict(self.side_sizes))


def bucket_width(width: int, buckets: Sequence[int] = ()) -> int:
    """`width` rounded up to the smallest of the increasing `buckets` that holds
    it (a width past the last bucket, or no buckets, stays as it is)."""
    for bucket in buckets:
        if bucket >= width:
            return bucket
    return width


def bucket_widths(widths: np.ndarray, buckets: Sequence[int] = ()) -> np.ndarray:
    """`bucket_width` of every entry of an int array, vectorised."""
    if not len(buckets):
        return widths
    edges = np.asarray(buckets, np.int64)
    at = np.searchsorted(edges, widths, side="left")  # first bucket >= width
    return np.where(at < len(edges), edges[np.minimum(at, len(edges) - 1)], widths)


def pad_sequences(seqs: Sequence[Sequence[int]], value: int = PAD,
                  length: int | None = None) -> Tensor:
    """Right-pad int lists with `value` into a (B, L) long tensor."""
    length = max(len(s) for s in seqs) if length is None else length
    out = torch.full((len(seqs), length), value, dtype=torch.long)
    for row, seq in enumerate(seqs):
        out[row, : len(seq)] = torch.as_tensor(seq, dtype=torch.long)
    return out


def collate(src: Sequence[Sequence[int]], tgt: Sequence[Sequence[int]],
            side: dict[str, Sequence[Sequence[int]]] | None = None,
            context: dict[str, Tensor] | None = None,
            buckets: Sequence[int] = ()) -> Batch:
    """Build a Batch from parallel id lists (no specials in the inputs); with
    `buckets`, each side padded to its bucket's width (`bucket_width`)."""
    s_width = bucket_width(max(len(s) for s in src) + 1, buckets)
    t_width = bucket_width(max(len(t) for t in tgt) + 1, buckets)
    src_ids = pad_sequences([[*s, EOS] for s in src], length=s_width)
    tgt_in = pad_sequences([[BOS, *t] for t in tgt], length=t_width)
    tgt_out = pad_sequences([[*t, EOS] for t in tgt], length=t_width)
    padded = pad_side(side or {}, src_ids.size(1))
    return Batch(src_ids, tgt_in, tgt_out, sum(len(t) + 1 for t in tgt), padded,
                 dict(context or {}), side_sizes(padded))


def side_sizes(side: dict[str, Tensor]) -> dict[str, int]:
    """Host side inputs (B, S), padded with -1 -> {name: 1 + largest value}."""
    for name, values in side.items():
        if values.device.type != "cpu":
            raise ValueError(f"side input {name!r}: count its values on the host, "
                             f"before it goes to {values.device}")
    return {name: int(values.max()) + 1 if values.numel() else 0
            for name, values in side.items()}


def pad_context(rows: Sequence[Sequence[Sequence[int]]], size: int,
                buckets: Sequence[int] = ()) -> Tensor:
    """Context sentences -> (B, K, Lc) ids; row b holds up to K id lists, oldest
    first. Slot K-1 is the previous sentence, K-2 the one before...; each
    sentence is followed by </s>, missing sentences and the rest are <pad>; Lc
    the longest, up to its bucket's width (`bucket_width`)."""
    if any(len(row) > size for row in rows):
        raise ValueError(f"more than {size} context sentences in a row")
    length = bucket_width(max((len(s) + 1 for row in rows for s in row), default=1),
                          buckets)
    out = torch.full((len(rows), size, length), PAD, dtype=torch.long)
    for b, row in enumerate(rows):
        for k, sentence in enumerate(row, start=size - len(row)):
            out[b, k, : len(sentence) + 1] = torch.as_tensor([*sentence, EOS])
    return out


def pad_side(side: dict[str, Sequence[Sequence[int]]], length: int
             ) -> dict[str, Tensor]:
    """Side inputs as (B, length) tensors padded with -1 (</s> included)."""
    return {name: pad_sequences(rows, SIDE_PAD, length) for name, rows in side.items()}


def make_batches(src_lens: Sequence[int], tgt_lens: Sequence[int],
                 max_tokens: int, seed: int,
                 buckets: Sequence[int] = ()) -> list[list[int]]:
    """Group sentence indices into batches of similar length.

    Sentences are sorted by (target, source) length, ties broken by a seeded
    shuffle, and cut so that batch size x longest side (with the added
    </s> or <s>) stays within `max_tokens`; a sentence longer than that alone
    forms a batch of one. With `buckets` each side's length counts as its
    bucket's width (`bucket_width`), as the batch is then padded: the batches
    of a bucket share one shape (batch size x width), so a GPU meets few shapes.
    """
    src_len = bucket_widths(np.asarray(src_lens, dtype=np.int64) + 1, buckets)
    tgt_len = bucket_widths(np.asarray(tgt_lens, dtype=np.int64) + 1, buckets)
    order = np.random.default_rng(seed).permutation(len(src_len))
    order = order[np.lexsort((src_len[order], tgt_len[order]))]
    batches: list[list[int]] = []
    current: list[int] = []
    longest = 0
    for i in order.tolist():
        size = max(int(src_len[i]), int(tgt_len[i]))
        if current and max(longest, size) * (len(current) + 1) > max_tokens:
            batches.append(current)
            current, longest = [], 0
        current.append(i)
        longest = max(longest, size)
    if current:
        batches.append(current)
    return batches


class BatchIterator:
    """Endless iterator over batches, reshuffled each epoch; resumable by state."""

    def __init__(self, batches: list[list[int]], seed: int):
        if not batches:
            raise ValueError("no batches to iterate over")
        self.batches, self.seed = batches, seed
        self.epoch, self.position = 1, 0
        self._order = self._epoch_order(self.epoch)

    def _epoch_order(self, epoch: int) -> list[int]:
        """The batch order of `epoch`: a permutation fixed by (seed, epoch)."""
        rng = np.random.default_rng([self.seed, epoch])
        return rng.permutation(len(self.batches)).tolist()

    def __iter__(self) -> BatchIterator:
        return self

    def __next__(self) -> list[int]:
        if self.position >= len(self.batches):
            self.epoch, self.position = self.epoch + 1, 0
            self._order = self._epoch_order(self.epoch)
        batch = self.batches[self._order[self.position]]
        self.position += 1
        return batch

    def state_dict(self) -> dict[str, Any]:
        """Epoch and position within the epoch's shuffled order."""
        return {"epoch": self.epoch, "position": self.position}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Continue from a `state_dict`."""
        self.epoch, self.position = int(state["epoch"]), int(state["position"])
        self._order = self._epoch_order(self.epoch)


class PackedSequences:
    """Id sequences as one flat array and offsets: sequence i is
    `ids[offsets[i]:offsets[i + 1]]` (a corpus without one object per sentence)."""

    def __init__(self, seqs: Sequence[Sequence[int]]):
        self.lengths = np.fromiter((len(s) for s in seqs), np.int64, len(seqs))
        self.offsets = np.zeros(len(seqs) + 1, np.int64)
        np.cumsum(self.lengths, out=self.offsets[1:])
        self.ids = np.fromiter((i for s in seqs for i in s), np.int64,
                               int(self.offsets[-1]))

    def __len__(self) -> int:
        return len(self.lengths)

    def pad(self, rows: np.ndarray, value: int, width: int, shift: int = 0,
            first: int | None = None, last: int | None = None) -> Tensor:
        """Sequences `rows` right-padded with `value` into (B, width), each one
        `shift` columns in (after `first` when given) and followed by `last`."""
        lengths = self.lengths[rows]
        out = np.full((len(rows), width), value, np.int64)
        starts = self.offsets[rows]
        total = int(lengths.sum())
        # One gather: the flat position of every token of the batch, and its cell.
        row_of = np.repeat(np.arange(len(rows)), lengths)
        within = np.arange(total) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        out[row_of, within + shift] = self.ids[np.repeat(starts, lengths) + within]
        if first is not None:
            out[:, 0] = first
        if last is not None:
            out[np.arange(len(rows)), lengths + shift] = last
        return torch.from_numpy(out)


@dataclass
class PackedCorpus:
    """A corpus packed for collating: source, target and side inputs."""

    src: PackedSequences
    tgt: PackedSequences
    side: dict[str, PackedSequences] = field(default_factory=dict)

    @classmethod
    def pack(cls, src: Sequence[Sequence[int]], tgt: Sequence[Sequence[int]],
             side: dict[str, Sequence[Sequence[int]]] | None = None) -> PackedCorpus:
        """Pack parallel id lists (no specials) and their side inputs."""
        return cls(PackedSequences(src), PackedSequences(tgt),
                   {name: PackedSequences(rows) for name, rows in (side or {}).items()})

    def target_tokens(self, indices: Sequence[int]) -> int:
        """Real target tokens of the pairs `indices`, </s> included."""
        return int(self.tgt.lengths[np.asarray(indices, np.int64)].sum()) + len(indices)

    def collate(self, indices: Sequence[int],
                context: dict[str, Tensor] | None = None,
                buckets: Sequence[int] = ()) -> Batch:
        """The Batch of pairs `indices`: equal to `collate` of their id lists."""
        rows = np.asarray(indices, np.int64)
        s_width = bucket_width(int(self.src.lengths[rows].max()) + 1, buckets)
        t_width = bucket_width(int(self.tgt.lengths[rows].max()) + 1, buckets)
        src = self.src.pad(rows, PAD, s_width, last=EOS)
        tgt_in = self.tgt.pad(rows, PAD, t_width, shift=1, first=BOS)
        tgt_out = self.tgt.pad(rows, PAD, t_width, last=EOS)
        side = {name: packed.pad(rows, SIDE_PAD, s_width)
                for name, packed in self.side.items()}
        ntokens = int(self.tgt.lengths[rows].sum()) + len(rows)
        return Batch(src, tgt_in, tgt_out, ntokens, side, dict(context or {}),
                     side_sizes(side))
