"""Frozen context states computed once: a HAN's cached states equal the ones it
computes itself, step 2 with the cache equals step 2 without it bit for bit,
and a random-context control reads its cached states by the same index."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from phrasenmt.average import average_checkpoints
from phrasenmt.hparams.han import HanConfig
from phrasenmt.models.context_cache import ContextStates
from phrasenmt.models.han import HanEncoderDecoder
from phrasenmt.nn.batching import pad_context
from phrasenmt.text.vocab import EOS
from phrasenmt.training.checkpoint import save_file
from phrasenmt.training.context_states import with_states
from phrasenmt.training.data import DataPaths
from phrasenmt.training.spec import resolve_spec
from phrasenmt.training.trainer import Trainer
from tests.unit.test_two_step import TINY, TRAIN, write_corpus

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


def frozen_han(dropout: float = 0.3) -> HanEncoderDecoder:
    """A tiny HAN (both sides) in training mode with θ_s frozen, as in step 2."""
    torch.manual_seed(0)
    model = HanEncoderDecoder(HanConfig(
        src_vocab_size=30, tgt_vocab_size=30, d_model=16, d_ff=32, n_heads=2,
        encoder_layers=2, decoder_layers=2, dropout=dropout, context_init="random"))
    for p in model.sentence_parameters().values():
        p.requires_grad_(False)
    return model.train()


def random_lines(n: int) -> dict[str, list[list[int]]]:
    g = torch.Generator().manual_seed(1)
    return {side: [torch.randint(4, 30, (int(torch.randint(1, 6, (1,), generator=g)),),
                                 generator=g).tolist() for _ in range(n)]
            for side in ("src", "tgt")}


def test_cached_context_states_equal_recomputed_ones():
    model, lines = frozen_han(), random_lines(24)
    store = ContextStates(model, lines, range(24))
    store.prepare()
    for j in range(24):  # each line alone, with dropout active in the model
        alone = model.line_states([torch.tensor([*lines["src"][j], EOS])],
                                  [torch.tensor([*lines["tgt"][j], EOS])])
        assert torch.equal(alone["src"][0], store.state("src", j)), j
        assert torch.equal(alone["tgt"][0], store.state("tgt", j)), j
    # ... and as the model computes them for a batch (lines repeated, missing)
    rows = [[], [0], [0, 1], [1, 2, 3], [5, 7], [9, 10, 11], [3, 0, 9]]
    ids = {s: pad_context([[lines[s][j] for j in row] for row in rows], 3)
           for s in lines}
    index = torch.tensor([[-1] * (3 - len(r)) + r for r in rows])
    cached = store.lookup(index)
    computed = model.batch_line_states(ids)
    for side in ("src", "tgt"):
        assert torch.equal(cached[f"{side}_states"], computed[side])
    # a store that gets its lines a few at a time (it grows) lays out the same
    grown = ContextStates(model, {s: v[:2] for s, v in lines.items()})
    for upto in (2, 6, 12, 24):
        for s in lines:
            grown.lines[s][:] = lines[s][:upto]
        grown.add(range(upto))
    for side in ("src", "tgt"):
        assert torch.equal(grown.lookup(index)[f"{side}_states"], computed[side])
    # context ids padded to a length bucket: the states are padded alike, and
    # the model computes what it computes without the padding
    wide = {s: pad_context([[lines[s][j] for j in row] for row in rows], 3, [10])
            for s in lines}
    assert wide["src"].size(2) == 10 > ids["src"].size(2)
    cached_wide = store.lookup(index, {"src": 10, "tgt": 10})
    computed_wide = model.batch_line_states(wide)
    for side in ("src", "tgt"):
        assert torch.equal(cached_wide[f"{side}_states"], computed_wide[side])
    model.eval()
    probe = torch.randint(4, 30, (7, 5)), torch.randint(4, 30, (7, 4))
    assert torch.allclose(model(*probe, context={**wide, **cached_wide}),
                          model(*probe, context={**ids, **cached}), atol=1e-6)
    model.train()
    none = store.lookup(torch.full((2, 3), -1))["src_states"]
    assert none.shape == (2, 3, 1, model.cfg.d_model) and not none.any()
    src, tgt = torch.randint(4, 30, (7, 5)), torch.randint(4, 30, (7, 4))
    torch.manual_seed(3)
    without = model(src, tgt, context=ids)
    torch.manual_seed(3)
    assert torch.equal(model(src, tgt, context={**ids, **cached}), without)


@pytest.fixture(scope="module")
def step1(tmp_path_factory) -> tuple:
    """The corpus and step 1's averaged sentence-level model."""
    root = tmp_path_factory.mktemp("cache")
    paths = write_corpus(root)
    spec = resolve_spec({"arch": "transformer", "model": TINY,
                         "train": {**TRAIN, "max_steps": 4}})
    plain = DataPaths(paths.train_src, paths.train_tgt, paths.dev_src, paths.dev_tgt)
    Trainer(spec, plain, root / "step1", seed=5, device="cpu",
            progress_bar=False).run()
    averaged = root / "averaged.pt"
    save_file(average_checkpoints(sorted(
        (root / "step1" / "checkpoints").glob("checkpoint_*.pt"))), averaged)
    return paths, averaged


