"""The kernels suite's count of operators (benchmarks/kernels.py)."""

from __future__ import annotations

import torch
from torch.profiler import ProfilerActivity, profile

from benchmarks.kernels import count


def test_count_sorts_operators_into_all_compute_and_read_backs():
    """A linear counts once as a kernel (not its GEMM and bias copy again),
    views and allocations none, a scalar read as a read-back; backward work
    goes to the backward phase."""
    x = torch.randn(4, 3, requires_grad=True)
    w, b = torch.randn(5, 3), torch.randn(5)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        y = torch.nn.functional.linear(x, w, b).view(20)  # linear: 1; view: 0
        z = torch.empty(3)  # an allocation: 0
        n = int(y.argmax())  # argmax: 1; a read-back
        y.sum().backward()  # sum, its seed: 2; backward: its own operators
    got = count(prof.events())
    assert got["read_backs"] == 1 and n >= 0 and z.numel() == 3
    assert got["all"] > got["compute"]
    # linear, argmax, sum and the ones_like that seeds the backward pass
    assert got["compute_by_phase"]["forward"] == 4, got["top_compute"]
    assert got["compute_by_phase"]["backward"] >= 1
    assert got["compute_by_phase"]["optimizer"] == 0
    assert got["top_compute"]["aten::linear"] == 1
    assert "aten::addmm" not in got["top_compute"]
    assert "aten::view" not in got["top_compute"]
