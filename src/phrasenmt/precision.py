"""Numeric precision of training, scoring and decoding: fp32, or bf16 autocast.

`--precision` (config `precision:`, per model `models.<name>.precision`) takes
`auto`, `fp32` or `bf16`. `auto` resolves per device (`resolve`):

- a CUDA device: bf16 where `torch.cuda.is_bf16_supported()` says so;
- a CPU: bf16 only where the `flags` line of /proc/cpuinfo lists `amx_bf16`
  (Intel AMX tiles: a whole bf16 tile product per instruction) and the model
  is at least `AUTO_BF16_CPU_MIN_WIDTH` (256) wide (`model_width`: d_model,
  hidden_size or NPMT's decoder_hidden); a CPU whose flags cannot be read (no
  /proc/cpuinfo) counts as one without it;
- fp32 everywhere else.

The width rule: on a 2-core Intel Xeon with AMX, the precision suite's
Transformer update (`python -m benchmarks.speed --suite precision --parts bf16
--steps 5 --threads 1 --skip-torch`) took 1.21x as long in bf16 as in fp32 at
`tiny` (d_model 128), 0.80x at `small` (256) and 0.57x at `base` (512); the
default run's own trainings at `tiny` took 0.94x (attn_rnn) to 2.03x
(ctx_transformer's step 2) as long in bf16 (docs/results/2026-12-04-cpu-precision.md).
Below 256 the casts autocast adds to every product cost more than AMX saves.

`avx512_bf16` alone (AVX-512 BF16 dot products: AMD Zen 4, Intel Cooper Lake)
is native bf16 (oneDNN's bf16 kernels use it, so bf16 asked for explicitly
runs them), but `auto` does not pick it: on this project's 2-core AMD EPYC
(Zen 4, avx512_bf16, no AMX), `benchmarks/precision_speed.py --steps 10
--threads 1` (now the precision suite, benchmarks/precision.py) took 200.9 ms per fp32 update against 236.9 ms in bf16 (1.18x
slower; 1108 against 1324 ms with `--tokens 4096 --vocab 8000`), and bf16
changes the numbers. The rule is read from the flags, not from a timed probe:
a probe's answer would follow the machine's load at that moment, and the same
config on the same machine could then train in fp32 one day and bf16 the next.

bf16 asked for explicitly is honoured on any device. On a CPU without native
bf16, oneDNN's own bf16 matrix products are about 60x slower than float32 ones
(a 4096x256x1024 product: 2.0 s against 32 ms on this project's AMD EPYC), so
there `Bf16MatmulInFp32` computes each bf16 matrix product (mm, addmm, bmm,
baddbmm, mv, addmv, dot: forward and backward) as a float32 product of its
bf16 inputs, rounded to bf16. The products of two bf16 numbers are exact in
float32 and native kernels accumulate in float32 too, so the result is what a
native bf16 kernel returns up to summation order (99.99% of elements equal,
the rest one bf16 step apart: tests/unit/test_precision.py). Everything else
autocast does (which operations run in bf16, attention's own bf16 kernel)
is unchanged. A bf16 update then takes about 1.5x an fp32 one instead of
12x: bf16's numbers without its speed, which `resolve` says in one warning
line (and why `auto` picks fp32 there).

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
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import torch
from torch.nn.utils.rnn import PackedSequence
from torch.utils._python_dispatch import (
    TorchDispatchMode,
    _get_current_dispatch_mode_stack,
)

from phrasenmt.log import get_logger

_log = get_logger(__name__)

PRECISIONS = ("auto", "fp32", "bf16")  # the values of --precision / precision:
BF16_CPU_FLAGS = ("amx_bf16", "avx512_bf16")  # /proc/cpuinfo flags of native bf16
AUTO_BF16_CPU_FLAGS = ("amx_bf16",)  # where `auto` picks bf16 on a CPU (AMX)
AUTO_BF16_CPU_MIN_WIDTH = 256  # ... for models at least this wide (module doc)
WIDTH_FIELDS = ("d_model", "hidden_size", "decoder_hidden")  # a config's width
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


def model_width(cfg: Any) -> int | None:
    """A model config's width, the inner size of most of its matrix products:
    the largest of its d_model (Transformers), hidden_size (RNNs) and
    decoder_hidden (NPMT); None when it has none of them."""
    found = [value for key in WIDTH_FIELDS
             if isinstance(value := getattr(cfg, key, None), int)]
    return max(found) if found else None


def bf16_pays(device: torch.device, flags: Iterable[str] | None = None,
              width: int | None = None) -> bool:
    """Whether `auto` picks bf16 on `device`: CUDA with bf16, or a CPU with AMX
    for a model of `width` at least AUTO_BF16_CPU_MIN_WIDTH (None: a width not
    known, judged by the flags alone)."""
    if device.type == "cpu":
        found = cpu_flags() if flags is None else flags
        wide = width is None or width >= AUTO_BF16_CPU_MIN_WIDTH
        return wide and not set(AUTO_BF16_CPU_FLAGS).isdisjoint(found)
    return device_has_native_bf16(device, flags)


def resolve(precision: str, device: torch.device, flags: Iterable[str] | None = None,
            warn: bool = True, width: int | None = None) -> str:
    """auto -> bf16 or fp32 for `device` and a model `width` wide (`bf16_pays`);
    fp32, bf16 stay (bf16 may warn, once)."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, "
                         f"got {precision!r}")
    flags = None if flags is None else frozenset(flags)
    native = device_has_native_bf16(device, flags)
    if precision == "auto":
        return "bf16" if bf16_pays(device, flags, width) else "fp32"
    if precision == "bf16" and not native and warn:
        where = ("this CPU has no native bf16 (no amx_bf16 or avx512_bf16 in "
                 "/proc/cpuinfo)" if device.type == "cpu"
                 else f"{device} has no native bf16")
        how = ("its bf16 matrix products run as float32 products of bf16 inputs, "
               "rounded to bf16: bf16's numbers, no speed-up" if device.type == "cpu"
               else "bf16 will be slow")
        _log.warning(f"--precision bf16: {where}; {how} (auto would pick fp32)")
    return precision


