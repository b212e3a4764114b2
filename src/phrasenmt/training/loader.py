"""The batches of each update, collated one update ahead in a thread.

The trainer's data path off the critical path: while the model computes
update k, a worker thread collates (and, for CUDA, pins) the batches of
update k+1. Which batches make an update is decided on the calling thread
from the batch lengths alone, so every rank picks the same list and collates
only its own share (`Distributed.share`). Collation draws no random numbers:
the global RNG is untouched, and so is the order of batches.

`state_dict` is the batch iterator's state after the updates handed out so
far, not after the one prepared ahead: a checkpoint resumes exactly at the
next update whatever the prefetch had done.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any

import torch

from phrasenmt.nn.batching import Batch, BatchIterator, PackedCorpus
from phrasenmt.training.data import Corpus, empty_context_mask


def pack(corpus: Corpus) -> PackedCorpus:
    """A training Corpus packed for one-gather collation."""
    return PackedCorpus.pack(corpus.src, corpus.tgt, corpus.side)


def collate_pairs(packed: PackedCorpus, corpus: Corpus, indices: Sequence[int],
                  empty: Sequence[bool] | None = None,
                  buckets: Sequence[int] = ()) -> Batch:
    """The batch of pairs `indices` (host memory), with their document context
    (empty for the pairs flagged in `empty`, indexed by pair: context dropout),
    each side and the context padded to its bucket's width
    (`train.length_buckets`)."""
    # Context by the pairs' own indices, never from the batch's other rows.
    context = corpus.context.batch(indices, empty, buckets) if corpus.context else None
    return packed.collate(indices, context, buckets)


class UpdateLoader:
    """Endless updates: (this rank's batches on the device with their weights,
    the update's target tokens); an update holds batches until `update_tokens`
    target tokens. A rank without a batch gets the first with weight 0: it
    still joins DDP's gradient sum. With `empty_context_rate` (context dropout,
    document corpora only) each pair reads an empty context in an epoch with that
    probability, drawn from (seed, epoch) on the calling thread."""

    def __init__(self, corpus: Corpus, batches: list[list[int]], seed: int,
                 update_tokens: int, share: Callable[[int], list[int]],
                 device: torch.device, prefetch: bool = True,
                 empty_context_rate: float = 0.0, buckets: Sequence[int] = ()):
        self.corpus, self.packed, self.buckets = corpus, pack(corpus), tuple(buckets)
        self.seed, self.empty_context_rate = seed, empty_context_rate
        self._empty: tuple[int, list[bool]] = (0, [])  # epoch, its flags
        self.iterator = BatchIterator(batches, seed)
        self.update_tokens, self.share, self.device = update_tokens, share, device
        self._pool = ThreadPoolExecutor(1, "collate") if prefetch else None
        self._ahead: tuple[Any, int, float, dict[str, Any]] | None = None
        self._state = self.iterator.state_dict()

    def _plan(self) -> tuple[list[tuple[list[int], list[bool] | None]], int]:
        """The next update's batches (index lists, each with its epoch's
        context-dropout flags) and its target tokens."""
        picked, total = [], 0
        while total < self.update_tokens:
            batch = next(self.iterator)  # then .epoch is the batch's epoch
            picked.append((batch, self._empty_flags(self.iterator.epoch)))
            total += self.packed.target_tokens(batch)
        return picked, total

    def _empty_flags(self, epoch: int) -> list[bool] | None:
        """Which pairs read an empty context in `epoch` (None: no dropout)."""
        if not self.empty_context_rate or self.corpus.context is None:
            return None
        if self._empty[0] != epoch:
            self._empty = (epoch, empty_context_mask(
                len(self.corpus.src), self.empty_context_rate, self.seed, epoch))
        return self._empty[1]

    def _collate(self, mine: list[tuple[list[int], list[bool] | None]]
                 ) -> list[Batch]:
        out = [collate_pairs(self.packed, self.corpus, b, e, self.buckets)
               for b, e in mine]
        return [b.pin_memory() for b in out] if self.device.type == "cuda" else out

    def _prepare(self) -> None:
        """Plan the next update and start collating this rank's share of it."""
        picked, total = self._plan()
        mine = [picked[i] for i in self.share(len(picked))]
        weight = 1.0 if mine else 0.0
        mine = mine or picked[:1]
        work = (self._pool.submit(self._collate, mine) if self._pool
                else self._collate(mine))
        self._ahead = (work, total, weight, self.iterator.state_dict())

    def next_update(self) -> tuple[list[tuple[Batch, float]], int]:
        """This rank's batches of the next update (on the device, weighted) and
        the update's target tokens."""
        if self._ahead is None:
            self._prepare()
        work, total, weight, self._state = self._ahead  # type: ignore[misc]
        self._prepare()  # the following update, while this one computes
        batches = work.result() if isinstance(work, Future) else work
        non_blocking = self.device.type == "cuda"
        return [(b.to(self.device, non_blocking), weight) for b in batches], total

    def _updates_ahead(self, count: int) -> Iterator[list[Any]]:
        """Per update of the next `count`, its batches (every rank's: pair index
        arrays); nothing is taken."""
        ahead = BatchIterator(self.iterator.batches, self.iterator.seed)
        ahead.load_state_dict(self._state)
        for _ in range(count):
            batches, total = [], 0
            while total < self.update_tokens:
                rows = next(ahead)
                batches.append(rows)
                total += self.packed.target_tokens(rows)
            yield batches

    def lengths_ahead(self, count: int) -> list[list[tuple[Any, Any]]]:
        """Per update of the next `count`, per batch (every rank's): the source
        and target lengths of its pairs (no specials); nothing is taken."""
        return [[(self.packed.src.lengths[rows], self.packed.tgt.lengths[rows])
                 for rows in batches] for batches in self._updates_ahead(count)]

    def pairs_ahead(self, count: int) -> set[int] | None:
        """The pairs the next `count` updates read (every rank's), or None where
        they take two epochs' batches or more (then: every pair); nothing is
        taken."""
        pairs: set[int] = set()
        seen, limit = 0, 2 * len(self.iterator.batches)
        for batches in self._updates_ahead(count):
            for rows in batches:
                pairs.update(int(i) for i in rows)
            seen += len(batches)
            if seen >= limit:
                return None
        return pairs

    def state_dict(self) -> dict[str, Any]:
        """The iterator's state after the updates handed out (not the one ahead)."""
        return dict(self._state)

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Continue from a `state_dict`; what was prepared ahead is dropped."""
        if self._ahead is not None and isinstance(self._ahead[0], Future):
            wait([self._ahead[0]])  # the worker finishes before the rewind
        self._ahead = None
        self.iterator.load_state_dict(state)
        self._state = self.iterator.state_dict()

    def close(self) -> None:
        """Stop the worker thread."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