def step2(step1, outdir: Path, steps: int, cache_mb: float, buckets=(), **model
          ) -> Trainer:
    paths, averaged = step1
    spec = resolve_spec({"arch": "han_dec", "model": {**TINY, **model},
                         "train": {**TRAIN, "max_steps": steps,
                                   "context_cache_mb": cache_mb,
                                   "length_buckets": list(buckets)}})
    return Trainer(spec, paths, outdir, seed=5, device="cpu", progress_bar=False,
                   init_from=averaged)


def test_step2_with_the_cache_equals_step2_without_it(step1, tmp_path, capsys):
    runs = {}
    for mb in (0, 64):
        t = step2(step1, tmp_path / f"mb{mb}", 3, mb)
        assert bool(t.context_states) == (mb > 0)
        start = {n: p.detach().clone() for n, p in t.model.document_parameters().items()}
        t.run()
        runs[mb] = t.model.state_dict()
        assert all(not torch.equal(p, start[n])  # θ_d trained
                   for n, p in t.model.document_parameters().items() if "norms" not in n)
    assert runs[0].keys() == runs[64].keys()
    for key, value in runs[0].items():
        assert torch.equal(value, runs[64][key]), key
    err = capsys.readouterr().err
    assert "frozen context states of" in err and "updates to max_steps read" in err
    one = step2(step1, tmp_path / "one", 1, 64)  # computes what 1 update reads only
    read = one.train_data.context.needed(one.iterator.pairs_ahead(1))
    one.run()
    assert one.context_states["train"].held("tgt") == read
    assert 0 < len(read) < len(one.train_data.context.needed())
    small = step2(step1, tmp_path / "small", 1, 1e-6)
    assert small.context_states == {}
    assert "over train.context_cache_mb (1e-06); they are computed with every batch" \
        in capsys.readouterr().err


def test_step2_with_the_cache_and_length_buckets_equals_step2_without_the_cache(
        step1, tmp_path):
    """The cached states are padded as the bucketed context ids are."""
    runs = {}
    for mb in (0, 64):
        t = step2(step1, tmp_path / f"mb{mb}", 2, mb, buckets=(4, 8, 16, 32))
        t.run()
        runs[mb] = t.model.state_dict()
    for key, value in runs[0].items():
        assert torch.equal(value, runs[64][key]), key


