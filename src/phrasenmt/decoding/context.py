"""Document context at decoding and scoring time (`translate --docs/--context`).

The context of a test line is looked up by index, as in training: with
`--docs`, the K previous lines of its document; with `--context`, the sentences
an explicit JSON Lines file gives it (contrastive items). Source context is the
BPE'd source. Target context is, in forced scoring, the reference of the
previous lines (or the file's "tgt"); in translation, the model's own earlier
translations, never the references: documents are decoded in rounds, round r
translating the r-th sentence of every document in one pass, so that when a
sentence is decoded its predecessors' translations exist.

A model with frozen context states (a HAN: `frozen_state_sides`) gets them
from a `models.context_cache.ContextStates` of the test lines wherever the
context is looked up by index (--docs) in translation: each line's states are
computed once, the first time a batch needs them (a target line's once it is
translated), instead of once per line whose context it is and per batch. In
forced scoring a `StatePool` keys them by the sentence itself, so an explicit
--context file's sentences (a contrastive set gives every item's variants the
same context) are computed once too. They are the states the model computes
from the context ids itself, so the output is the same.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import Tensor, nn

from phrasenmt.data.documents import (
    context_indices,
    context_mode,
    documents,
    random_explicit_context,
    read_context_file,
    read_docs,
)
from phrasenmt.decoding.postprocess import remove_bpe
from phrasenmt.decoding.scoring import forced_log_probs, forced_token_log_probs
from phrasenmt.decoding.search import beam_search, greedy_search
from phrasenmt.io import InputError
from phrasenmt.models.context_cache import ContextStates
from phrasenmt.nn.batching import pad_context, pad_sequences, pad_side
from phrasenmt.text.vocab import BOS, EOS, PAD, Vocabulary

Ids = list[int]
Rows = dict[str, Mapping[int, list[Ids]]]  # side -> line -> context sentences


@dataclass
class StateLookup:
    """A model's frozen context states and the context line indices per line."""

    store: ContextStates
    indices: list[list[int]]  # per line: its context lines, oldest first

    def states(self, chunk: list[int], size: int) -> dict[str, Tensor]:
        """The "<side>_states" of the lines `chunk` (as `pad_context` places)."""
        index = torch.tensor([[-1] * (size - len(self.indices[i])) + self.indices[i]
                              for i in chunk], dtype=torch.long)
        return self.store.lookup(index)


def state_lookup(model: nn.Module, lines: dict[str, list[Ids]],
                 indices: list[list[int]]) -> StateLookup | None:
    """A StateLookup over `lines` for a model with frozen context states."""
    if not getattr(model, "frozen_state_sides", ()):
        return None
    return StateLookup(ContextStates(model, lines), indices)


@dataclass
class ContextSource:
    """Where a test set's context comes from: document ids or explicit items."""

    doc_ids: list[str] | None = None  # --docs: one id per line
    entries: list[dict[str, list[str]]] | None = None  # --context: per line
    # what the model reads: context_mode(), or scored_context()'s (mode, seed,
    # seed of the draw to avoid)
    mode: tuple = ("real", 1)


@dataclass
class Search:
    """Decoding settings (as `translate` takes them)."""

    beam: int = 4
    lenpen: float = 0.6
    max_len_a: float = 1.5
    max_len_b: float = 10
    batch_size: int = 64


CONTEXT_AS = ("own", "none", "random")  # what `--context-as` gives the model


def scored_context(own: tuple[str, int], context_as: str) -> tuple:
    """The context mode to score or decode with: the model's own, none, or a
    random context drawn with another seed than the model's own (so that a
    random-context control meets sentences it was not trained with). For a
    random-context control the draw also avoids, line by line, the document (or
    explicit context) its own draw gives, wherever a third one exists: its CXMI
    against a random context then never compares a context with itself."""
    if context_as == "own":
        return own
    if context_as == "random" and own[0] == "random":
        return (context_as, own[1] + 1, own[1])
    return (context_as, own[1] + 1)


def random_drawn_again(source: ContextSource, size: int) -> dict[str, int] | None:
    """For a random-context control (`source.mode` random): of the lines with a
    context, how many get the very same context again when a random context is
    drawn for scoring (`scored_context(..., "random")`). A line's random
    context is the lines of one other document at its position (with --docs)
    or another item's context (with --context); the scoring draw avoids the
    control's own where a third exists, so only with two documents (or two
    contexts) do the draws agree, then on every line, where the line adds
    exactly 0 to the control's CXMI against a random context. None for a model
    that reads its real context."""
    if source.mode[0] != "random":
        return None
    modes = (source.mode[1:], scored_context(source.mode, "random")[1:])
    if source.doc_ids is not None:
        own, again = (context_indices(source.doc_ids, size, "random", *m) for m in modes)
        lines = [i for i, row in enumerate(own) if row]
        units = len(documents(source.doc_ids))
    else:
        own, again = ([{side: e[side][-size:] for side in sorted(e)}
                       for e in random_explicit_context(source.entries, *m)]
                      for m in modes)
        lines = [i for i, e in enumerate(own) if any(e.values())]
        units = len({repr(sorted(e.items())) for e in source.entries if any(e.values())})
    same = sum(own[i] == again[i] for i in lines)
    return {"lines": len(lines), "same": same, "sources": units}


