"""Frozen context states for a training run: computed once per sentence.

A document model whose context states come from frozen parameters (a HAN in
step 2: `frozen_state_sides`, θ_s frozen) gets, per split, a
`models.context_cache.ContextStates` of the lines that are some pair's context
(the real K previous lines, or a random-context control's lines: the same
lookup by index). The split's `DocContext` then adds each slot's line index to
its batches, and `with_states` swaps it for the states. A split's states
are computed in one pass at the first batch that needs them (after a resumed
run has restored its weights): for the training split only the lines that the
updates left to max_steps read (`Trainer._narrow_context_states`; every line
where those updates take two epochs or more), for the dev split every line;
they are kept in device memory, at most
`train.context_cache_mb` for all splits together; where they would take more,
one log line says so and they are computed with every batch instead (the same
states: the run is the same either way).
"""

from __future__ import annotations

from torch import nn

from phrasenmt.log import get_logger
from phrasenmt.models.context_cache import BYTES_PER_MB, ContextStates
from phrasenmt.nn.batching import Batch
from phrasenmt.training.data import Corpus

_log = get_logger(__name__)


def context_caches(model: nn.Module, corpora: dict[str, Corpus], limit_mb: float,
                   log: bool = True) -> dict[str, ContextStates]:
    """Split name -> its context states, for a model whose context states are
    frozen, within `limit_mb` (0: none); sets the splits' `with_index`."""
    if not getattr(model, "frozen_state_sides", ()) or not model.sentence_frozen():
        return {}
    docs = {name: c.context for name, c in corpora.items() if c.context is not None}
    stores = {name: ContextStates(model, d.sentences, d.needed())
              for name, d in docs.items()}
    need = sum(s.nbytes() for s in stores.values())
    lines = sum(len(s.needed) for s in stores.values())
    if limit_mb <= 0:
        return {}
    if need > limit_mb * BYTES_PER_MB:
        if log:
            _log.warning(f"context cache: the frozen context states of {lines:,} "
                         f"sentences take {need / BYTES_PER_MB:,.0f} MB, over "
                         f"train.context_cache_mb ({limit_mb:g}); they are computed "
                         "with every batch instead (raise the limit to keep them)")
        return {}
    for d in docs.values():
        d.with_index = True
    if log:
        _log.info(f"context cache: the frozen context states of up to {lines:,} "
                  f"sentences ({need / BYTES_PER_MB:,.1f} MB) are computed once each")
    return stores


def with_states(batch: Batch, store: ContextStates | None) -> Batch:
    """The batch with its context's "index" replaced by the states it names."""
    if store is None or "index" not in batch.context:
        return batch
    context = dict(batch.context)
    index = context.pop("index")
    context.update(store.lookup(index, {s: context[s].size(2) for s in store.sides}))
    batch.context = context
    return batch