def test_the_random_context_control_reads_its_cached_states(step1, tmp_path):
    t = step2(step1, tmp_path / "random", 1, 64, context="random")
    docs = t.train_data.context
    store = t.context_states["train"]
    assert store.needed == sorted({j for row in docs.indices for j in row})
    real = step2(step1, tmp_path / "real", 1, 64).train_data.context.indices
    assert docs.indices != real  # other documents' lines
    pairs = [i for i, row in enumerate(docs.indices) if row][:6]
    batch = t._batch(t.train_data, pairs)
    K = t.spec.model.context_size
    assert batch.context["index"].tolist() == [
        [-1] * (K - len(docs.indices[i])) + docs.indices[i] for i in pairs]
    plain = {k: v for k, v in batch.context.items() if k != "index"}
    states = with_states(batch, store).context["tgt_states"]
    b, k = 0, K - 1  # the newest context line of the first pair
    j = docs.indices[pairs[0]][-1]
    assert torch.equal(states[b, k, :len(store.state("tgt", j))], store.state("tgt", j))
    model = t.model.train()
    torch.manual_seed(0)
    cached = model(batch.src, batch.tgt_in, context=batch.context)
    torch.manual_seed(0)
    assert torch.equal(cached, model(batch.src, batch.tgt_in, context=plain))


def test_a_state_pool_scores_as_the_model_alone_and_computes_each_sentence_once():
    """Forced scoring through a StatePool (shared by passes, keyed by the
    sentence) equals the model's own per-batch states, for explicit context
    and document context; the items' shared contexts are computed once."""
    from phrasenmt.decoding import context as doc_context
    from phrasenmt.text.vocab import SPECIALS, Vocabulary

    model = frozen_han(dropout=0.0).eval()
    vocab = Vocabulary([*SPECIALS, *(f"w{i}" for i in range(4, 30))])
    lines = random_lines(12)
    text = {s: [" ".join(f"w{i}" for i in ids) for ids in lines[s]]
            for s in lines}
    entries = [{s: text[s][max(0, j - 2): j] for s in text} for j in range(12)] * 2
    src, tgt = text["src"] * 2, text["tgt"] * 2  # every item twice, one context
    explicit = doc_context.ContextSource(entries=entries, mode=("real", 1))
    docs = doc_context.ContextSource(doc_ids=["a"] * 6 + ["b"] * 6, mode=("real", 1))
    calls = []
    line_states = model.line_states

    def counted(src_rows, tgt_rows=None):
        calls.append(len(src_rows))
        return line_states(src_rows, tgt_rows)

    model.line_states = counted
    pool = doc_context.StatePool(model)
    with torch.no_grad():
        pooled = doc_context.score_with_context(model, vocab, vocab, src, tgt,
                                                explicit, 4, pool=pool)
        first = sum(calls)
        doc_pooled = doc_context.score_with_context(model, vocab, vocab, src[:12],
                                                    tgt[:12], docs, 4, pool=pool)
        alone = [doc_context.score_with_context(model, vocab, vocab, s, t, c, 4,
                                                pool=_NoPool())
                 for s, t, c in ((src, tgt, explicit), (src[:12], tgt[:12], docs))]
    assert first == len(pool.lines["src"]) <= 11  # distinct context sentences
    assert pooled == alone[0] and doc_pooled == alone[1]


class _NoPool:
    """A pool that gives no states: the model computes its own per batch."""

    def lookup(self, rows, n_lines):
        return None


def test_a_batch_moved_to_a_device_keeps_its_context_line_index_on_the_host():
    """The host lays out the frozen states by the index: on a GPU, reading it
    back from the device would wait for the GPU in every forward pass."""
    from phrasenmt.nn.batching import collate

    context = {"src": torch.ones(2, 3, 4, dtype=torch.long),
               "index": torch.tensor([[-1, 0, 1], [-1, -1, 2]])}
    batch = collate([[5, 6], [7]], [[8], [9, 10]], None, context)
    moved = batch.to("meta")
    assert moved.src.device.type == "meta" and moved.context["src"].device.type == "meta"
    assert moved.context["index"].device.type == "cpu"
    assert torch.equal(moved.context["index"], context["index"])
