"""Context dropout (train.empty_context_rate): a document model's training pairs
read an empty context with the configured probability, seeded by (seed, epoch)."""

from __future__ import annotations

import pytest
import torch

from phrasenmt.io import InputError
from phrasenmt.text.vocab import PAD
from phrasenmt.training.config import TrainConfig
from phrasenmt.training.data import Corpus, DataPaths, DocContext, empty_context_mask
from phrasenmt.training.loader import UpdateLoader
from phrasenmt.training.spec import resolve_spec
from phrasenmt.training.trainer import Trainer
from tests.unit.test_two_step import TINY, TRAIN, step1  # noqa: F401 (step1: a fixture)

N = 400  # training pairs, each with one context sentence (the previous line)
FIRST = 10  # pair i's source is the single id FIRST + i


def corpus() -> Corpus:
    src = [[FIRST + i] for i in range(N)]
    context = DocContext(1, {"src": src}, [[i - 1] if i else [N - 1]
                                            for i in range(N)])
    return Corpus(src, [[7, 8]] * N, lines=list(range(N)), context=context)


def one_epoch(rate: float, seed: int = 3) -> dict[int, torch.Tensor]:
    """Each pair's context tensor (K, Lc) as the loader hands it out, one epoch."""
    loader = UpdateLoader(corpus(), [[i] for i in range(N)], seed, 1,
                          lambda n: list(range(n)), torch.device("cpu"),
                          prefetch=False, empty_context_rate=rate)
    out = {}
    for _ in range(N):  # one batch of one pair per update: every pair once
        (batch, _), = loader.next_update()[0]
        out[int(batch.src[0, 0]) - FIRST] = batch.context["src"][0]
    loader.close()
    return out


def test_the_mask_has_the_rate_and_is_seeded_by_seed_and_epoch():
    mask = empty_context_mask(20000, 0.3, 1, 1)
    assert sum(mask) / len(mask) == pytest.approx(0.3, abs=0.015)
    assert mask == empty_context_mask(20000, 0.3, 1, 1)
    assert mask != empty_context_mask(20000, 0.3, 1, 2)
    assert mask != empty_context_mask(20000, 0.3, 2, 1)
    assert not any(empty_context_mask(100, 0.0, 1, 1))


def test_flagged_pairs_read_an_empty_context_and_the_others_their_own():
    c = corpus().context
    flags = [i % 2 == 0 for i in range(N)]
    out = c.batch([0, 1, 2, 3], flags)["src"]  # (B, K, Lc)
    assert out[0].eq(PAD).all() and out[2].eq(PAD).all()
    assert torch.equal(out[1], c.batch([1])["src"][0])
    assert torch.equal(out[3], c.batch([3])["src"][0])


def test_the_loader_empties_the_seeded_share_of_pairs():
    got = one_epoch(0.25)
    assert sorted(got) == list(range(N))
    emptied = {i for i, ctx in got.items() if bool(ctx.eq(PAD).all())}
    mask = empty_context_mask(N, 0.25, 3, 1)
    assert emptied == {i for i in range(N) if mask[i]}
    assert 0.18 < len(emptied) / N < 0.32
    for i in set(range(N)) - emptied:  # the others read their real context
        assert int(got[i][0, 0]) == FIRST + (i - 1) % N
    assert all(torch.equal(a, b) for a, b in zip(got.values(),
                                                  one_epoch(0.25).values()))
    assert not any(bool(ctx.eq(PAD).all()) for ctx in one_epoch(0.0).values())


@pytest.mark.parametrize("rate", [-0.1, 1.0, 1.5])
def test_a_rate_outside_0_1_names_the_key(rate):
    with pytest.raises(InputError, match=r"train\.empty_context_rate.*\[0, 1\)"):
        TrainConfig(empty_context_rate=rate).check()


def test_an_emptied_pair_has_no_context_line_for_the_state_cache():
    c = corpus().context
    c.with_index = True  # the HAN's frozen context states are looked up by line
    out = c.batch([0, 1], [True, False])
    assert out["index"].tolist() == [[-1], [0]]


def test_a_trainer_with_context_dropout_resumes_exactly_and_differs(
        step1, tmp_path):  # noqa: F811 (the fixture)
    """The key takes effect (other weights than without it) and a resumed run
    draws the same pairs (the same weights as an uninterrupted one)."""
    paths, averaged = step1

    def run(outdir, steps, rate):
        spec = resolve_spec({"arch": "han_dec", "model": TINY, "train": {
            **TRAIN, "max_steps": steps, "empty_context_rate": rate}})
        t = Trainer(spec, paths, tmp_path / outdir, seed=5, device="cpu",
                    progress_bar=False, init_from=averaged)
        t.run()
        return t.model.state_dict()

    full = run("full", 6, 0.5)
    run("parts", 2, 0.5)
    resumed = run("parts", 6, 0.5)
    assert all(torch.equal(full[k], resumed[k]) for k in full)
    plain = run("plain", 6, 0.0)
    assert not all(torch.equal(full[k], plain[k]) for k in full)
    spec = resolve_spec({"arch": "transformer", "model": TINY,
                         "train": {"empty_context_rate": 0.5}})
    sentences = DataPaths(paths.train_src, paths.train_tgt, paths.dev_src,
                          paths.dev_tgt)
    with pytest.raises(InputError, match="train.empty_context_rate: is 0.5, but arch"):
        Trainer(spec, sentences, tmp_path / "t", seed=1, device="cpu")
