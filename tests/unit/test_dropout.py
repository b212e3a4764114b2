"""Dropout with a uniform-draw mask in fp32 CPU training (phrasenmt.nn.dropout)."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from phrasenmt.models.registry import MODELS, build_model
from phrasenmt.nn.dropout import Dropout, uniform_mask_applies
from phrasenmt.training.spec import resolve_spec


@pytest.mark.parametrize("p", [0.1, 0.3, 0.5])
def test_units_are_kept_with_probability_one_minus_p_and_scaled(p):
    torch.manual_seed(0)
    x = torch.ones(400, 1000, requires_grad=True)
    y = Dropout(p)(x)
    dropped = (y == 0).float().mean().item()
    sd = (p * (1 - p) / x.numel()) ** 0.5
    assert abs(dropped - p) < 5 * sd  # 400,000 draws
    assert y.unique().tolist() == [0.0, pytest.approx(1 / (1 - p))]
    y.sum().backward()  # d(sum y)/dx = the scaled mask
    assert torch.equal(x.grad, y.detach())


def test_a_seed_repeats_the_mask_and_another_seed_does_not():
    x = torch.randn(50, 60)
    masks = []
    for seed in (3, 3, 4):
        torch.manual_seed(seed)
        masks.append(Dropout(0.3)(x) == 0)
    assert torch.equal(masks[0], masks[1]) and not torch.equal(masks[0], masks[2])


def test_it_is_nn_dropout_where_its_own_mask_does_not_apply():
    x = torch.randn(8, 8)
    assert uniform_mask_applies(x, 0.3, training=True)
    assert not uniform_mask_applies(x, 0.3, training=False)  # eval: identity
    assert not uniform_mask_applies(x, 0.0, training=True)
    assert not uniform_mask_applies(x, 1.0, training=True)  # all dropped
    assert not uniform_mask_applies(x.bfloat16(), 0.3, training=True)  # autocast's
    # another device than the CPU (a GPU's fused dropout): nn.Dropout
    assert not uniform_mask_applies(torch.empty(8, 8, device="meta"), 0.3, training=True)
    drop = Dropout(0.3).eval()
    assert torch.equal(drop(x), x)
    assert torch.equal(Dropout(1.0)(x), torch.zeros_like(x))
    assert Dropout(0.3)(x.bfloat16()).dtype == torch.bfloat16
    assert Dropout(0.3).state_dict() == {}  # checkpoints as with nn.Dropout


@pytest.mark.parametrize("arch", sorted(a for a in MODELS if not a.startswith("test_")))
def test_every_model_drops_out_through_it(arch):
    spec = resolve_spec({"arch": arch, "preset": "tiny", "model": {}, "train": {}})
    spec.model.src_vocab_size = spec.model.tgt_vocab_size = 30
    model = build_model(arch, spec.model)
    layers = [m for m in model.modules() if isinstance(m, nn.Dropout)]
    assert all(isinstance(m, Dropout) for m in layers)


def test_torch_compile_makes_its_own_mask(monkeypatch):
    from phrasenmt.nn import dropout

    monkeypatch.setattr(dropout, "_compiling", lambda: True)
    assert not uniform_mask_applies(torch.randn(4, 4), 0.3, training=True)


def test_the_tracing_check_answers_outside_torch_compile():
    from phrasenmt.nn.dropout import _compiling

    assert _compiling() is False