_BF16 = torch.bfloat16
_aten = torch.ops.aten
# The matrix products whose bf16 kernels are slow without native bf16. Linear
# and matmul reach the dispatcher as these; attention has its own bf16 kernel,
# as fast as its float32 one, and is left alone.
BF16_MATMULS = frozenset({_aten.mm.default, _aten.addmm.default, _aten.bmm.default,
                          _aten.baddbmm.default, _aten.mv.default, _aten.addmv.default,
                          _aten.dot.default})


def _bf16_to_fp32(value: Any) -> Any:
    return value.float() if isinstance(value, torch.Tensor) and value.dtype == _BF16 \
        else value


class Bf16MatmulInFp32(TorchDispatchMode):
    """bf16 matrix products computed by float32 kernels, their result rounded to bf16.

    For CPUs without native bf16 (see the module docstring): the same numbers
    as oneDNN's bf16 kernels up to summation order, at float32 speed. Applies to
    every operation dispatched while active, backward passes included.
    """

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in BF16_MATMULS and any(isinstance(a, torch.Tensor) and a.dtype == _BF16
                                        for a in args):
            out = func(*map(_bf16_to_fp32, args),
                       **{k: _bf16_to_fp32(v) for k, v in kwargs.items()})
            return out.to(_BF16)
        return func(*args, **kwargs)


@functools.cache
def _this_cpu_has_native_bf16() -> bool:
    return cpu_has_native_bf16(cpu_flags())


def emulates_bf16(precision: str, device: torch.device) -> bool:
    """Whether bf16 matrix products on `device` run through Bf16MatmulInFp32."""
    return precision == "bf16" and device.type == "cpu" and not _this_cpu_has_native_bf16()


def kernels(precision: str, device: torch.device) -> contextlib.AbstractContextManager:
    """Bf16MatmulInFp32 where `emulates_bf16` (and it is not already on), else nothing.

    Around backward passes, which run outside autocast but multiply the bf16
    tensors its forward saved; `autocast` includes it for forward passes.
    """
    if emulates_bf16(precision, device) and not any(
            isinstance(m, Bf16MatmulInFp32) for m in _get_current_dispatch_mode_stack()):
        return Bf16MatmulInFp32()
    return contextlib.nullcontext()


class _Autocast:
    """Reusable context: bf16 autocast, and `kernels` where bf16 is emulated."""

    def __init__(self, device: torch.device):
        self.device, self.stacks = device, []

    def __enter__(self) -> None:
        stack = contextlib.ExitStack()
        stack.enter_context(torch.autocast(self.device.type, dtype=_BF16))
        stack.enter_context(kernels("bf16", self.device))
        self.stacks.append(stack)

    def __exit__(self, *exc: object) -> bool | None:
        return self.stacks.pop().__exit__(*exc)


def autocast(precision: str, device: torch.device) -> contextlib.AbstractContextManager:
    """bf16 autocast on `device` for "bf16"; nothing for "fp32" (resolved values).

    On a CPU without native bf16 it also runs `Bf16MatmulInFp32`. The context
    may be entered again after it exits, and nested.
    """
    if precision == "bf16":
        return _Autocast(device)
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
                        help="auto: bf16 autocast where it pays (CUDA with bf16; a "
                        "CPU with AMX, amx_bf16), else fp32; weights and losses "
                        "stay fp32")
