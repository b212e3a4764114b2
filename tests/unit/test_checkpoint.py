"""Checkpoints: kill/SIGTERM-and-resume is bit-exact, corrupt files are skipped,
a NaN loss stops training, spec changes fail."""

from __future__ import annotations

import json
import math
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from phrasenmt.io import InputError
from phrasenmt.train import main as train_main
from phrasenmt.training.checkpoint import (
    latest_checkpoint,
    load_file,
    load_model,
    save_file,
)
from phrasenmt.training.data import DataPaths
from phrasenmt.training.spec import resolve_spec
from phrasenmt.training.stopping import PREEMPTED_EXIT, NonFiniteLoss
from phrasenmt.training.trainer import Trainer

TINY = {"d_model": 16, "d_ff": 32, "n_heads": 2, "dropout": 0.2,
        "attention_dropout": 0.1}

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


def data(folder: Path) -> DataPaths:
    """A small random parallel corpus (enough for several epochs of batches)."""
    g = torch.Generator().manual_seed(0)
    words = [f"w{i}" for i in range(20)]
    for name, n in (("train", 120), ("dev", 8)):
        lines = [" ".join(words[int(i)] for i in torch.randint(0, 20, (int(k),),
                                                               generator=g))
                 for k in torch.randint(2, 9, (2 * n,), generator=g)]
        (folder / f"{name}.src").write_text("\n".join(lines[:n]) + "\n")
        (folder / f"{name}.tgt").write_text("\n".join(lines[n:]).upper() + "\n")
    return DataPaths(*(folder / f for f in ("train.src", "train.tgt", "dev.src",
                                            "dev.tgt")))


def run(paths: DataPaths, outdir: Path, max_steps: int, **train) -> Trainer:
    spec = resolve_spec({"model": TINY, "train": {
        "max_steps": max_steps, "max_tokens": 120, "update_tokens": 100,
        "save_interval": 2, "valid_interval": 3, "log_interval": 1, "keep_last": 5,
        **train}})
    trainer = Trainer(spec, paths, outdir, seed=7, device="cpu", progress_bar=False)
    trainer.run()
    return trainer


