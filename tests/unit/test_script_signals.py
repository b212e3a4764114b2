"""Long-running scripts end on SIGTERM with a non-zero status within 30 s:
the GPU check (whose in-process trainings take the signal as a preemption and
pass it on) and the A/B benchmark."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.slow  # each starts Python with torch, then trains


def stop_when(argv: list[str], started, limit: float = 240.0) -> tuple[int, float, str]:
    """Start `argv`; once `started()` holds, send SIGTERM -> (status, seconds it
    took to end, output)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(REPO)]),
           "PYTHONFAULTHANDLER": "1"}  # SIGABRT dumps every thread's stack
    proc = subprocess.Popen([sys.executable, *argv], cwd=REPO, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        end = time.monotonic() + limit
        while not started() and proc.poll() is None and time.monotonic() < end:
            time.sleep(0.2)
        assert proc.poll() is None, "ended before it could be stopped: " + \
            proc.communicate()[0][-2000:]
        assert started(), "did not reach the point where it is stopped"
        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        try:
            out, _ = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:  # where it hangs, for the failure
            proc.send_signal(signal.SIGABRT)
            out, _ = proc.communicate(timeout=30)
            pytest.fail("still running 60 s after SIGTERM; its stacks:\n" + out[-6000:])
        return proc.returncode, time.monotonic() - sent, out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def test_sigterm_ends_the_gpu_check_during_a_training(tmp_path):
    out, work = tmp_path / "out", tmp_path / "work"
    status, seconds, text = stop_when(
        ["-m", "tests.gpu.check", "--device", "cpu", "--out", str(out), "--work",
         str(work), "--archs", "transformer", "attn_rnn", "--updates", "400",
         "--train-size", "400", "--ddp", "off"],
        lambda: any(work.glob("transformer/**/metrics.tsv")))
    assert status == 128 + signal.SIGTERM and seconds < 30, text[-2000:]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "STOPPED"
    assert not summary["families"]  # the next family did not start
    assert "stopped by a signal" in text


def test_sigterm_ends_the_ab_benchmark(tmp_path):
    out = tmp_path / "ab.json"
    status, seconds, text = stop_when(
        ["-m", "experiments.gpu_ab", "--device", "cpu", "--out", str(out),
         "--rounds", "200"],
        lambda: out.is_file())  # the first variant's figures are written
    assert status == 128 + signal.SIGTERM and seconds < 30, text[-2000:]
    assert json.loads(out.read_text())["status"] == "STOPPED"
