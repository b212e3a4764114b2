"""Snakemake killed in the middle of training and started again gives the same results."""

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

TINY = {
    "seed": 4,
    "run_datasets": ["tiny"],
    "datasets": {"tiny": {
        "source": "synthetic", "src": "en", "tgt": "de", "tokenize": False,
        "synthetic": {"train_size": 300, "dev_size": 20, "test_size": 30},
        "bpe": {"merges": 200},
    }},
    "models": {"transformer": {
        "arch": "transformer", "preset": "tiny",
        "model": {"d_model": 16, "d_ff": 32, "n_heads": 2},
        "train": {"max_steps": 60, "valid_interval": 20, "save_interval": 5,
                  "average_last": 2},
    }},
    "baseline": "transformer",
    "decode": {"beam": 2},
}
TARGET = "results/tiny/translations/transformer/seed1/test.txt"
MODEL = "results/tiny/models/transformer/seed1"


def _args(workdir: Path) -> list[str]:
    (workdir / "config.yaml").write_text(yaml.safe_dump(TINY))
    return ["--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir),
            "--configfile", str(workdir / "config.yaml"), "--cores", "1", TARGET]


@pytest.mark.slow
def test_killed_snakemake_restarts_to_the_same_results(tmp_path):
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    whole.mkdir(), killed.mkdir()
    cmd = [sys.executable, "-m", "snakemake", *_args(killed)]
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True,
                            env=LOCAL_ENV)
    deadline = time.time() + 300
    while not (killed / MODEL / "checkpoints" / "checkpoint_20.pt").exists():
        assert time.time() < deadline and proc.poll() is None
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # snakemake and its jobs, no clean-up at all
    proc.wait()
    assert not (killed / MODEL / "summary.json").exists()
    assert snakemake(*_args(killed), "--unlock").returncode == 0
    again = snakemake(*_args(killed))
    assert again.returncode == 0, again.stderr[-3000:]
    assert "resuming from" in (killed / "results/logs/train/tiny.transformer.seed1.log"
                               ).read_text()
    first = snakemake(*_args(whole))
    assert first.returncode == 0, first.stderr[-3000:]
    assert (killed / TARGET).read_text() == (whole / TARGET).read_text()
    a, b = (torch.load(d / MODEL / "averaged.pt", weights_only=False)["model"]
            for d in (killed, whole))
    for name, tensor in a.items():
        assert torch.equal(tensor, b[name]), name
