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


def _tree(pid: int) -> list[int]:
    """`pid` and every process below it (Linux /proc)."""
    out = [pid]
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            kids = (task / "children").read_text().split()
        except OSError:
            continue
        for kid in map(int, kids):
            out += _tree(kid)
    return out


def _trains(pid: int) -> bool:
    """Whether process `pid` is alive and runs `phrasenmt.train`."""
    try:
        return b"phrasenmt.train" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def test_a_signal_to_every_process_of_a_job_is_the_training_s_exit_75(tmp_path: Path):
    """SLURM with proctrack/linuxproc signals every process of a job at once:
    the job's Snakemake, the rule's shell and the training. The shell must not
    end before the training has saved (the rules `exec` the training), so that
    Snakemake waits for it and reports its status 75, and no training is left
    running after its job."""
    from tests.cluster.test_slurm import TINY

    config = {**TINY, "models": {"transformer": {
        **TINY["models"]["transformer"], "gpus": 0,
        "train": {"max_steps": 20000, "valid_interval": 10000, "save_interval": 10000,
                  "log_interval": 20}}}}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    rel = "results/tiny/models/transformer/seed1"
    model = tmp_path / rel
    cmd = [sys.executable, "-m", "snakemake",
           *run_args(tmp_path, "--cores", "1", f"{rel}/summary.json")]
    log_path = tmp_path / "snakemake.out"  # a file: a full pipe would stop Snakemake
    with log_path.open("w") as sink:
        proc = subprocess.Popen(cmd, cwd=REPO, stdout=sink, stderr=subprocess.STDOUT,
                                start_new_session=True,
                                env={**LOCAL_ENV, "PHRASENMT_WARM": "0"})
    try:
        deadline = time.time() + 300
        while not ((model / "metrics.tsv").is_file()
                   and len((model / "metrics.tsv").read_text().splitlines()) > 2):
            assert time.time() < deadline and proc.poll() is None
            time.sleep(0.05)
        processes = _tree(proc.pid)
        assert any(_trains(pid) for pid in processes), processes
        for pid in processes:
            os.kill(pid, signal.SIGTERM)
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:  # a failed check above: leave nothing running
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode != 0
    out = log_path.read_text()
    assert "returned non-zero exit status 75" in out, out[-3000:]
    log = (tmp_path / "results/logs/train/tiny.transformer.seed1.log").read_text()
    assert "stopped: training stopped by SIGTERM at step " in log, log[-2000:]
    left = [pid for pid in processes if _trains(pid)]
    assert not left, left
