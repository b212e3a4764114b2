"""Data-parallel training: 2 ranks (torchrun, gloo, CPU) follow 1 process's losses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import torch

from phrasenmt.training.checkpoint import load_file
from tests.unit.test_checkpoint import data

# No dropout: each rank draws its own masks, so only dropout-free runs can match.
SPEC = {"model": {"d_model": 16, "d_ff": 32, "n_heads": 2, "dropout": 0.0,
                  "attention_dropout": 0.0},
        "train": {"max_steps": 8, "max_tokens": 120, "update_tokens": 300,
                  "save_interval": 4, "valid_interval": 4, "log_interval": 1,
                  "lr": 1e-3, "warmup_steps": 4}}


def _train(paths, outdir: Path, procs: int) -> list[float]:
    launcher = [sys.executable, "-m", "phrasenmt.train"]
    if procs > 1:
        launcher = [sys.executable, "-m", "torch.distributed.run", "--standalone",
                    "--nproc-per-node", str(procs), "-m", "phrasenmt.train"]
    args = ["--spec", json.dumps(SPEC), "--train-src", str(paths.train_src),
            "--train-tgt", str(paths.train_tgt), "--dev-src", str(paths.dev_src),
            "--dev-tgt", str(paths.dev_tgt), "--seed", "5", "--threads", "1",
            "--no-progress", "--device", "cpu", "--outdir", str(outdir)]
    result = subprocess.run([*launcher, *args], capture_output=True, text=True,
                            timeout=300, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    rows = (outdir / "metrics.tsv").read_text().splitlines()[1:]
    return [float(row.split("\t")[1]) for row in rows]


def test_two_ranks_follow_one_process_and_only_rank_0_writes(tmp_path):
    paths = data(tmp_path)
    single = _train(paths, tmp_path / "one", 1)
    double = _train(paths, tmp_path / "two", 2)
    print("1 process:", single, "\n2 ranks:  ", double)
    assert len(single) == len(double) == 8
    assert torch.allclose(torch.tensor(single), torch.tensor(double), rtol=1e-4)
    assert single[-1] < single[0]  # it learns, so the comparison means something
    # Weights agree closely overall (not per element: Adam blows up the ~1e-10
    # noise in the attention key bias's gradient, which is 0 in exact arithmetic).
    a = load_file(tmp_path / "one" / "checkpoints" / "checkpoint_8.pt")["model"]
    b = load_file(tmp_path / "two" / "checkpoints" / "checkpoint_8.pt")["model"]
    diff = sum((t - b[k]).norm() ** 2 for k, t in a.items()) ** 0.5
    assert diff / sum(t.norm() ** 2 for t in a.values()) ** 0.5 < 1e-3
    # only rank 0 wrote: one metrics row per step, one summary
    names = sorted(p.name for p in (tmp_path / "two").iterdir())
    events = [n for n in names if n.startswith("events.out.tfevents.")]
    assert len(events) == 1  # rank 0's TensorBoard file
    assert [n for n in names if n not in events] == [
        "checkpoints", "config.yaml", "metrics.tsv", "summary.json"]
    assert json.loads((tmp_path / "two" / "summary.json").read_text())["steps"] == 8
