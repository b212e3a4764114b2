"""Token-based batching: coverage, budget, determinism, resumable iteration."""

from __future__ import annotations

import random

import pytest
import torch

from phrasenmt.nn.batching import BatchIterator, collate, make_batches, side_sizes
from phrasenmt.text.vocab import BOS, EOS, PAD

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


def lengths(n: int = 300, seed: int = 0) -> tuple[list[int], list[int]]:
    rng = random.Random(seed)
    return ([rng.randint(1, 30) for _ in range(n)], [rng.randint(1, 30) for _ in range(n)])


def test_every_sentence_once_and_budget_respected():
    src, tgt = lengths()
    batches = make_batches(src, tgt, max_tokens=120, seed=3)
    flat = sorted(i for b in batches for i in b)
    assert flat == list(range(300))
    for b in batches:
        longest = max(max(src[i], tgt[i]) + 1 for i in b)
        assert longest * len(b) <= 120
    assert len(batches) < 150  # batches are actually filled


def test_oversized_sentence_gets_its_own_batch():
    batches = make_batches([3, 50, 4], [3, 2, 4], max_tokens=20, seed=0)
    assert [1] in batches and sorted(i for b in batches for i in b) == [0, 1, 2]


def test_bucketing_groups_similar_lengths():
    src, tgt = lengths()
    batches = make_batches(src, tgt, max_tokens=200, seed=0)
    spread = [max(tgt[i] for i in b) - min(tgt[i] for i in b) for b in batches]
    assert sum(spread) / len(spread) <= 2


def test_deterministic_given_seed():
    src, tgt = lengths()
    assert make_batches(src, tgt, 100, seed=1) == make_batches(src, tgt, 100, seed=1)
    a = BatchIterator(make_batches(src, tgt, 100, 1), seed=1)
    b = BatchIterator(make_batches(src, tgt, 100, 1), seed=2)
    assert [next(a) for _ in range(20)] != [next(b) for _ in range(20)]


def test_iterator_covers_each_epoch_and_resumes_from_state():
    src, tgt = lengths(100)
    batches = make_batches(src, tgt, 100, seed=0)
    it = BatchIterator(batches, seed=5)
    epoch1 = [next(it) for _ in range(len(batches))]
    assert sorted(i for b in epoch1 for i in b) == list(range(100))
    more = [next(it) for _ in range(3)]
    assert it.state_dict() == {"epoch": 2, "position": 3}
    assert more != epoch1[:3]  # reshuffled per epoch
    resumed = BatchIterator(batches, seed=5)
    resumed.load_state_dict(it.state_dict())
    assert [next(resumed) for _ in range(len(batches))] == \
        [next(it) for _ in range(len(batches))]


def test_collate_adds_specials_and_pads():
    b = collate([[5, 6], [7]], [[8], [9, 10, 11]])
    assert b.src.tolist() == [[5, 6, EOS], [7, EOS, PAD]]
    assert b.tgt_in.tolist() == [[BOS, 8, PAD, PAD], [BOS, 9, 10, 11]]
    assert b.tgt_out.tolist() == [[8, EOS, PAD, PAD], [9, 10, 11, EOS]]
    assert b.ntokens == 6 and b.src.dtype == torch.long


def test_collate_counts_each_side_input_on_the_host():
    """side_sizes: 1 + the largest value of each side input (padding -1 aside),
    carried by every copy of the batch."""
    b = collate([[5, 6, 7], [8]], [[9], [9]], {"phrases": [[0, 0, 2], [1]],
                                              "fertility": [[-1, -1, -1], [-1]]})
    assert b.side_sizes == {"phrases": 3, "fertility": 0}
    assert b.to("cpu").side_sizes == b.apply(lambda t: t + 0).side_sizes == b.side_sizes
    assert collate([[5]], [[6]]).side_sizes == {}
    with pytest.raises(ValueError, match="'phrases': count its values on the host"):
        side_sizes({"phrases": torch.zeros(1, 2, device="meta")})


def test_empty_iterator_is_rejected():
    with pytest.raises(ValueError):
        BatchIterator([], seed=0)


def test_packed_document_context_equals_padding_each_sentence():
    """DocContext.batch gathers every slot at once from packed sentences: the
    same (B, K, Lc) ids and line index as pad_context of the id lists, with
    missing slots, empty-context flags and length buckets."""
    from phrasenmt.nn.batching import pad_context
    from phrasenmt.training.data import DocContext

    rng = random.Random(0)
    for _ in range(200):
        n, size = rng.randint(1, 40), rng.randint(1, 4)
        sides = ["src"] if rng.random() < 0.5 else ["src", "tgt"]
        sentences = {side: [[rng.randint(4, 50) for _ in range(rng.randint(0, 12))]
                            for _ in range(n)] for side in sides}
        indices = [sorted(rng.sample(range(n), rng.randint(0, min(size, n))))
                   for _ in range(n)]
        context = DocContext(size, sentences, indices, with_index=True)
        pairs = [rng.randrange(n) for _ in range(rng.randint(1, 10))]
        empty = [rng.random() < 0.3 for _ in range(n)] if rng.random() < 0.5 else None
        buckets = [4, 8, 16] if rng.random() < 0.5 else ()
        got = context.batch(pairs, empty, buckets)
        rows = [[] if empty is not None and empty[i] else indices[i] for i in pairs]
        for side, lines in sentences.items():
            want = pad_context([[lines[j] for j in row] for row in rows], size, buckets)
            assert torch.equal(got[side], want)
        assert torch.equal(got["index"], torch.tensor(
            [[-1] * (size - len(row)) + row for row in rows], dtype=torch.long))