def add_context_arguments(p: argparse.ArgumentParser) -> None:
    """The --docs and --context options of translate and score."""
    p.add_argument("--docs", type=Path, help="document id per input line (models "
                   "that read document context)")
    p.add_argument("--context", type=Path, metavar="CTX.jsonl",
                   help='explicit context per line: {"src": [...], "tgt": [...]} '
                   "BPE'd sentences, oldest first")
    p.add_argument("--context-as", choices=CONTEXT_AS, default="own",
                   help="own: the context the model reads (its `context` setting); "
                   "none: every line an empty context (its context-agnostic "
                   "probabilities, as CXMI needs); random: other documents' "
                   "sentences, drawn with the model's context seed + 1 (default: "
                   "%(default)s)")


def context_source(model: nn.Module, args: argparse.Namespace,
                   text: Path, n_lines: int) -> ContextSource | None:
    """Read --docs/--context for a model that reads context (None otherwise)."""
    docs, explicit = args.docs, args.context
    if docs is not None and explicit is not None:
        raise InputError("give --docs or --context, not both", "--context")
    if not getattr(model, "context_sides", ()):
        if args.context_as != "own":
            raise InputError("the model reads no document context; drop the option",
                             "--context-as")
        if docs is not None or explicit is not None:
            raise InputError("the model reads no document context; drop the option",
                             "--docs" if docs is not None else "--context")
        return None
    mode = scored_context(context_mode(model.cfg), args.context_as)
    if docs is not None:
        return ContextSource(doc_ids=read_docs(docs, n_lines, text), mode=mode)
    if explicit is not None:
        return ContextSource(entries=read_context_file(explicit, n_lines, text),
                             mode=mode)
    raise InputError("the model reads document context: give --docs (or --context)",
                     "--docs")


def context_rows(source: ContextSource, size: int, own: dict[str, list[Ids]],
                 vocabs: dict[str, Vocabulary]) -> Rows:
    """Per side in `own` and per line, up to `size` context sentences' ids,
    oldest first: with --docs the lines' own ids (`own`) looked up by index;
    an explicit entry with more than `size` sentences keeps the last `size`."""
    if source.doc_ids is not None:
        indices = context_indices(source.doc_ids, size, *source.mode)
        return {side: [[lines[j] for j in row] for row in indices]
                for side, lines in own.items()}
    entries = source.entries
    if source.mode[0] == "none":
        entries = [{side: [] for side in own} for _ in entries]
    elif source.mode[0] == "random":
        entries = random_explicit_context(entries, *source.mode[1:])
    return {side: [[vocabs[side].encode(s) for s in entry[side][-size:]]
                   for entry in entries]
            for side in own}


def batch_inputs(rows: Rows, size: int, side: dict[str, list[Ids]], chunk: list[int],
                 length: int, device: torch.device,
                 lookup: StateLookup | None = None) -> dict[str, object]:
    """Keyword inputs of the lines `chunk`: side inputs and `context` tensors
    (with the frozen context states of `lookup`)."""
    picked = {name: [values[i] for i in chunk] for name, values in side.items()}
    extra: dict[str, object] = {k: v.to(device)
                                for k, v in pad_side(picked, length).items()}
    context = {name: pad_context([lines[i] for i in chunk], size).to(device)
               for name, lines in rows.items()}
    if lookup is not None:
        context.update(lookup.states(chunk, size))
    extra["context"] = context
    return extra


