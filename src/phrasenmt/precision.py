"""Numeric precision of training, scoring and decoding: fp32, or bf16 autocast.

`--precision` (config `precision:`, per model `models.<name>.precision`) takes
`auto`, `fp32` or `bf16`. `auto` resolves per device (`resolve`):

- a CUDA device: bf16 where `torch.cuda.is_bf16_supported()` says so;
- a CPU: bf16 where the `flags` line of /proc/cpuinfo lists `amx_bf16` (Intel
  AMX tiles) or `avx512_bf16` (AVX-512 BF16 dot products), the instructions
  oneDNN uses for bf16 matrix products; without them bf16 is emulated and
  slower than fp32 (about 10x on an AMD EPYC without them), and a CPU whose
  flags cannot be read (no /proc/cpuinfo) counts as one without them;
- fp32 everywhere else.

bf16 asked for explicitly is honoured on any device: autocast runs on every
CPU, only slowly without native bf16, which `resolve` says in one warning line.

bf16 means `torch.autocast(device, dtype=torch.bfloat16)` around the forward
pass: autocast casts copies of the weights for the matrix products it lists
(linear, matmul, bmm, attention, RNN layers), and nothing else. The weights,
their gradients and the optimizer state stay float32, so checkpoints are the
same whatever the precision and a run may resume in another one. Losses and
log-sum-exp reductions run outside autocast on inputs cast up to at least
float32 (`full_precision`): label-smoothed cross entropy, the vMF loss with its
normaliser log C_m(κ), NPMT's segment dynamic program (float64).

Recurrent layers (LSTM, GRU) on a CPU run in float32 in every precision
(`run_rnn`): oneDNN has no bf16 LSTM without native bf16 (the call fails
under autocast on such a CPU), and PyTorch's CPU autocast leaves GRUs and
packed sequences in float32 anyway; so attn_rnn, CoNMT/PCoNMT and NPMT get
bf16 only in their linear layers and attention there. On CUDA they autocast.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import torch
from torch.nn.utils.rnn import PackedSequence

PRECISIONS = ("auto", "fp32", "bf16")  # the values of --precision / precision:
BF16_CPU_FLAGS = ("amx_bf16", "avx512_bf16")  # /proc/cpuinfo flags of native bf16
CPUINFO = Path("/proc/cpuinfo")

F = TypeVar("F", bound=Callable[..., Any])


def cpu_flags(cpuinfo: Path = CPUINFO) -> frozenset[str]:
    """The feature flags of the first CPU in /proc/cpuinfo (empty if unreadable)."""
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return frozenset()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "flags":
            return frozenset(value.split())
    return frozenset()


def cpu_has_native_bf16(flags: Iterable[str]) -> bool:
    """Whether CPU flags include AMX-BF16 or AVX-512 BF16."""
    return not set(BF16_CPU_FLAGS).isdisjoint(flags)


def device_has_native_bf16(device: torch.device,
                           flags: Iterable[str] | None = None) -> bool:
    """Whether `device` runs bf16 matrix products natively (flags: CPU's, if given)."""
    if device.type == "cuda":
        return torch.cuda.is_available() and torch.cuda.is_bf16_supported()
    if device.type == "cpu":
        return cpu_has_native_bf16(cpu_flags() if flags is None else flags)
    return False


def resolve(precision: str, device: torch.device, flags: Iterable[str] | None = None,
            warn: bool = True) -> str:
    """auto -> bf16 or fp32 for `device`; fp32, bf16 stay (bf16 may warn, once)."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, "
                         f"got {precision!r}")
    flags = None if flags is None else frozenset(flags)
    native = device_has_native_bf16(device, flags)
    if precision == "auto":
        return "bf16" if native else "fp32"
    if precision == "bf16" and not native and warn:
        where = ("this CPU has no native bf16 (no amx_bf16 or avx512_bf16 in "
                 "/proc/cpuinfo)" if device.type == "cpu"
                 else f"{device} has no native bf16")
        print(f"warning: --precision bf16: {where}; bf16 autocast is emulated and "
              "will be slow (auto would pick fp32)", file=sys.stderr)
    return precision


def autocast(precision: str, device: torch.device) -> contextlib.AbstractContextManager:
    """bf16 autocast on `device` for "bf16"; nothing for "fp32" (resolved values)."""
    if precision == "bf16":
        return torch.autocast(device.type, dtype=torch.bfloat16)
    if precision == "fp32":
        return contextlib.nullcontext()
    raise ValueError(f"resolve precision {precision!r} first (fp32 or bf16)")


def run_rnn(rnn: torch.nn.RNNBase, inputs: Any, hidden: Any = None) -> Any:
    """rnn(inputs, hidden); on a CPU outside autocast, inputs cast to float32."""
    data = inputs.data if isinstance(inputs, PackedSequence) else inputs
    if data.device.type != "cpu" or not torch.is_autocast_enabled("cpu"):
        return rnn(inputs, hidden)
    if isinstance(hidden, tuple):  # an LSTM's (h, c)
        hidden = tuple(h.float() for h in hidden)
    elif hidden is not None:
        hidden = hidden.float()
    with torch.autocast("cpu", enabled=False):
        return rnn(inputs.float(), hidden)


def _up(value: Any) -> Any:
    """A floating tensor below float32 -> float32; anything else unchanged."""
    if isinstance(value, torch.Tensor) and value.is_floating_point() and (
            torch.finfo(value.dtype).bits < 32):
        return value.float()
    return value


AUTOCAST_DEVICES = ("cpu", "cuda")  # the device types autocast may be on for


def any_autocast() -> bool:
    """Whether autocast is on for any of AUTOCAST_DEVICES."""
    return any(torch.is_autocast_enabled(d) for d in AUTOCAST_DEVICES)


def full_precision(fn: F) -> F:
    """Decorator: run `fn` outside autocast, its tensor arguments cast up to fp32.

    For losses and log-sum-exp reductions: whatever autocast made of the forward
    pass, they compute in float32 (or float64 where their inputs are).
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        args = tuple(_up(a) for a in args)
        kwargs = {k: _up(v) for k, v in kwargs.items()}
        with contextlib.ExitStack() as stack:
            for device_type in AUTOCAST_DEVICES:
                if torch.is_autocast_enabled(device_type):
                    stack.enter_context(torch.autocast(device_type, enabled=False))
            return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def add_precision_argument(parser: argparse.ArgumentParser) -> None:
    """The --precision option every training, scoring and decoding CLI takes."""
    parser.add_argument("--precision", choices=PRECISIONS, default="auto",
                        help="auto: bf16 autocast where the device has native bf16 "
                        "(CUDA with bf16; a CPU with amx_bf16 or avx512_bf16), else "
                        "fp32; weights and losses stay fp32")
