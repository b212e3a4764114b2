"""The von Mises-Fisher loss of Kumar & Tsvetkov (2019) for continuous outputs.

    NLLvMF(ê; e(w)) = -log C_m(‖ê‖) - ê·e(w)
    C_m(κ) = κ^(m/2-1) / ((2π)^(m/2) I_(m/2-1)(κ))

with ê the predicted vector and e(w) the unit-norm target embedding. The
regularized variants add λ1‖ê‖, or weight the cosine term by λ2:
-log C_m(‖ê‖) - λ2 ê·e(w). `log C_m` is computed exactly in float64 from the
exponentially scaled Bessel function (log I_v(κ) = log ive(v, κ) + κ) with the
exact gradient d/dκ log C_m(κ) = -I_(m/2)(κ) / I_(m/2-1)(κ), or with the
closed-form approximation Kumar & Tsvetkov give, which has the gradient
-κ / (m/2 - 1 + sqrt((m/2 + 1)^2 + κ^2)) and differs from the exact value by a
κ-independent constant (irrelevant to training; the loss values then differ).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import Tensor

from phrasenmt.precision import full_precision

KAPPA_MIN = 1e-6  # ‖ê‖ is clamped here: log C_m is unbounded at κ = 0


def _series(v: float, kappa: np.ndarray, terms: int = 40) -> np.ndarray:
    """Σ_k (κ²/4)^k / (k! (v+1)_k): I_v(κ) = (κ/2)^v / Γ(v+1) times this sum."""
    term, total = np.ones_like(kappa), np.ones_like(kappa)
    for k in range(1, terms + 1):
        term = term * (kappa**2 / 4) / (k * (v + k))
        total = total + term
    return total


def _log_bessel_iv(v: float, kappa: np.ndarray) -> np.ndarray:
    """log I_v(κ) in float64; the power series where ive underflows (κ << v)."""
    from scipy.special import gammaln, ive  # here: 0.4 s of every CLI's start-up

    scaled = ive(v, kappa)
    out = np.empty_like(kappa)
    ok = scaled > 0
    out[ok] = np.log(scaled[ok]) + kappa[ok]
    small = kappa[~ok]
    out[~ok] = v * np.log(small / 2) - gammaln(v + 1) + np.log(_series(v, small))
    return out


def bessel_ratio(v: float, kappa: np.ndarray) -> np.ndarray:
    """I_(v+1)(κ) / I_v(κ) in float64 (from the power series where ive underflows)."""
    from scipy.special import ive

    num, den = ive(v + 1, kappa), ive(v, kappa)
    ok = den > 0
    out = np.empty_like(kappa)
    out[ok] = num[ok] / den[ok]
    small = kappa[~ok]
    out[~ok] = small / (2 * (v + 1)) * _series(v + 1, small) / _series(v, small)
    return out


def log_cmk_numpy(m: int, kappa: np.ndarray) -> np.ndarray:
    """Exact log C_m(κ) in float64 (reference implementation, no autograd)."""
    v = m / 2 - 1
    return v * np.log(kappa) - (m / 2) * math.log(2 * math.pi) - _log_bessel_iv(v, kappa)


class LogCmk(torch.autograd.Function):
    """Exact log C_m(κ) with its exact gradient -I_(m/2)(κ) / I_(m/2-1)(κ)."""

    @staticmethod
    def forward(ctx, kappa: Tensor, m: int) -> Tensor:
        k = kappa.detach().double().cpu().numpy()
        ctx.m = m
        ctx.save_for_backward(kappa)
        return torch.from_numpy(log_cmk_numpy(m, k)).to(kappa.device, kappa.dtype)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple[Tensor, None]:
        (kappa,) = ctx.saved_tensors
        k = kappa.detach().double().cpu().numpy()
        ratio = torch.from_numpy(bessel_ratio(ctx.m / 2 - 1, k))
        return -grad * ratio.to(kappa.device, grad.dtype), None


def log_cmk_approx(m: int, kappa: Tensor) -> Tensor:
    """Kumar & Tsvetkov's closed form: log C_m(κ) up to a constant in κ."""
    v = m / 2
    root = torch.sqrt((v + 1) ** 2 + kappa**2)
    return -root + (v - 1) * torch.log(v - 1 + root)


def log_cmk(m: int, kappa: Tensor, approximate: bool = False) -> Tensor:
    """log C_m(κ) elementwise (exact, or the closed-form approximation)."""
    kappa = kappa.clamp(min=KAPPA_MIN)
    return log_cmk_approx(m, kappa) if approximate else LogCmk.apply(kappa, m)


@full_precision
def vmf_loss(pred: Tensor, target: Tensor, lambda1: float = 0.0, lambda2: float = 1.0,
             approximate: bool = False) -> tuple[Tensor, Tensor]:
    """pred (N, m), unit-norm target (N, m) -> (regularized loss, NLLvMF), each (N,).

    The regularized loss is -log C_m(‖ê‖) - λ2 ê·e(w) + λ1‖ê‖; with λ1 = 0 and
    λ2 = 1 it equals the plain NLLvMF. Outside autocast, in float32 at least:
    the normaliser log C_m(κ) is a log-Bessel function of the prediction's norm.
    """
    pred = pred.float()
    kappa = pred.norm(dim=-1)  # (N,)
    log_c = log_cmk(pred.size(-1), kappa, approximate)  # (N,)
    dot = (pred * target).sum(dim=-1)  # (N,)
    nll = -log_c - dot
    loss = -log_c - lambda2 * dot + lambda1 * kappa
    return loss, nll
