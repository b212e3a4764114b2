"""The data path: packed collation equals the list collate, the prefetching
loader hands out what a plain loop would and resumes exactly mid-epoch, and
each rank collates only its share."""

from __future__ import annotations

import random

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from phrasenmt.nn.batching import Batch, PackedCorpus, collate, make_batches
from phrasenmt.training.data import Corpus
from phrasenmt.training.loader import UpdateLoader

CPU = torch.device("cpu")


def assert_same_batch(a: Batch, b: Batch) -> None:
    for name in ("src", "tgt_in", "tgt_out"):
        assert torch.equal(getattr(a, name), getattr(b, name)), name
    assert a.ntokens == b.ntokens and a.side.keys() == b.side.keys()
    assert a.side_sizes == b.side_sizes
    for name in a.side:
        assert torch.equal(a.side[name], b.side[name]), name


sentence = st.lists(st.integers(4, 60), min_size=1, max_size=12)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(sentence, sentence), min_size=1, max_size=20), st.data())
def test_packed_collate_equals_list_collate(pairs, data):
    src, tgt = [p[0] for p in pairs], [p[1] for p in pairs]
    side = {"phrases": [[k // 2 for k in range(len(s))] for s in src]}
    packed = PackedCorpus.pack(src, tgt, side)
    rows = data.draw(st.lists(st.integers(0, len(pairs) - 1), min_size=1, max_size=8))
    expected = collate([src[i] for i in rows], [tgt[i] for i in rows],
                       {"phrases": [side["phrases"][i] for i in rows]})
    assert_same_batch(packed.collate(rows), expected)
    assert packed.target_tokens(rows) == expected.ntokens


def corpus(n: int = 300, seed: int = 0) -> Corpus:
    rng = random.Random(seed)
    def words() -> list[int]:
        return [rng.randint(4, 99) for _ in range(rng.randint(1, 25))]
    return Corpus([words() for _ in range(n)], [words() for _ in range(n)])


def loader(c: Corpus, prefetch: bool, share=lambda n: list(range(n)),
           update_tokens: int = 400) -> UpdateLoader:
    batches = make_batches([len(s) for s in c.src], [len(t) for t in c.tgt], 150, 3)
    return UpdateLoader(c, batches, 3, update_tokens, share, CPU, prefetch)


def plain_updates(c: Corpus, count: int, update_tokens: int = 400):
    """What the trainer's old loop built: list collate per batch until the budget."""
    it = loader(c, False).iterator
    out = []
    for _ in range(count):
        batches, total = [], 0
        while total < update_tokens:
            idx = next(it)
            batches.append(collate([c.src[i] for i in idx], [c.tgt[i] for i in idx]))
            total += batches[-1].ntokens
        out.append((batches, total))
    return out


def test_prefetching_loader_gives_the_plain_loop_s_updates():
    c = corpus()
    ahead = loader(c, prefetch=True)
    for batches, total in plain_updates(c, 12):
        work, got = ahead.next_update()
        assert got == total and len(work) == len(batches)
        for (batch, weight), want in zip(work, batches, strict=True):
            assert weight == 1.0
            assert_same_batch(batch, want)
    ahead.close()


def test_state_is_before_the_prefetch_and_resume_is_exact_mid_epoch():
    c = corpus()
    ahead, plain = loader(c, prefetch=True), loader(c, prefetch=False)
    for _ in range(5):
        ahead.next_update()
        plain.next_update()
    state = ahead.state_dict()
    assert state == plain.state_dict()  # not the update collated ahead
    assert state["epoch"] == 1 and 0 < state["position"] < len(plain.iterator.batches)
    resumed = loader(c, prefetch=True)
    resumed.load_state_dict(state)
    for _ in range(len(plain.iterator.batches)):  # into the next epoch
        (a, ta), (b, tb) = ahead.next_update(), resumed.next_update()
        assert ta == tb and len(a) == len(b)
        for (x, _), (y, _) in zip(a, b, strict=True):
            assert_same_batch(x, y)
    assert ahead.state_dict()["epoch"] > 1
    # rewinding drops what was prepared ahead
    ahead.load_state_dict(state)
    again, _ = ahead.next_update()
    first, _ = loader_at(c, state).next_update()
    assert_same_batch(again[0][0], first[0][0])


def loader_at(c: Corpus, state: dict) -> UpdateLoader:
    out = loader(c, prefetch=False)
    out.load_state_dict(state)
    return out


def test_each_rank_collates_only_its_share(monkeypatch):
    c = corpus()
    whole = plain_updates(c, 6, update_tokens=700)
    ranks = [loader(c, True, lambda n, r=r: list(range(r, n, 2)), 700)
             for r in (0, 1)]
    collated = []
    real = PackedCorpus.collate
    monkeypatch.setattr(PackedCorpus, "collate",
                        lambda self, idx, ctx=None, buckets=(): collated.append(list(idx))
                        or real(self, idx, ctx))
    for batches, total in whole:
        got = [r.next_update() for r in ranks]
        assert [t for _, t in got] == [total, total]
        assert len(got[0][0]) + len(got[1][0]) == len(batches)
        for k, want in enumerate(batches):
            batch, weight = got[k % 2][0][k // 2]
            assert weight == 1.0
            assert_same_batch(batch, want)
    # each rank collated its own share, not every batch (a rank that collated
    # all of them would reach about twice the count): the batches of the six
    # updates plus what the prefetch threads had collated ahead by then, up to
    # two updates of at most three batches for each of the two ranks
    assert len(collated) <= sum(len(b) for b, _ in whole) + 2 * 2 * 3


def test_a_rank_without_a_batch_joins_with_weight_zero():
    c = corpus()
    idle = loader(c, True, lambda n: list(range(5, n, 6)), update_tokens=1)
    work, _ = idle.next_update()
    assert [w for _, w in work] == [0.0]
