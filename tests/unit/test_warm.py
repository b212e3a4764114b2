"""Warm start (phrasenmt/warm.py): a stage handed to the warm server gives what
it gives started cold, and a stopped or killed starter stops its stage."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from phrasenmt import warm

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="warm start is for Linux")
on_a_gpu_machine = pytest.mark.skipif(os.path.exists("/proc/driver/nvidia"),
                                      reason="warm start is off where an NVIDIA driver is")


@pytest.fixture(scope="module")
def tmp(tmp_path_factory) -> Path:
    """A folder for the inputs and a TMPDIR of its own (the server's socket)."""
    root = tmp_path_factory.mktemp("warm")
    (root / "tmp").mkdir()
    (root / "in.en").write_text("Hello , world !\nit 's &apos; fine\n", encoding="utf-8")
    return root


def stage(tmp: Path, warm_on: bool, *args: str, **kw) -> subprocess.CompletedProcess:
    env = dict(os.environ, PHRASENMT_WARM="1" if warm_on else "0",
               TMPDIR=str(tmp / "tmp"))
    return subprocess.run([sys.executable, "-m", "phrasenmt.data.detokenize", *args],
                          cwd=tmp, env=env, capture_output=True, text=True,
                          timeout=300, check=False, **kw)


@on_a_gpu_machine
@pytest.mark.parametrize("args", [
    ["--lang", "en", "--in", "in.en", "--out", "OUT"],
    ["--lang", "en", "--in", "missing.en", "--out", "OUT"],  # one error line, exit 1
    ["--lang", "en"],  # a usage error, exit 2
    ["--help"],
], ids=["good", "missing file", "usage", "help"])
def test_a_warm_stage_gives_what_a_cold_one_gives(tmp: Path, args: list[str]):
    done = {}
    for on in (False, True, True):  # the second warm start meets a running server
        out = tmp / f"out.{on}"
        out.unlink(missing_ok=True)
        run = stage(tmp, on, *[str(out) if a == "OUT" else a for a in args])
        made = out.read_bytes() if out.exists() else None
        done.setdefault(on, []).append((run.returncode, run.stdout,
                                        run.stderr.replace(str(out), "OUT"), made))
    assert done[True][0] == done[True][1] == done[False][0]
    assert list((tmp / "tmp").glob(f"phrasenmt-warm-{os.getuid()}/*.sock"))


STARTER = """
from phrasenmt import warm
warm._stage = lambda: ("sleeper", [])  # a stage that waits to be stopped
warm.hand_off()
"""


def test_sigterm_to_the_starter_reaches_the_stage(tmp: Path):
    (tmp / "sleeper.py").write_text(
        "import sys, time\nprint('started', flush=True)\ntime.sleep(120)\n",
        encoding="utf-8")
    env = dict(os.environ, PHRASENMT_WARM="1", TMPDIR=str(tmp / "tmp"))
    proc = subprocess.Popen([sys.executable, "-c", STARTER], cwd=tmp, env=env,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "started\n"  # in the fork, on the starter's stdout
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == -signal.SIGTERM  # the stage ended by it, and so the starter


def test_a_killed_starter_takes_its_stage_with_it(tmp: Path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp / "tmp"))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # read TMPDIR again
    (tmp / "sleeper.py").write_text("import time\ntime.sleep(120)\n", encoding="utf-8")
    sock = warm._server(warm.socket_path())
    assert sock is not None
    with open(os.devnull, "rb") as null_in, open(os.devnull, "wb") as null_out:
        warm._send(sock, {"module": "sleeper", "args": [], "cwd": str(tmp),
                          "env": dict(os.environ)},
                   [null_in.fileno(), null_out.fileno(), null_out.fileno()])
        reply, _ = warm._receive(sock)
    pid = reply["pid"]
    os.kill(pid, 0)  # running
    sock.close()  # what the starter's death does to its end
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"the stage {pid} outlived its starter")


def test_where_it_does_not_apply_the_stage_starts_as_usual(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["-m"])
    monkeypatch.setattr(sys, "orig_argv", [sys.executable, "-m", "phrasenmt.train"])
    monkeypatch.setenv("PHRASENMT_WARM", "1")
    for name in warm._OFF_IN:
        monkeypatch.delenv(name, raising=False)
    real_exists = os.path.exists
    monkeypatch.setattr(os.path, "exists", lambda p: False if p == "/proc/driver/nvidia"
                        else real_exists(p))
    assert warm._stage() == ("phrasenmt.train", [])
    monkeypatch.setenv("SLURM_JOB_ID", "7")  # a cluster job: its server would die with it
    assert warm._stage() is None
    monkeypatch.delenv("SLURM_JOB_ID")
    monkeypatch.setattr(sys, "orig_argv", [sys.executable, "-u", "-m", "phrasenmt.train"])
    assert warm._stage() is None  # interpreter options the fork could not honour
    monkeypatch.setattr(sys, "orig_argv", [sys.executable, "-m", "other.module"])
    assert warm._stage() is None
    monkeypatch.setattr(sys, "orig_argv", [sys.executable, "-m", "phrasenmt.train"])
    monkeypatch.setattr(os.path, "exists", lambda p: True if p == "/proc/driver/nvidia"
                        else real_exists(p))
    assert warm._stage() is None  # a GPU machine
    monkeypatch.setattr(os.path, "exists", real_exists)
    monkeypatch.setenv("PHRASENMT_WARM", "0")
    assert warm._stage() is None
