"""Data-parallel training: 2 ranks (torchrun, gloo, CPU) follow 1 process's
losses, bit for bit where the ranks' gradient sum adds what one process adds;
collectives refuse a tensor the process group cannot reduce."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from phrasenmt.io import InputError
from phrasenmt.train import main as train_main
from phrasenmt.training.checkpoint import load_file
from phrasenmt.training.data import DataPaths
from phrasenmt.training.distributed import (
    BACKEND_VARIABLE,
    Distributed,
    backend_for,
)
from tests.unit.test_checkpoint import data

# No dropout: each rank draws its own masks, so only dropout-free runs can match.
SPEC = {"model": {"d_model": 16, "d_ff": 32, "n_heads": 2, "dropout": 0.0,
                  "attention_dropout": 0.0},
        "train": {"max_steps": 8, "max_tokens": 120, "update_tokens": 300,
                  "save_interval": 4, "valid_interval": 4, "log_interval": 1,
                  "lr": 1e-3, "warmup_steps": 4}}


def _train(paths, outdir: Path, procs: int, spec: dict = SPEC) -> list[float]:
    """Train with `procs` ranks (torchrun); one process: in this one (a Python
    with torch costs 5 s of CPU to start)."""
    args = ["--spec", json.dumps(spec), "--train-src", str(paths.train_src),
            "--train-tgt", str(paths.train_tgt), "--dev-src", str(paths.dev_src),
            "--dev-tgt", str(paths.dev_tgt), "--seed", "5", "--threads", "1",
            "--no-progress", "--device", "cpu", "--outdir", str(outdir)]
    if procs == 1:
        threads = torch.get_num_threads()
        try:
            assert train_main(args) == 0
        finally:
            torch.set_num_threads(threads)
    else:
        launcher = [sys.executable, "-m", "torch.distributed.run", "--standalone",
                    "--nproc-per-node", str(procs), "-m", "phrasenmt.train"]
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


def even_data(folder: Path) -> DataPaths:
    """Pairs of 5 words a side: every batch of 10 holds 60 target tokens."""
    g = torch.Generator().manual_seed(1)
    for name, n in (("train", 120), ("dev", 8)):
        ids = torch.randint(0, 20, (2, n, 5), generator=g).tolist()
        for side, rows in zip(("src", "tgt"), ids, strict=True):
            lines = [" ".join(f"w{i}" for i in row) for row in rows]
            (folder / f"{name}.{side}").write_text("\n".join(lines) + "\n")
    return DataPaths(*(folder / f for f in ("train.src", "train.tgt", "dev.src",
                                            "dev.tgt")))


@pytest.mark.slow
def test_two_ranks_equal_one_process_bit_for_bit(tmp_path):
    # Two batches per update, one per rank: DDP's sum (2 g0 + 2 g1) / 2 is the
    # one process' g0 + g1 exactly (scaling by 2 is exact), so weights, Adam
    # state and losses must be identical; with more batches per rank the
    # additions would be grouped differently.
    spec = {**SPEC, "train": {**SPEC["train"], "max_tokens": 60, "update_tokens": 120}}
    paths = even_data(tmp_path)
    single = _train(paths, tmp_path / "one", 1, spec)
    double = _train(paths, tmp_path / "two", 2, spec)
    assert single == double and len(single) == 8 and single[-1] < single[0]
    a = load_file(tmp_path / "one" / "checkpoints" / "checkpoint_8.pt")
    b = load_file(tmp_path / "two" / "checkpoints" / "checkpoint_8.pt")
    for key, tensor in a["model"].items():
        assert torch.equal(tensor, b["model"][key]), key
    for pid, state in a["optimizer"]["state"].items():
        for name, value in state.items():
            assert torch.equal(value, b["optimizer"]["state"][pid][name]), (pid, name)
    assert a["data_state"] == b["data_state"]


def test_a_collective_refuses_a_tensor_off_the_group_s_device(monkeypatch):
    monkeypatch.setattr(torch.distributed, "all_reduce", _no_reduce)
    d = Distributed()
    d.world, d.collective_device = 2, torch.device("cuda", 0)  # an NCCL group
    with pytest.raises(ValueError, match="on cpu, but this process group reduces "
                                         "tensors on cuda:0"):
        d.sum(torch.zeros(2, dtype=torch.float64))
    d.collective_device = torch.device("cpu")  # a gloo group takes it
    assert d.sum(torch.ones(2, dtype=torch.float64)) == [1.0, 1.0]


def _no_reduce(tensor: torch.Tensor) -> None:
    """all_reduce of a group of which this process holds every rank's value."""


@pytest.mark.parametrize(("asked", "cuda", "gpus", "ranks", "backend"), [
    (None, False, 0, 2, "gloo"), (None, True, 2, 2, "nccl"), ("auto", True, 4, 2, "nccl"),
    ("gloo", True, 1, 2, "gloo"), ("gloo", False, 0, 4, "gloo")])
def test_the_backend_follows_the_device_or_the_variable(monkeypatch, asked, cuda, gpus,
                                                        ranks, backend):
    monkeypatch.delenv(BACKEND_VARIABLE, raising=False)
    if asked is not None:
        monkeypatch.setenv(BACKEND_VARIABLE, asked)
    assert backend_for(cuda, gpus, ranks) == backend


@pytest.mark.parametrize(("asked", "cuda", "gpus", "ranks", "message"), [
    ("mpi", True, 1, 1, "is 'mpi'; choose one of auto, nccl, gloo"),
    ("nccl", False, 0, 2, ("is nccl, but NCCL reduces GPU memory and this run trains "
                          "on the CPU")),
    (None, True, 1, 2, ("NCCL needs one GPU per rank, but this node runs 2 ranks on 1 "
                       "GPU(s)")),
    ("nccl", True, 2, 4, "runs 4 ranks on 2 GPU(s)")])