def assert_same_state(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for key, value in a.items():
        assert torch.equal(value, b[key]), key


def test_resume_equals_uninterrupted_bit_exact(tmp_path):
    paths = data(tmp_path)
    full = run(paths, tmp_path / "full", 13)
    run(paths, tmp_path / "parts", 5)  # stops at step 5 (a final checkpoint)
    resumed = run(paths, tmp_path / "parts", 13)
    assert resumed.state.step == 13
    assert_same_state(full.model.state_dict(), resumed.model.state_dict())
    opt_a, opt_b = full.optimizer.state_dict(), resumed.optimizer.state_dict()
    for pid in opt_a["state"]:
        assert_same_state(opt_a["state"][pid], opt_b["state"][pid])
    assert full.iterator.state_dict() == resumed.iterator.state_dict()
    metrics = (tmp_path / "parts" / "metrics.tsv").read_text().splitlines()
    assert [int(r.split("\t")[0]) for r in metrics[1:]] == list(range(1, 14))


def test_linear_schedule_ends_at_zero_and_pins_max_steps(tmp_path):
    """Under lr_schedule linear, max_steps sets every lr: resuming with another fails."""
    paths = data(tmp_path)
    run(paths, tmp_path / "lin", 8, lr_schedule="linear", warmup_steps=2)
    rows = (tmp_path / "lin" / "metrics.tsv").read_text().splitlines()[1:]
    lrs = [float(r.split("\t")[3]) for r in rows]
    assert len(lrs) == 8 and lrs[-1] == 0.0 and lrs[1] == max(lrs)
    with pytest.raises(InputError, match="different spec.*max_steps"):
        run(paths, tmp_path / "lin", 12, lr_schedule="linear", warmup_steps=2)
    run(paths, tmp_path / "inv", 4, warmup_steps=2)
    assert run(paths, tmp_path / "inv", 6, warmup_steps=2).state.step == 6  # still free


def test_a_lower_max_steps_than_the_checkpoints_reach_is_refused(tmp_path):
    """Raising max_steps continues a run; lowering it below the checkpoints'
    step cannot take effect (the updates are done), so it is refused rather than
    reporting the longer run as the shorter one."""
    paths = data(tmp_path)
    run(paths, tmp_path / "r", 6)
    with pytest.raises(InputError, match="reach step 6, past train.max_steps 4"):
        run(paths, tmp_path / "r", 4)
    assert run(paths, tmp_path / "r", 6).state.step == 6  # the same: nothing to do


def test_a_field_added_since_the_checkpoint_resumes_at_its_default(tmp_path):
    """Checkpoints of code without a field resume when the field keeps its default."""
    paths = data(tmp_path)
    run(paths, tmp_path / "old", 4)
    last = latest_checkpoint(tmp_path / "old" / "checkpoints")
    payload = load_file(last)
    del payload["run_spec"]["train"]["vocab_min_freq"]  # as written before the field
    save_file(payload, last)
    assert run(paths, tmp_path / "old", 6).state.step == 6
    payload = load_file(latest_checkpoint(tmp_path / "old" / "checkpoints"))
    del payload["run_spec"]["train"]["vocab_min_freq"]
    save_file(payload, latest_checkpoint(tmp_path / "old" / "checkpoints"))
    with pytest.raises(InputError, match=r"different spec \(train.vocab_min_freq: "
                       r"null -> 2\)"):
        run(paths, tmp_path / "old", 8, vocab_min_freq=2)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_killed_process_resumes_to_the_same_weights(tmp_path, sig):
    at = random.randint(2, 12)  # a random point; printed if the test fails
    print(f"killing with {sig.name} after checkpoint_{at}.pt appears")
    paths = data(tmp_path)
    spec = json.dumps({"model": TINY, "train": {
        "max_steps": 20, "max_tokens": 120, "update_tokens": 100, "save_interval": 1,
        "valid_interval": 5, "log_interval": 1}})
    args = ["--spec", spec, "--train-src", str(paths.train_src), "--train-tgt",
            str(paths.train_tgt), "--dev-src", str(paths.dev_src), "--dev-tgt",
            str(paths.dev_tgt), "--seed", "3", "--threads", "1", "--no-progress",
            "--device", "cpu"]
    cmd = [sys.executable, "-m", "phrasenmt.train", *args]
    killed = tmp_path / "killed"
    proc = subprocess.Popen([*cmd, "--outdir", str(killed)], stderr=subprocess.PIPE,
                            text=True)
    deadline = time.time() + 300  # a loaded machine starts Python with torch slowly
    while not (killed / "checkpoints" / f"checkpoint_{at}.pt").exists():
        assert time.time() < deadline and proc.poll() is None
        time.sleep(0.01)
    os.kill(proc.pid, sig)
    _, err = proc.communicate()
    assert not (killed / "summary.json").exists()
    if sig == signal.SIGTERM:  # a checkpoint of the update in progress, exit 75
        assert proc.returncode == PREEMPTED_EXIT, err
        stopped = int(err.split("training stopped by SIGTERM at step ")[1].split(";")[0])
        assert latest_checkpoint(killed / "checkpoints").name == (
            f"checkpoint_{stopped}.pt")
    # the resumed and the whole run in this process (a Python with torch costs
    # 5 s of CPU to start); the resumed one first, so it reads only the files
    threads = torch.get_num_threads()
    try:
        assert train_main([*args, "--outdir", str(killed)]) == 0
        assert train_main([*args, "--outdir", str(tmp_path / "whole")]) == 0
    finally:
        torch.set_num_threads(threads)
    a = load_file(killed / "checkpoints" / "checkpoint_20.pt")
    b = load_file(tmp_path / "whole" / "checkpoints" / "checkpoint_20.pt")
    assert_same_state(a["model"], b["model"])
    assert json.loads((killed / "summary.json").read_text())["steps"] == 20


def test_a_stop_off_the_interval_leaves_the_kept_checkpoints_and_rows_alone(
        tmp_path, monkeypatch):
    """Ctrl-C at step 7 (checkpoints every 3, metrics rows every 4): the
    checkpoint it saves is only for resuming, so the resumed run keeps (and
    would average) what an uninterrupted one keeps, and its row at step 8
    averages steps 5-8 as that run's does."""
    from phrasenmt.training import trainer as trainer_module
    from phrasenmt.training.stopping import Preempted

    paths = data(tmp_path)
    train = {"save_interval": 3, "keep_last": 2, "log_interval": 4,
             "valid_interval": 6}
    run(paths, tmp_path / "full", 12, **train)
    stopped: list[Trainer] = []

    class CtrlCAtStep7:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return None

        @property
        def received(self):
            return "SIGINT" if stopped[0].state.step == 7 else None

    monkeypatch.setattr(trainer_module, "SignalFlag", CtrlCAtStep7)
    spec = resolve_spec({"model": TINY, "train": {
        "max_steps": 12, "max_tokens": 120, "update_tokens": 100, **train}})
    stopped.append(Trainer(spec, paths, tmp_path / "parts", seed=7, device="cpu",
                           progress_bar=False))
    with pytest.raises(Preempted, match="SIGINT at step 7"):
        stopped[0].run()
    monkeypatch.undo()
    run(paths, tmp_path / "parts", 12, **train)
    names = [sorted(p.name for p in (tmp_path / r / "checkpoints").glob("*.pt"))
             for r in ("full", "parts")]
    assert names[0] == names[1] == ["checkpoint_12.pt", "checkpoint_9.pt"]

    def rows(run_dir: str) -> list[list[str]]:  # step, loss, nll, dev (not times)
        lines = (tmp_path / run_dir / "metrics.tsv").read_text().splitlines()[1:]
        return [[r.split("\t")[i] for i in (0, 1, 2, 5)] for r in lines]

    assert rows("parts") == rows("full") and [r[0] for r in rows("full")] == [
        "4", "6", "8", "12"]


def test_a_second_ctrl_c_interrupts_at_once():
    from phrasenmt.training.stopping import SignalFlag

    with SignalFlag() as flag:
        signal.raise_signal(signal.SIGINT)
        assert flag.received == "SIGINT"
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)


