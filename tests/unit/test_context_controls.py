"""Context controls (`context: real | random | none`): the random context never
comes from the sentence's own document, is the same for the same seed, sits at
earlier document positions, and reaches training, scoring and decoding alike."""

from __future__ import annotations

import random

import pytest
import torch

from phrasenmt.data.documents import (
    context_indices,
    context_mode,
    documents,
    random_explicit_context,
)
from phrasenmt.decoding.context import (
    ContextSource,
    Search,
    score_with_context,
    translate_with_context,
)
from phrasenmt.io import InputError
from phrasenmt.models.ctx_transformer import ContextTransformerConfig
from phrasenmt.models.han import HanConfig
from phrasenmt.training.data import DataPaths, load_data
from tests.unit.test_documents import write
from tests.unit.test_han import DOCS, SRC, TGT, TGT_VOCAB, VOCAB, make_model


def random_docs(seed: int, n_docs: int = 30) -> list[str]:
    rng = random.Random(seed)
    return [f"d{k}" for k in range(n_docs) for _ in range(rng.randint(1, 6))]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_context_never_comes_from_the_own_document(seed):
    ids = random_docs(seed)
    real = context_indices(ids, 3)
    rand = context_indices(ids, 3, "random", seed)
    docs = documents(ids)
    start = {i: d[0] for d in docs for i in d}
    for i, (r, c) in enumerate(zip(real, rand, strict=True)):
        assert len(c) == len(r), i  # as many sentences as the real context
        assert all(ids[j] != ids[i] for j in c), i  # never its own document
        assert len({ids[j] for j in c}) <= 1, i  # one other document
        assert c == list(range(c[0], c[0] + len(c))) if c else True, i
        # earlier document positions than the line's own: decodable in rounds
        assert all(j - start[j] < i - start[i] for j in c), i


def test_random_context_is_the_same_for_the_same_seed_and_differs_across_seeds():
    ids = random_docs(7)
    assert context_indices(ids, 2, "random", 5) == context_indices(ids, 2, "random", 5)
    assert context_indices(ids, 2, "random", 5) != context_indices(ids, 2, "random", 6)


def test_no_context_and_one_document():
    assert context_indices(DOCS, 3, "none") == [[]] * len(DOCS)
    with pytest.raises(InputError, match="at least two documents"):
        context_indices(["x"] * 4, 2, "random", 1)
    with pytest.raises(ValueError, match="context mode"):
        context_indices(DOCS, 2, "shuffled")


def test_random_explicit_context_swaps_whole_contexts_consistently():
    entries = [{"src": ["a", "b"], "tgt": ["A", "B"]},
               {"src": ["a", "b"], "tgt": ["A", "B"]},  # same item, other variant
               {"src": ["c"], "tgt": ["C"]},
               {"src": [], "tgt": []},
               {"src": ["d", "e", "f"], "tgt": ["D", "E", "F"]}]
    out = random_explicit_context(entries, 3)
    assert out == random_explicit_context(entries, 3)
    assert out[0] == out[1]  # variants of one item keep one context
    assert out[3] == {"src": [], "tgt": []}
    for before, after in zip(entries, out, strict=True):
        if before["src"]:
            assert after != before
            assert len(after["src"]) <= len(before["src"])
            assert len(after["src"]) == len(after["tgt"])
    with pytest.raises(InputError, match="two different contexts"):
        random_explicit_context(entries[:2], 1)


@pytest.mark.parametrize("cls", [HanConfig, ContextTransformerConfig])
def test_a_context_value_that_is_not_a_choice_names_the_key(cls):
    with pytest.raises(InputError, match="model.context"):
        cls(src_vocab_size=9, tgt_vocab_size=9, context="shuffled").check()


def scores(model, mode=None) -> list[float]:
    source = ContextSource(doc_ids=DOCS, mode=mode or context_mode(model.cfg))
    return score_with_context(model, VOCAB, TGT_VOCAB, SRC, TGT, source)


@pytest.mark.parametrize("arch", ["han_enc", "han_dec", "han_enc_dec"])
def test_context_none_scores_equal_the_same_model_given_empty_context(arch):
    real = make_model(arch)
    none = make_model(arch, context="none")
    none.load_state_dict(real.state_dict())
    assert scores(none) == scores(real, ("none", 1))
    assert scores(none) != scores(real)  # the real context does change scores


@pytest.mark.parametrize("arch", ["han_enc", "han_dec"])
def test_random_context_reaches_scoring_and_decoding(arch):
    real = make_model(arch)
    control = make_model(arch, context="random", context_seed=4)
    control.load_state_dict(real.state_dict())
    # SRC has two documents; the random context of document y comes from x
    assert scores(control) != scores(real)
    assert scores(control) == scores(real, ("random", 4))
    opts = Search(beam=2, max_len_b=4)
    source = ContextSource(doc_ids=DOCS, mode=context_mode(control.cfg))
    first = translate_with_context(control, VOCAB, TGT_VOCAB, SRC, source, opts)
    assert first == translate_with_context(control, VOCAB, TGT_VOCAB, SRC, source,
                                           opts)
    assert len(first) == len(SRC)


def test_training_data_reads_the_controls_context(tmp_path):
    src = write(tmp_path / "train.src", SRC)
    tgt = write(tmp_path / "train.tgt", TGT)
    docs = write(tmp_path / "train.docs", DOCS)
    paths = DataPaths(src, tgt, src, tgt, docs=(docs, docs))
    _, _, real, _ = load_data(paths, 50, None, ("src",), 3)
    _, _, rand, _ = load_data(paths, 50, None, ("src",), 3, ("random", 2))
    assert real.context.indices == context_indices(DOCS, 3)
    assert rand.context.indices == context_indices(DOCS, 3, "random", 2)
    assert rand.context.indices != real.context.indices
    torch.testing.assert_close(rand.context.batch([0])["src"],
                               real.context.batch([0])["src"])  # both empty