class StatePool:
    """A model's frozen context states by sentence content, for forced scoring.

    Each distinct context sentence (its ids on every side the model reads) gets
    one index, whether it came by --docs index or from an explicit --context
    file, so its states are computed once per pool: once per scoring pass, or
    once for all the passes of one model when the caller keeps the pool (CXMI
    scores the same lines with their own, a random and no context). The states
    are those the model computes from the ids itself (`ContextStates`)."""

    def __init__(self, model: nn.Module):
        self.sides: tuple[str, ...] = tuple(model.context_sides)
        self.lines: dict[str, list[Ids]] = {s: [] for s in self.sides}
        self.index: dict[tuple[tuple[int, ...], ...], int] = {}
        self.store = ContextStates(model, self.lines)

    def lookup(self, rows: Rows, n_lines: int) -> StateLookup | None:
        """A StateLookup of the lines 0..n_lines-1 of `rows`; None where a line
        has not as many sentences on every side (the model then reports it)."""
        indices = []
        for i in range(n_lines):
            sentences = [rows[s][i] for s in self.sides]
            if len({len(x) for x in sentences}) > 1:
                return None
            row = []
            for key in zip(*sentences, strict=True):
                key = tuple(tuple(ids) for ids in key)
                j = self.index.get(key)
                if j is None:
                    j = self.index[key] = len(self.lines[self.sides[0]])
                    for side, ids in zip(self.sides, key, strict=True):
                        self.lines[side].append(list(ids))
                row.append(j)
            indices.append(row)
        return StateLookup(self.store, indices)


def state_pool(model: nn.Module) -> StatePool | None:
    """A StatePool for a model with frozen context states (None otherwise)."""
    return StatePool(model) if getattr(model, "frozen_state_sides", ()) else None


def indexed_lookup(model: nn.Module, source: ContextSource,
                   own: dict[str, list[Ids]]) -> StateLookup | None:
    """A StateLookup of the lines' own ids where --docs gives the context by
    index (an explicit --context file's sentences have none)."""
    if source.doc_ids is None:
        return None
    indices = context_indices(source.doc_ids, model.cfg.context_size, *source.mode)
    return state_lookup(model, own, indices)


def chunks(lengths: list, lines: list[int], size: int) -> list[list[int]]:
    """`lines` in batches of `size`, sorted by length (longest first)."""
    order = sorted(lines, key=lambda i: -lengths[i])
    return [order[k: k + size] for k in range(0, len(order), size)]


def exact_chunks(lengths: list, lines: list[int], size: int) -> list[list[int]]:
    """`lines` in batches of at most `size` lines of one length each: no padding."""
    groups: dict[object, list[int]] = {}
    for i in lines:
        groups.setdefault(lengths[i], []).append(i)
    return [rows[k: k + size] for _, rows in sorted(groups.items(), reverse=True)
            for k in range(0, len(rows), size)]


def search_batch(model: nn.Module, src: Tensor, extra: dict[str, object],
                 opts: Search) -> list[Ids]:
    """The best hypothesis' ids for each row of src (B, S)."""
    own_search = getattr(model, "generate", None)
    if own_search is not None:
        return [h.tokens for h in own_search(src, extra, opts.max_len_a,
                                             opts.max_len_b)]
    if opts.beam == 1:
        hyps = greedy_search(model, src, opts.max_len_a, opts.max_len_b, extra)
    else:
        hyps = [h[0] for h in beam_search(model, src, opts.beam, opts.lenpen,
                                          opts.max_len_a, opts.max_len_b, extra)]
    return [h.tokens for h in hyps]


def decode_lines(model: nn.Module, src_ids: list[Ids], rows: Rows, lines: list[int],
                 opts: Search, side: dict[str, list[Ids]], out: list[Ids | None],
                 lookup: StateLookup | None = None) -> None:
    """Translate the lines `lines` (their context in `rows`) into `out`."""
    device = next(model.parameters()).device
    size = model.cfg.context_size
    for chunk in chunks([len(s) for s in src_ids], lines, opts.batch_size):
        src = pad_sequences([[*src_ids[i], EOS] for i in chunk]).to(device)
        extra = batch_inputs(rows, size, side, chunk, src.size(1), device, lookup)
        for i, ids in zip(chunk, search_batch(model, src, extra, opts), strict=True):
            out[i] = ids


def translate_in_rounds(model: nn.Module, src_ids: list[Ids], doc_ids: list[str],
                        opts: Search, side: dict[str, list[Ids]],
                        mode: tuple = ("real", 1)) -> list[Ids]:
    """Target-context models: round r decodes every document's r-th sentence,
    with the model's own translations of the earlier ones as target context."""
    indices = context_indices(doc_ids, model.cfg.context_size, *mode)
    out: list[Ids | None] = [None] * len(src_ids)
    own = {"src": src_ids, "tgt": out}  # earlier rounds have filled `out`
    lookup = state_lookup(model, own, indices)
    docs = documents(doc_ids)
    for r in range(max((len(d) for d in docs), default=0)):  # none: empty input
        lines = [d[r] for d in docs if len(d) > r]
        rows = {s: {i: [own[s][j] for j in indices[i]] for i in lines}
                for s in model.context_sides}
        decode_lines(model, src_ids, rows, lines, opts, side, out, lookup)
    return out


