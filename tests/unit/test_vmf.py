"""The vMF loss: log C_m against scipy, exact gradient, approximation, minimum."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from scipy.special import iv

from phrasenmt.models.vmf import LogCmk, log_cmk, log_cmk_approx, vmf_loss


def reference_log_cmk(m: int, kappa: float) -> float:
    """log C_m(κ) straight from the definition with scipy's unscaled I_v."""
    v = m / 2 - 1
    return v * math.log(kappa) - m / 2 * math.log(2 * math.pi) - math.log(iv(v, kappa))


@pytest.mark.parametrize("m", [2, 3, 10, 100])
@pytest.mark.parametrize("kappa", [0.3, 2.0, 25.0, 300.0])
def test_log_cmk_matches_scipy_reference(m: int, kappa: float):
    got = log_cmk(m, torch.tensor([kappa], dtype=torch.float64)).item()
    assert got == pytest.approx(reference_log_cmk(m, kappa), rel=1e-10, abs=1e-10)


def test_log_cmk_where_the_scaled_bessel_underflows():
    # I_149(κ) underflows float64 for small κ; the power series takes over
    import mpmath

    m = 300
    for kappa in (1e-3, 0.5, 2.0):
        got = log_cmk(m, torch.tensor([kappa], dtype=torch.float64)).item()
        log_iv = float(mpmath.log(mpmath.besseli(m / 2 - 1, kappa)))
        expected = (m / 2 - 1) * math.log(kappa) - m / 2 * math.log(2 * math.pi) - log_iv
        assert got == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize("m", [4, 50, 300])
def test_gradient_matches_finite_differences(m: int):
    kappa = torch.tensor([0.5, 3.0, 40.0, 250.0], dtype=torch.float64,
                         requires_grad=True)
    assert torch.autograd.gradcheck(lambda k: LogCmk.apply(k, m), (kappa,),
                                    eps=1e-6, atol=1e-6, rtol=1e-5)


def test_gradient_is_minus_the_bessel_ratio():
    m, kappa = 10, 7.0
    k = torch.tensor([kappa], dtype=torch.float64, requires_grad=True)
    LogCmk.apply(k, m).sum().backward()
    assert k.grad.item() == pytest.approx(-iv(m / 2, kappa) / iv(m / 2 - 1, kappa))


def test_approximation_has_nearly_the_exact_gradient():
    m = 100
    kappa = torch.tensor([20.0, 80.0, 400.0], dtype=torch.float64, requires_grad=True)
    exact = torch.autograd.grad(LogCmk.apply(kappa, m).sum(), kappa)[0]
    approx = torch.autograd.grad(log_cmk_approx(m, kappa).sum(), kappa)[0]
    assert torch.allclose(approx, exact, rtol=0.03)


@pytest.mark.parametrize("lambdas", [(0.0, 1.0), (0.02, 1.0), (0.0, 0.1)])
def test_loss_is_minimal_at_the_target_direction(lambdas: tuple[float, float]):
    g = torch.Generator().manual_seed(0)
    target = torch.nn.functional.normalize(torch.randn(1, 16, generator=g), dim=-1)
    kappa = 5.0
    others = torch.nn.functional.normalize(torch.randn(200, 16, generator=g), dim=-1)
    at_target, _ = vmf_loss(kappa * target, target, *lambdas)
    elsewhere, _ = vmf_loss(kappa * others, target.expand(200, -1), *lambdas)
    assert (elsewhere > at_target).all()
    pred = (kappa * target).clone().requires_grad_(True)
    vmf_loss(pred, target, *lambdas)[0].sum().backward()
    # at the target the gradient points along ê: only the norm can still change
    tangential = pred.grad - (pred.grad * target).sum() * target
    assert tangential.norm() < 1e-5


def test_plain_nll_is_the_density_of_the_vmf():
    # m = 3: C_3(κ) = κ / (4π sinh κ), a closed form to compare with
    kappa, cos = 2.5, 0.3
    target = torch.tensor([[1.0, 0.0, 0.0]])
    pred = kappa * torch.tensor([[cos, math.sqrt(1 - cos**2), 0.0]])
    _, nll = vmf_loss(pred, target)
    density = kappa / (4 * math.pi * math.sinh(kappa)) * math.exp(kappa * cos)
    assert nll.item() == pytest.approx(-math.log(density), rel=1e-5)
    assert np.isfinite(nll.item())