def test_keep_last_and_latest_pointer(tmp_path):
    paths = data(tmp_path)
    run(paths, tmp_path / "r", 9, keep_last=2, average_last=2)
    ckpts = tmp_path / "r" / "checkpoints"
    assert sorted(p.name for p in ckpts.glob("*.pt")) == ["checkpoint_8.pt",
                                                          "checkpoint_9.pt"]
    assert latest_checkpoint(ckpts).name == "checkpoint_9.pt"


def test_changed_spec_names_the_folder_to_delete(tmp_path):
    paths = data(tmp_path)
    run(paths, tmp_path / "r", 2)
    with pytest.raises(InputError, match=r"train\.lr: .*delete .*checkpoints"):
        run(paths, tmp_path / "r", 4, lr=1e-2)
    assert run(paths, tmp_path / "r", 3, save_interval=1).state.step == 3  # allowed


@pytest.mark.parametrize("damage", ["truncate", "flip"])
def test_corrupt_checkpoint_falls_back_to_the_previous(tmp_path, capfd, damage):
    paths = data(tmp_path)
    full = run(paths, tmp_path / "full", 6)
    run(paths, tmp_path / "r", 4)
    path = tmp_path / "r" / "checkpoints" / "checkpoint_4.pt"
    raw = bytearray(path.read_bytes())
    if damage == "truncate":
        raw = raw[: len(raw) // 2]
    else:  # one flipped byte in the middle: torch.load may not notice, the checksum does
        raw[len(raw) // 2] ^= 0xFF
    path.write_bytes(bytes(raw))
    capfd.readouterr()
    resumed = run(paths, tmp_path / "r", 6)
    err = capfd.readouterr().err
    assert f"warning: {path}: corrupt or truncated checkpoint" in err
    assert "resuming from" in err and "checkpoint_2.pt (step 2)" in err
    assert_same_state(full.model.state_dict(), resumed.model.state_dict())


def test_nan_loss_stops_with_the_step_and_keeps_the_last_checkpoint(tmp_path):
    paths = data(tmp_path)
    run(paths, tmp_path / "r", 2)
    good = (tmp_path / "r" / "checkpoints" / "checkpoint_2.pt").read_bytes()
    spec = resolve_spec({"model": TINY, "train": {
        "max_steps": 6, "max_tokens": 120, "update_tokens": 100, "save_interval": 2}})
    trainer = Trainer(spec, paths, tmp_path / "r", seed=7, device="cpu",
                      progress_bar=False)
    loss = trainer.model.loss
    trainer.model.loss = lambda batch, eps: tuple(x * math.nan for x in loss(batch, eps))
    with pytest.raises(NonFiniteLoss, match=r"loss is nan at step 3; .*checkpoint_2\.pt"):
        trainer.run()
    assert latest_checkpoint(tmp_path / "r" / "checkpoints").name == "checkpoint_2.pt"
    assert (tmp_path / "r" / "checkpoints" / "checkpoint_2.pt").read_bytes() == good
    assert not (tmp_path / "r" / "summary.json").exists()


def test_corrupt_checkpoint_names_the_file(tmp_path):
    paths = data(tmp_path)
    run(paths, tmp_path / "r", 2)
    path = tmp_path / "r" / "checkpoints" / "checkpoint_2.pt"
    path.write_text("hello")
    with pytest.raises(InputError, match="checkpoint_2.pt"):
        load_model(path)
    with pytest.raises(InputError, match="not found"):
        load_model(tmp_path / "missing.pt")


@pytest.mark.parametrize("value, kind", [(math.nan, "NaN"), (-math.inf, "infinite")])
def test_non_finite_weights_name_the_file_and_parameter(tmp_path, value, kind):
    paths = data(tmp_path)
    run(paths, tmp_path / "r", 2)
    payload = load_file(tmp_path / "r" / "checkpoints" / "checkpoint_2.pt")
    name = sorted(payload["model"])[5]
    payload["model"][name].view(-1)[-1] = value
    save_file(payload, tmp_path / "bad.pt")  # with a valid checksum
    for loader in (load_file, load_model):
        with pytest.raises(InputError) as err:
            loader(tmp_path / "bad.pt")
        assert str(err.value).startswith(
            f"{tmp_path / 'bad.pt'}: parameter {name} has {kind} values (1 of ")
    # resuming skips it, as a damaged file, for the previous checkpoint
    save_file(payload, tmp_path / "r" / "checkpoints" / "checkpoint_4.pt")
    (tmp_path / "r" / "checkpoints" / "latest").write_text("checkpoint_4.pt\n")
    assert run(paths, tmp_path / "r", 4).state.step == 4


def test_checkpoint_is_self_contained(tmp_path):
    paths = data(tmp_path)
    trainer = run(paths, tmp_path / "r", 2)
    model, src_vocab, tgt_vocab, payload = load_model(
        tmp_path / "r" / "checkpoints" / "checkpoint_2.pt")
    assert src_vocab == trainer.src_vocab and tgt_vocab == trainer.tgt_vocab
    assert payload["spec"]["arch"] == "transformer"
    assert_same_state(model.state_dict(), trainer.model.state_dict())


def test_checkpoint_of_another_configuration_is_one_line_naming_it(tmp_path):
    paths = data(tmp_path)
    run(paths, tmp_path / "r", 2)
    payload = torch.load(tmp_path / "r" / "checkpoints" / "checkpoint_2.pt",
                         weights_only=False)
    payload["model_args"]["d_ff"] = 64  # weights stored for d_ff 32
    torch.save(payload, tmp_path / "other.pt")
    with pytest.raises(InputError) as err:
        load_model(tmp_path / "other.pt")
    message = str(err.value)
    assert message.startswith(f"{tmp_path / 'other.pt'}: checkpoint was trained "
                              "with a different model configuration: ")
    assert message.count("other.pt") == 1 and "\n" not in message
    assert "ff.fc1.bias (shape (32,), this model (64,))" in message