def translate_with_context(model: nn.Module, src_vocab: Vocabulary,
                           tgt_vocab: Vocabulary, lines: list[str],
                           source: ContextSource, opts: Search,
                           side: dict[str, list[Ids]] | None = None) -> list[str]:
    """Translate BPE'd lines with their context -> tokenized hypotheses."""
    side = side or {}
    src_ids = [src_vocab.encode(line) for line in lines]
    if "tgt" in model.context_sides and source.doc_ids is not None:
        hyps = translate_in_rounds(model, src_ids, source.doc_ids, opts, side,
                                   source.mode)
    else:  # source context only, or explicit context (the file gives "tgt")
        own = {s: src_ids if s == "src" else [] for s in model.context_sides}
        rows = context_rows(source, model.cfg.context_size, own,
                            {"src": src_vocab, "tgt": tgt_vocab})
        hyps = [None] * len(lines)
        decode_lines(model, src_ids, rows, list(range(len(lines))), opts, side, hyps,
                     indexed_lookup(model, source, own))
    expand = getattr(model, "output_words", None)
    return [remove_bpe(" ".join(expand(h, tgt_vocab) if expand is not None
                                else tgt_vocab.decode(h))) for h in hyps]


def _forced_batches(model: nn.Module, src_vocab: Vocabulary, tgt_vocab: Vocabulary,
                    src: list[str], tgt: list[str], source: ContextSource,
                    batch_size: int, side: dict[str, list[Ids]] | None,
                    pool: StatePool | None = None, exact: bool = False
                    ) -> Iterator[tuple[list[int], tuple]]:
    """(lines, forced-scoring inputs) per batch: src, tgt_in, tgt_out, extra;
    target context = earlier references. Frozen context states come from `pool`
    (a new one when None); `exact` batches only lines of equal source and
    target lengths, so that no padding enters the batch."""
    device = next(model.parameters()).device
    src_ids = [src_vocab.encode(s) for s in src]
    tgt_ids = [tgt_vocab.encode(t) for t in tgt]
    own = {"src": src_ids, "tgt": tgt_ids}
    size = model.cfg.context_size
    rows = context_rows(source, size, {s: own[s] for s in model.context_sides},
                        {"src": src_vocab, "tgt": tgt_vocab})
    pool = pool or state_pool(model)
    lookup = pool.lookup(rows, len(src)) if pool is not None else None
    if exact:
        batches = exact_chunks([(len(s), len(t)) for s, t in zip(src_ids, tgt_ids,
                                                                 strict=True)],
                               list(range(len(src))), batch_size)
    else:
        batches = chunks([len(t) for t in tgt_ids], list(range(len(src))), batch_size)
    for chunk in batches:
        src_batch = pad_sequences([[*src_ids[i], EOS] for i in chunk]).to(device)
        extra = batch_inputs(rows, size, side or {}, chunk, src_batch.size(1), device,
                             lookup)
        yield chunk, (src_batch,
                      pad_sequences([[BOS, *tgt_ids[i]] for i in chunk]).to(device),
                      pad_sequences([[*tgt_ids[i], EOS] for i in chunk]).to(device),
                      extra)


def score_with_context(model: nn.Module, src_vocab: Vocabulary,
                       tgt_vocab: Vocabulary, src: list[str], tgt: list[str],
                       source: ContextSource, batch_size: int = 64,
                       side: dict[str, list[Ids]] | None = None,
                       pool: StatePool | None = None, exact: bool = False
                       ) -> list[float]:
    """log P(tgt | src, context) per pair; target context = earlier references
    (`pool`, `exact`: as `_forced_batches`)."""
    out = [0.0] * len(src)
    for chunk, inputs in _forced_batches(model, src_vocab, tgt_vocab, src, tgt,
                                         source, batch_size, side, pool, exact):
        for i, s in zip(chunk, forced_log_probs(model, *inputs).tolist(), strict=True):
            out[i] = s
    return out


def token_scores_with_context(model: nn.Module, src_vocab: Vocabulary,
                              tgt_vocab: Vocabulary, src: list[str], tgt: list[str],
                              source: ContextSource, batch_size: int = 64,
                              pool: StatePool | None = None) -> list[list[float]]:
    """log p(y_t | y_<t, src, context) of every target token of every pair, </s>
    last (as many values as the BPE'd line has tokens, plus one)."""
    out: list[list[float]] = [[] for _ in src]
    for chunk, inputs in _forced_batches(model, src_vocab, tgt_vocab, src, tgt,
                                         source, batch_size, None, pool):
        rows = forced_token_log_probs(model, *inputs).tolist()  # (B, T)
        lengths = inputs[2].ne(PAD).sum(dim=1).tolist()
        for i, row, n in zip(chunk, rows, lengths, strict=True):
            out[i] = row[:n]
    return out
