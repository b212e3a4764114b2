"""Snakemake killed in the middle of training and started again gives the same results.

Both runs start from copies of the shared tiny run (its data, BPE and
alignments are there already) with one more model that trains long enough to
be killed between two checkpoints."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
import yaml

from tests.conftest import LOCAL_ENV, REPO, snakemake
from tests.workflow.conftest import TINY_CONFIG, copy_of, run_args

pytestmark = pytest.mark.slow

RESUMED = {"arch": "transformer", "preset": "tiny", "datasets": ["tiny_en_de"],
           "model": {"d_model": 16, "d_ff": 32, "n_heads": 2},
           "train": {"max_steps": 30, "valid_interval": 10, "save_interval": 5,
                     "average_last": 2}}
TARGET = "results/tiny_en_de/translations/resumed/seed1/test.txt"
MODEL = "results/tiny_en_de/models/resumed/seed1"


def _args(workdir: Path) -> list[str]:
    config = yaml.safe_load(TINY_CONFIG.read_text(encoding="utf-8"))
    config["models"]["resumed"] = RESUMED
    (workdir / "config.yaml").write_text(yaml.safe_dump(config))
    return run_args(workdir, "--cores", "1", TARGET)


def test_killed_snakemake_restarts_to_the_same_results(tiny_run: Path, tmp_path: Path):
    whole = copy_of(tiny_run, tmp_path / "whole")
    killed = copy_of(tiny_run, tmp_path / "killed")
    cmd = [sys.executable, "-m", "snakemake", *_args(killed)]
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True,
                            env=LOCAL_ENV)
    deadline = time.time() + 300
    while not (killed / MODEL / "checkpoints" / "checkpoint_10.pt").exists():
        assert time.time() < deadline and proc.poll() is None
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # snakemake and its jobs, no clean-up at all
    proc.wait()
    assert not (killed / MODEL / "summary.json").exists()
    assert snakemake(*_args(killed), "--unlock").returncode == 0
    again = snakemake(*_args(killed))
    assert again.returncode == 0, again.stderr[-3000:]
    log = killed / "results/logs/train/tiny_en_de.resumed.seed1.log"
    assert "resuming from" in log.read_text()
    first = snakemake(*_args(whole))
    assert first.returncode == 0, first.stderr[-3000:]
    assert (killed / TARGET).read_text() == (whole / TARGET).read_text()
    a, b = (torch.load(d / MODEL / "averaged.pt", weights_only=False)["model"]
            for d in (killed, whole))
    for name, tensor in a.items():
        assert torch.equal(tensor, b[name]), name
