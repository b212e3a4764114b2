"""glibc's malloc settings for a stage process: freed memory stays for reuse.

An update allocates and frees hundreds of tensors of 0.1 to 10 MB. glibc
serves a block above its mmap threshold (128 KiB at the start, raised only
when such a block is freed) with fresh pages from the kernel, which zeroes
each page on its first touch, and returns the top of the heap to the kernel
once more than the trim threshold is free there. A training step then
faults in the same memory again and again: on the default run's
`ctx_transformer` step 2 (one thread, fp32), 160 updates took 449,000 to
663,000 minor page faults and 127.2 ms each, with the settings below about
35,000 and 121.1 ms (`experiments/malloc_ab.py`, three alternating rounds:
docs/results/2026-12-06-step2-budget-default-run.md).

`tune()` sets three fixed thresholds with `mallopt` (M_MMAP_THRESHOLD 32 MiB,
M_TRIM_THRESHOLD 256 MiB, M_TOP_PAD 64 MiB), which also stops glibc moving
them. A process keeps up to about 320 MB more freed memory for reuse. It
runs once per stage start (`phrasenmt/__init__.py`, and the warm-start
server before its imports, whose forks inherit the settings). It changes no
result, only where freed memory goes. It does nothing outside glibc (musl,
macOS), nor where the user chose settings of their own (a `MALLOC_*_`
variable or `glibc.malloc` in `GLIBC_TUNABLES`), nor with
`PHRASENMT_MALLOC=default`; another value of it is refused in one line.

Standard library only: it runs before anything else is imported.
"""

from __future__ import annotations

import ctypes
import os
import sys

M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3  # glibc's malloc.h
SETTINGS = {M_MMAP_THRESHOLD: 32 << 20, M_TRIM_THRESHOLD: 256 << 20,
            M_TOP_PAD: 64 << 20}
USER_VARIABLES = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_",
                  "MALLOC_TOP_PAD_", "MALLOC_MMAP_MAX_", "MALLOC_ARENA_MAX")


def user_settings(env: dict[str, str] | os._Environ) -> bool:
    """Whether the environment already sets glibc's malloc or asks us not to;
    a PHRASENMT_MALLOC other than `default` ends the process with one line."""
    choice = env.get("PHRASENMT_MALLOC")
    if choice == "default":
        return True
    if choice is not None:
        sys.stderr.write(f"error: PHRASENMT_MALLOC={choice!r} is not a setting: unset "
                         "it, or set it to 'default' to keep glibc's own malloc "
                         "settings\n")
        raise SystemExit(2)
    return (any(name in env for name in USER_VARIABLES)
            or "glibc.malloc" in env.get("GLIBC_TUNABLES", ""))


def tune(env: dict[str, str] | os._Environ | None = None) -> bool:
    """Set SETTINGS in this process -> whether glibc took all three."""
    if not sys.platform.startswith("linux") or user_settings(
            os.environ if env is None else env):
        return False
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
        libc.gnu_get_libc_version  # noqa: B018 - glibc only (musl has mallopt too)
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    taken = [mallopt(param, value) for param, value in SETTINGS.items()]  # all three
    return all(ok == 1 for ok in taken)
