"""glibc's malloc settings for stage processes (phrasenmt/allocator.py)."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys

import pytest

from phrasenmt import allocator


def glibc() -> bool:
    try:
        ctypes.CDLL(None).gnu_get_libc_version  # noqa: B018
    except (OSError, AttributeError):
        return False
    return sys.platform.startswith("linux")


needs_glibc = pytest.mark.skipif(not glibc(), reason="glibc's mallopt only")

# A stage start (`-m` first in sys.argv, as `python -m phrasenmt.<stage>` has
# it when phrasenmt/__init__.py runs), then blocks of 0.25 to 10 MiB allocated,
# zeroed and freed: page faults counted.
FAULTS = """
import resource, sys
sys.argv[:1] = ["-m"]
import phrasenmt
keep, before = [], resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for i in range(400):
    keep.append(bytearray((1 + (i * 7919) % 40) << 18))
    if len(keep) > 3:
        keep.pop(0)
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def no_malloc_settings() -> dict[str, str]:
    """This environment without any malloc setting of the user's."""
    theirs = (*allocator.USER_VARIABLES, "GLIBC_TUNABLES", "PHRASENMT_MALLOC")
    return {k: v for k, v in os.environ.items() if k not in theirs}


def faults(**env: str) -> int:
    out = subprocess.run([sys.executable, "-c", FAULTS],
                         env={**no_malloc_settings(), **env},
                         capture_output=True, text=True, check=True)
    return int(out.stdout)


@needs_glibc
def test_a_stage_start_keeps_freed_memory_for_reuse():
    tuned, default = faults(), faults(PHRASENMT_MALLOC="default")
    # glibc's own settings map every block above 128 KiB afresh: each page
    # faults again (about 113,000 here); tuned, the heap keeps them (about 10,000)
    assert tuned * 3 < default, (tuned, default)


@needs_glibc
def test_the_users_own_malloc_settings_are_left_alone():
    assert faults(MALLOC_ARENA_MAX="2") > 3 * faults()


@needs_glibc
def test_tune_sets_all_three_on_glibc():
    assert allocator.tune({}) is True


@pytest.mark.parametrize(("env", "theirs"), [
    ({}, False),
    ({"PATH": "/bin"}, False),
    ({"MALLOC_ARENA_MAX": "2"}, True),
    ({"MALLOC_TRIM_THRESHOLD_": "0"}, True),
    ({"GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=65536"}, True),
    ({"GLIBC_TUNABLES": "glibc.rtld.nns=2"}, False),
    ({"PHRASENMT_MALLOC": "default"}, True),
])
def test_user_settings(env, theirs):
    assert allocator.user_settings(env) is theirs
    if theirs:
        assert allocator.tune(env) is False


WARM_STARTER = """
from phrasenmt import warm
warm._stage = lambda: ("faulter", [])  # the loop above as a stage, run in a fork
warm.hand_off()
"""


@needs_glibc
@pytest.mark.skipif(os.path.exists("/proc/driver/nvidia"), reason="no warm start there")
def test_a_warm_started_stage_inherits_the_servers_settings(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("alloc")  # short: a socket's path has ~107 bytes
    (tmp_path / "faulter.py").write_text(FAULTS.replace("import phrasenmt", ""),
                                         encoding="utf-8")
    counts = {}
    for name, extra in (("tuned", {}), ("default", {"PHRASENMT_MALLOC": "default"})):
        tmpdir = tmp_path / name  # a server of its own: it starts with this env
        tmpdir.mkdir()
        env = no_malloc_settings()
        env.update(extra, PHRASENMT_WARM="1", TMPDIR=str(tmpdir))
        out = subprocess.run([sys.executable, "-c", WARM_STARTER], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=300, check=True)
        assert out.stdout.strip(), f"no warm start: {out.stderr}"
        counts[name] = int(out.stdout)
    assert counts["tuned"] * 3 < counts["default"], counts


def test_an_unknown_phrasenmt_malloc_is_refused_in_one_line():
    env = {k: v for k, v in os.environ.items() if k != "PHRASENMT_WARM"}
    run = subprocess.run([sys.executable, "-m", "phrasenmt.data.detokenize", "--help"],
                         env={**env, "PHRASENMT_MALLOC": "off"}, capture_output=True,
                         text=True, check=False)
    assert run.returncode == 2
    assert run.stderr.splitlines() == [(
        "error: PHRASENMT_MALLOC='off' is not a setting: unset it, or set it to "
        "'default' to keep glibc's own malloc settings")]
    with pytest.raises(SystemExit):
        allocator.user_settings({"PHRASENMT_MALLOC": "glibc"})