def test_a_backend_that_cannot_work_is_one_line(monkeypatch, asked, cuda, gpus, ranks,
                                                message):
    monkeypatch.delenv(BACKEND_VARIABLE, raising=False)
    if asked is not None:
        monkeypatch.setenv(BACKEND_VARIABLE, asked)
    with pytest.raises(InputError, match=re.escape(message)) as err:
        backend_for(cuda, gpus, ranks)
    assert str(err.value).startswith(f"{BACKEND_VARIABLE}: ")


def test_every_training_rule_starts_one_process_per_gpu():
    """A rule that trains (`phrasenmt.train`) starts through the launcher
    (`torchrun` for `gpus` > 1), as its `gpu` resource asks: with `python` a
    4-GPU job would train on one. The shell `exec`s it, so that a signal to
    every process of the job (SLURM) cannot end the shell before the training
    has saved (tests/workflow/test_interrupt.py)."""
    from tests.conftest import REPO

    rules = {}
    for path in sorted((REPO / "rules").glob("*.smk")):
        for block in re.split(r"\n(?=rule )", path.read_text(encoding="utf-8")):
            if "-m phrasenmt.train " in block:
                rules[block.split(":")[0]] = block
    assert len(rules) >= 4, sorted(rules)
    for name, block in rules.items():
        assert "launcher=W.runs.launcher" in block, name
        assert '"exec {params.launcher} -m phrasenmt.train ' in block, name


@pytest.mark.slow
@pytest.mark.parametrize("arch", ["npmt", "conmt", "pconmt_fert2"])
def test_two_ranks_equal_one_process_in_the_other_families(tmp_path, arch):
    """NPMT's marginal likelihood and CoNMT's vMF loss through DDP as the
    Transformer's cross-entropy: the same trainer, so 2 ranks give one
    process's losses. PCoNMT's fertility module, trained by a later stage,
    gets no gradient here: frozen, or DDP stops at the first update."""
    paths = even_data(tmp_path)
    model = {"dropout": 0.0}
    if arch != "npmt":
        words = ["</s>", *(f"w{i}" for i in range(20))]
        g = torch.Generator().manual_seed(1)
        (tmp_path / "words.vec").write_text(f"{len(words)} 8\n" + "".join(
            w + " " + " ".join(f"{x:.4f}" for x in torch.randn(8, generator=g)) + "\n"
            for w in words))
        model.update(embed_dim=8, word_table=str(tmp_path / "words.vec"))
    spec = {"arch": arch, "preset": "tiny", "model": model,
            "train": {**SPEC["train"], "max_steps": 6, "max_tokens": 60,
                      "update_tokens": 120, "save_interval": 3, "valid_interval": 3,
                      "warmup_steps": 2}}
    single = _train(paths, tmp_path / "one", 1, spec)
    double = _train(paths, tmp_path / "two", 2, spec)
    assert single == double and len(single) == 6 and single[-1] < single[0]


def _children(pid: int) -> list[int]:
    """Every process below `pid` (Linux /proc)."""
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        kids = (task / "children").read_text().split()
        for kid in map(int, kids):
            out += [kid, *_children(kid)]
    return out


def _rank_of(pid: int) -> int | None:
    """RANK in a process's environment (None where it has none or is gone)."""
    try:
        env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return None
    ranks = [e.split(b"=", 1)[1] for e in env if e.startswith(b"RANK=")]
    return int(ranks[0]) if ranks else None


def test_a_signal_to_one_rank_stops_every_rank_after_the_same_update(tmp_path):
    """SIGTERM reaches rank 1 only: the ranks learn it in the update's loss
    reduce (no extra synchronisation), finish that update, rank 0 saves it
    and every rank stops; none is left waiting in a collective."""
    import os
    import signal
    import time

    paths = even_data(tmp_path)
    spec = {**SPEC, "train": {**SPEC["train"], "max_steps": 5000, "max_tokens": 60,
                              "update_tokens": 120, "save_interval": 10000,
                              "valid_interval": 10000}}
    out = tmp_path / "run"
    args = ["--spec", json.dumps(spec), "--train-src", str(paths.train_src),
            "--train-tgt", str(paths.train_tgt), "--dev-src", str(paths.dev_src),
            "--dev-tgt", str(paths.dev_tgt), "--seed", "5", "--threads", "1",
            "--no-progress", "--device", "cpu", "--outdir", str(out)]
    launcher = [sys.executable, "-m", "torch.distributed.run", "--standalone",
                "--nproc-per-node", "2", "-m", "phrasenmt.train"]
    proc = subprocess.Popen([*launcher, *args], stderr=subprocess.PIPE, text=True)
    metrics = out / "metrics.tsv"
    deadline = time.time() + 240
    while not (metrics.is_file() and len(metrics.read_text().splitlines()) > 3):
        assert time.time() < deadline and proc.poll() is None
        time.sleep(0.05)
    rank1 = [p for p in _children(proc.pid) if _rank_of(p) == 1]
    assert len(rank1) == 1
    os.kill(rank1[0], signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode != 0  # a rank exited 75: torchrun reports the failure
    assert "training stopped by a signal on another rank at step " in err, err[-2000:]
    stopped = int(err.split("training stopped by SIGTERM at step ")[1].split(";")[0])
    assert f"signal on another rank at step {stopped};" in err
    rows = metrics.read_text().splitlines()[1:]
    assert int(rows[-1].split("\t")[0]) == stopped
    saved = load_file(out / "checkpoints" / f"checkpoint_{stopped}.pt")
    assert saved["progress"]["step"] == stopped
    assert not (out / "summary.json").exists()
