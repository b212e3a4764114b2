"""A disk that fills up at any checkpoint (not only the first): one line naming
the file and the reason, no partial file, the previous checkpoint kept."""

from __future__ import annotations

import builtins
import errno
import json
import os
from pathlib import Path
from typing import Self

import pytest
import torch

from phrasenmt.io import run_cli
from phrasenmt.train import main as train_main
from phrasenmt.training import checkpoint as ckpt
from tests.unit.test_checkpoint import data, run

NO_SPACE = os.strerror(errno.ENOSPC)


class FillingFile:
    """A file on a disk with `room` bytes left: a larger write fails (ENOSPC)."""

    def __init__(self, fh, room: int):
        self._fh, self._room = fh, room

    def write(self, data) -> int:
        size = memoryview(data).nbytes if not isinstance(data, str) else len(data)
        if size > self._room:
            raise OSError(errno.ENOSPC, NO_SPACE)
        self._room -= size
        return self._fh.write(data)

    def __getattr__(self, name: str):
        return getattr(self._fh, name)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self._fh.close()


def disk_full_for(monkeypatch: pytest.MonkeyPatch, name: str, room: int = 100) -> None:
    """Files whose (temp) name holds `name` find only `room` bytes of disk left.

    torch writes a checkpoint in pieces, so a disk that has some room fails
    after the first piece: the case torch's zip writer reports as an
    "unexpected pos" RuntimeError.
    """
    real_open = builtins.open

    def open_(file, mode="r", *args, **kwargs):
        fh = real_open(file, mode, *args, **kwargs)
        named = isinstance(file, (str, os.PathLike)) and name in os.fspath(file)
        return FillingFile(fh, room) if named and "w" in mode else fh

    monkeypatch.setattr(builtins, "open", open_)


def test_a_full_disk_at_a_later_save_names_the_file(tmp_path, monkeypatch):
    first, second = tmp_path / "checkpoint_1.pt", tmp_path / "checkpoint_2.pt"
    payload = {"format": ckpt.FORMAT, "w": torch.arange(4096.0)}
    ckpt.save_file(payload, first)
    disk_full_for(monkeypatch, "checkpoint_2.pt")
    with pytest.raises(OSError) as err:
        ckpt.save_file(payload, second)
    assert (err.value.filename, err.value.strerror) == (str(second), NO_SPACE)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint_1.pt",
                                                          "checkpoint_1.pt.sha256"]
    assert torch.equal(ckpt.load_file(first)["w"], payload["w"])


def train_argv(tmp_path: Path, steps: int) -> list[str]:
    paths = data(tmp_path)
    spec = json.dumps({"arch": "transformer", "preset": "tiny", "model": {
        "d_model": 16, "d_ff": 32, "n_heads": 2}, "train": {
        "max_steps": steps, "max_tokens": 120, "update_tokens": 100,
        "save_interval": 1, "valid_interval": 2, "keep_last": 5}})
    return ["--spec", spec, "--train-src", str(paths.train_src), "--train-tgt",
            str(paths.train_tgt), "--dev-src", str(paths.dev_src), "--dev-tgt",
            str(paths.dev_tgt), "--outdir", str(tmp_path / "run"), "--seed", "1",
            "--device", "cpu"]


def run_train(argv: list[str], capsys) -> tuple[int, str]:
    with pytest.raises(SystemExit) as code:
        run_cli(train_main, argv)
    return code.value.code, capsys.readouterr().err


@pytest.mark.parametrize("resume", [False, True])
def test_training_with_a_disk_full_at_its_second_checkpoint(tmp_path, monkeypatch,
                                                            capsys, resume):
    """The second checkpoint of a run (or the first of a resumed run) meets a
    full disk: one line, the last good checkpoint kept, and a rerun resumes."""
    ckpts = tmp_path / "run" / "checkpoints"
    if resume:
        assert run_train(train_argv(tmp_path, 1), capsys)[0] == 0
    with monkeypatch.context() as patch:
        disk_full_for(patch, "checkpoint_2.pt")
        code, err = run_train(train_argv(tmp_path, 3), capsys)
    assert code == 1
    assert err.splitlines()[-1] == f"error: {ckpts / 'checkpoint_2.pt'}: {NO_SPACE}"
    assert "Traceback" not in err and "enforce fail" not in err
    assert sorted(p.name for p in ckpts.iterdir()) == [
        "checkpoint_1.pt", "checkpoint_1.pt.sha256", "latest"]
    assert ckpt.latest_checkpoint(ckpts) == ckpts / "checkpoint_1.pt"
    ckpt.load_file(ckpts / "checkpoint_1.pt")  # whole, its checksum matching
    assert run_train(train_argv(tmp_path, 3), capsys)[0] == 0  # room again
    assert ckpt.latest_checkpoint(ckpts) == ckpts / "checkpoint_3.pt"


def test_an_averaged_model_on_a_full_disk_is_one_line(tmp_path, monkeypatch, capsys):
    from phrasenmt.average import main as average_main

    run(data(tmp_path), tmp_path / "run", 4)
    out = tmp_path / "avg" / "model.pt"
    disk_full_for(monkeypatch, "model.pt")
    with pytest.raises(SystemExit) as code:
        run_cli(average_main, ["--checkpoint-dir", str(tmp_path / "run" / "checkpoints"),
                               "--last", "2", "--out", str(out)])
    assert code.value.code == 1
    assert capsys.readouterr().err == f"error: {out}: {NO_SPACE}\n"
    assert not out.exists() and not ckpt.checksum_path(out).exists()
    assert list(out.parent.iterdir()) == []
