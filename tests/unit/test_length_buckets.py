"""train.length_buckets: batches padded to a few fixed widths (static shapes for
a GPU and torch.compile). The padding must change nothing a model computes:
every architecture's loss on a batch padded to its buckets equals its loss on
the same pairs padded to their own longest sentence."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

from phrasenmt.io import InputError
from phrasenmt.nn.batching import PackedCorpus, bucket_width, collate, make_batches
from phrasenmt.train import main as train_main
from phrasenmt.training.spec import resolve_spec
from tests.unit.test_precision import STEPS, train_args, trainer, write_corpus

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py

BUCKETS = [4, 8, 12, 16, 24, 32]


def test_a_width_goes_up_to_the_first_bucket_that_holds_it():
    assert [bucket_width(w, BUCKETS) for w in (1, 4, 5, 8, 9, 24, 25, 33, 40)] == [
        4, 4, 8, 8, 12, 24, 32, 33, 40]
    assert bucket_width(7, []) == 7


def random_pairs(n: int, seed: int) -> tuple[list[list[int]], list[list[int]]]:
    g = np.random.default_rng(seed)
    src = [g.integers(4, 50, g.integers(1, 30)).tolist() for _ in range(n)]
    tgt = [g.integers(4, 50, g.integers(1, 30)).tolist() for _ in range(n)]
    return src, tgt


def test_batches_of_a_bucket_share_their_width_and_keep_the_token_budget():
    src, tgt = random_pairs(400, 1)
    plain = make_batches([len(s) for s in src], [len(t) for t in tgt], 120, 3)
    batches = make_batches([len(s) for s in src], [len(t) for t in tgt], 120, 3, BUCKETS)
    assert sorted(i for b in batches for i in b) == list(range(400))
    packed = PackedCorpus.pack(src, tgt)
    shapes, plain_shapes = set(), set()
    for rows in batches:
        batch = packed.collate(rows, buckets=BUCKETS)
        widths = (batch.src.size(1), batch.tgt_out.size(1))
        assert all(w in BUCKETS for w in widths)  # every sentence fits the last
        assert len(rows) == 1 or len(rows) * max(widths) <= 120
        shapes.add(tuple(batch.src.shape) + tuple(batch.tgt_out.shape))
        # the list collate pads the same way
        same = collate([src[i] for i in rows], [tgt[i] for i in rows], buckets=BUCKETS)
        assert torch.equal(same.src, batch.src) and torch.equal(same.tgt_in, batch.tgt_in)
        assert same.ntokens == batch.ntokens
    for rows in plain:
        batch = packed.collate(rows)
        plain_shapes.add(tuple(batch.src.shape) + tuple(batch.tgt_out.shape))
    # per pair of widths one full batch size, plus the odd batch at a group's
    # edge: a bounded set of shapes, fewer than the plain batches' own
    sizes: dict[tuple, set] = {}
    for b, s_w, _, t_w in shapes:
        sizes.setdefault((s_w, t_w), set()).add(b)
    assert len(sizes) <= len(BUCKETS) ** 2
    assert max(len(v) for v in sizes.values()) <= 3, sizes
    assert len(shapes) < len(plain_shapes), (len(shapes), len(plain_shapes))


@pytest.mark.parametrize("buckets", [[16, 8], [8, 8], [0, 8]])
def test_buckets_that_are_not_positive_and_increasing_are_one_line(buckets):
    with pytest.raises(InputError, match=r"^spec: train\.length_buckets: must be "
                                         r"positive and increasing, got "):
        resolve_spec({"arch": "transformer", "train": {"length_buckets": buckets}})
    with pytest.raises(InputError, match="expected list of int, got"):
        resolve_spec({"arch": "transformer", "train": {"length_buckets": [8.5]}})


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("buckets")
    write_corpus(root)
    return root


@pytest.mark.parametrize("arch", sorted(STEPS))
def test_padding_to_the_buckets_changes_no_architecture_s_loss(arch, corpus, tmp_path):
    t = trainer(arch, corpus, tmp_path, 1, "fp32")
    t.model.eval()  # no dropout masks: the two batches must score the same
    rows = list(range(12))
    plain = t._batch(t.train_data, rows)
    t.cfg.length_buckets = [plain.src.size(1) + 3, plain.tgt_out.size(1) + 5 + 3 + 8]
    t.cfg.length_buckets.sort()
    padded = t._batch(t.train_data, rows)
    assert padded.src.size(1) > plain.src.size(1)
    assert padded.tgt_out.size(1) > plain.tgt_out.size(1)
    for side, ids in (plain.context or {}).items():  # the context ids too
        width = padded.context[side].size(2)
        assert width in t.cfg.length_buckets and width > ids.size(2), (side, width)
    with torch.no_grad():
        loss, nll = t.model.loss(plain, t.cfg.label_smoothing)
        loss_b, nll_b = t.model.loss(padded, t.cfg.label_smoothing)
    assert torch.allclose(loss_b, loss, rtol=1e-5, atol=1e-5), (loss_b, loss)
    assert torch.allclose(nll_b, nll, rtol=1e-5, atol=1e-5)


def test_the_trainer_s_batches_take_the_bucket_widths(corpus, tmp_path, monkeypatch):
    argv = train_args("transformer", corpus, tmp_path / "run", 2, "fp32",
                      length_buckets=[3, 5, 8])
    assert train_main(argv) == 0  # the key reaches a real run
    from tests.unit import test_precision

    original = test_precision.spec
    monkeypatch.setattr(test_precision, "spec", lambda *a, **k: original(
        *a, **k, length_buckets=[3, 5, 8]))
    t = trainer("transformer", corpus, tmp_path / "t", 2, "fp32")
    widths = set()
    for _ in range(20):
        work, _ = t._next_update()
        widths.update(w for b, _ in work for w in (b.src.size(1), b.tgt_out.size(1)))
    t.iterator.close()
    assert widths <= {3, 5, 8}, widths  # sentences of 2-5 words, plus </s>
    assert len(widths) >= 2  # both short and long batches were seen


@pytest.mark.parametrize(("value", "outcome"), [
    ([16.0, 32.0], [16, 32]),  # whole floats are the integers, as in every int key
    ([16, 8], ("models.transformer.train.length_buckets: must be positive and "
              "increasing, got [16, 8]")),
    ([8.5], "models.transformer.train.length_buckets: expected list of int, got [8.5]")])
def test_the_workflow_config_checks_the_buckets_at_start_up(value, outcome):
    import yaml

    from phrasenmt.config import validate_config
    from phrasenmt.experiment import check_experiment, declare_field_numbers
    from tests.conftest import TEST_CONFIG

    config = yaml.safe_load(TEST_CONFIG.read_text(encoding="utf-8"))
    config["models"]["transformer"].setdefault("train", {})["length_buckets"] = value
    validate_config(config, "config.yaml")
    declare_field_numbers(config)
    if isinstance(outcome, str):
        with pytest.raises(InputError, match=re.escape(outcome)):
            check_experiment(config)
    else:
        check_experiment(config)
        assert config["models"]["transformer"]["train"]["length_buckets"] == outcome


def test_the_vectorised_widths_equal_the_scalar_ones():
    from phrasenmt.nn.batching import bucket_widths

    widths = np.arange(0, 50)
    assert bucket_widths(widths, BUCKETS).tolist() == [
        bucket_width(int(w), BUCKETS) for w in widths]
    assert bucket_widths(widths, []) is widths
