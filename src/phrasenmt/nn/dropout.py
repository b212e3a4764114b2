"""Dropout whose mask is cheap to draw on a CPU.

`torch.nn.Dropout` draws its mask with `bernoulli_`, which on a CPU costs more
than twice as much as drawing uniform numbers and comparing them with p: in a
`small` Transformer update at 2 threads it was 15 % of the time, more than the
attention (`python -m benchmarks.speed --suite ceiling --profile`). `Dropout`
here keeps a unit when a uniform draw u in [0, 1) has u >= p, so with
probability 1 - p, and scales it by 1 / (1 - p), as `nn.Dropout` does: the
same distribution, another draw. It does so on fp32 tensors in CPU training;
on a GPU (whose fused dropout is fast), on bf16 or fp16 tensors (autocast's,
whose scale would be rounded), in `torch.compile` (which makes its own) and in
eval it is `nn.Dropout`. Draws come from the global generator, so seeded runs repeat
and resume as before; they differ from `nn.Dropout`'s, so a CPU run from
before this module does not repeat bit for bit.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn


def _compiling() -> bool:
    """Whether torch.compile is tracing (torch.compiler.is_compiling from 2.3)."""
    check = getattr(getattr(torch, "compiler", None), "is_compiling", None)
    if check is None:  # torch 2.2
        from torch import _dynamo

        check = _dynamo.is_compiling
    return bool(check())


class _UniformMaskDropout(torch.autograd.Function):
    """y = x * m / (1 - p), m = [u >= p] for u uniform in [0, 1); the scaled mask
    (one fp32 tensor) is what backward needs."""

    @staticmethod
    def forward(ctx, x: Tensor, p: float) -> Tensor:  # type: ignore[override]
        keep = torch.rand(x.shape, dtype=torch.float32, device=x.device)
        keep = keep.ge_(p).mul_(1.0 / (1.0 - p))  # 0 or 1 / (1 - p), in place
        ctx.save_for_backward(keep)
        return x * keep

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple[Tensor, None]:  # type: ignore[override]
        (keep,) = ctx.saved_tensors
        return grad * keep, None


def uniform_mask_applies(x: Tensor, p: float, training: bool) -> bool:
    """Whether `Dropout` draws its own mask for `x` (else `nn.Dropout` does)."""
    return (training and 0.0 < p < 1.0 and x.device.type == "cpu"
            and x.dtype == torch.float32 and not _compiling())


class Dropout(nn.Dropout):
    """`nn.Dropout` with a uniform-draw mask in fp32 CPU training (see above).
    Holds no state, so checkpoints are those of `nn.Dropout`."""

    def forward(self, x: Tensor) -> Tensor:
        if self.inplace or not uniform_mask_applies(x, self.p, self.training):
            return super().forward(x)
        return _UniformMaskDropout.apply(x, self.p)
