"""A run folder: one writer at a time, a full disk named, crash debris handled."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from phrasenmt.io import AppendFile, InputError, atomic_open, run_cli
from phrasenmt.training import checkpoint as ckpt
from phrasenmt.training.run_folder import LOCK_NAME, RunLock, metrics_rows
from tests.conftest import REPO
from tests.unit.test_checkpoint import data, run


@contextlib.contextmanager
def held_elsewhere(folder: Path) -> Iterator[subprocess.Popen]:
    """The run folder locked by another process (killed on exit, not released)."""
    holder = subprocess.Popen(
        [sys.executable, "-c", ("import sys, time\n"
         "from phrasenmt.training.run_folder import RunLock\n"
         f"with RunLock({str(folder)!r}):\n"
         "    print('locked', flush=True); time.sleep(60)")],
        stdout=subprocess.PIPE, text=True, cwd=REPO)
    try:
        assert holder.stdout.readline().strip() == "locked"
        yield holder
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()


def test_second_lock_fails_at_once_naming_folder_and_pid(tmp_path):
    folder = tmp_path / "run"
    with held_elsewhere(folder) as holder:
        start = time.monotonic()
        with pytest.raises(InputError) as err, RunLock(folder):
            pass
        assert time.monotonic() - start < 1
        assert str(err.value).startswith(f"{folder}: another training (pid "
                                         f"{holder.pid} on ")
        assert "--outdir" in str(err.value)
    # the holder was killed: its lock file stays, but the kernel freed the lock
    assert (folder / LOCK_NAME).is_file()
    with RunLock(folder):
        assert (folder / LOCK_NAME).read_text().startswith(f"pid {os.getpid()} ")
    assert not (folder / LOCK_NAME).exists()


def test_lock_is_reentrant_and_removes_the_folders_it_made(tmp_path):
    folder = tmp_path / "a" / "b"
    with RunLock(folder), RunLock(folder):  # train.py, then Trainer.run
        assert (folder / LOCK_NAME).is_file()
    assert not (tmp_path / "a").exists()


def test_two_trainings_into_one_folder_the_second_fails(tmp_path):
    paths = data(tmp_path)
    with held_elsewhere(tmp_path / "run"), pytest.raises(InputError, match="another"):
        run(paths, tmp_path / "run", 2)
    assert not (tmp_path / "run" / "metrics.tsv").exists()


def full_disk(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_full_disk_at_checkpoint_names_the_file(tmp_path, monkeypatch):
    monkeypatch.setattr(torch, "save", full_disk)
    target = tmp_path / "checkpoint_3.pt"
    with pytest.raises(OSError) as err:
        ckpt.save_file({"format": ckpt.FORMAT}, target)
    assert err.value.filename == str(target)
    assert err.value.strerror == "No space left on device"
    assert list(tmp_path.iterdir()) == []  # no temp file, no checksum left


def test_full_disk_while_writing_is_one_line(tmp_path, capsys):
    target = tmp_path / "out.txt"

    def main(argv):
        with atomic_open(target) as fh:
            fh.write("x")
            full_disk()

    with pytest.raises(SystemExit) as code:
        run_cli(main, [])
    assert code.value.code == 1
    assert capsys.readouterr().err == (f"error: {target}: No space left on "
                                       "device\n")


def test_appended_rows_name_their_file(tmp_path):
    log = AppendFile(tmp_path / "metrics.tsv")
    log._fh = io.TextIOWrapper(open("/dev/full", "wb"))  # noqa: SIM115
    with pytest.raises(OSError) as err:
        log.write("1\t2\n")
    assert err.value.filename == str(tmp_path / "metrics.tsv")
    assert err.value.errno == errno.ENOSPC


def test_damaged_metrics_tail_is_dropped_with_a_warning(tmp_path, capsys):
    path = tmp_path / "metrics.tsv"
    path.write_bytes(b"step\tloss\tnll\tlr\ttokens_per_s\tdev_loss\n"
                     b"1\t5.0\t5.0\t1e-4\t100\t\n2\t4.0\t4.0\t1e-4\t100\t4.5\n"
                     b"3\t3.9\t3.9\t1e-4\t1" + b"\0" * 40)
    assert metrics_rows(path, 2) == ["1\t5.0\t5.0\t1e-4\t100\t",
                                     "2\t4.0\t4.0\t1e-4\t100\t4.5"]
    assert "dropped 1 damaged row(s) (line 4" in capsys.readouterr().err


def crash_debris(outdir: Path) -> None:
    """What a power cut or a kill can leave in a run folder."""
    metrics = outdir / "metrics.tsv"
    metrics.write_bytes(metrics.read_bytes() + b"\0" * 64)
    (outdir / "checkpoints" / "latest").write_bytes(b"\xff\xfe\0\0")
    (outdir / "checkpoints" / ".checkpoint_5.pt.ab12cd_3.tmp").write_bytes(b"")
    (outdir / ".metrics.tsv.zz99yy00.tmp").write_bytes(b"")


def test_resume_after_a_crash_cleans_up(tmp_path, capfd):
    paths = data(tmp_path)
    run(paths, tmp_path / "run", 4)
    crash_debris(tmp_path / "run")
    resumed = run(paths, tmp_path / "run", 6)
    assert resumed.state.step == 6
    names = {p.name for p in (tmp_path / "run").rglob("*")}
    assert not [n for n in names if n.endswith(".tmp")]
    assert LOCK_NAME not in names
    rows = (tmp_path / "run" / "metrics.tsv").read_text().splitlines()[1:]
    assert [int(r.split("\t")[0]) for r in rows] == [1, 2, 3, 4, 5, 6]
    err = capfd.readouterr().err
    assert "latest: damaged" in err and "dropped 1 damaged row" in err


def test_damaged_checksum_file_is_one_line_naming_it(tmp_path):
    path = tmp_path / "model.pt"
    ckpt.save_file({"format": ckpt.FORMAT}, path)
    ckpt.checksum_path(path).write_bytes(b"\xff\xfe\x00garbage\n")
    with pytest.raises(InputError, match="checksum file model.pt.sha256 is damaged"):
        ckpt.load_file(path)


def test_train_cli_into_a_locked_folder_is_one_line(tmp_path, capsys):
    from phrasenmt.train import main as train_main

    paths = data(tmp_path)
    argv = ["--spec", '{"arch": "transformer", "preset": "tiny"}', "--train-src",
            str(paths.train_src), "--train-tgt", str(paths.train_tgt), "--dev-src",
            str(paths.dev_src), "--dev-tgt", str(paths.dev_tgt), "--outdir",
            str(tmp_path / "run"), "--seed", "1", "--device", "cpu"]
    with held_elsewhere(tmp_path / "run") as holder, pytest.raises(SystemExit) as code:
        run_cli(train_main, argv)
    assert code.value.code == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and f"(pid {holder.pid} on " in err[0]
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == [LOCK_NAME]


def test_an_error_naming_the_temp_file_names_the_target(tmp_path):
    from phrasenmt.io import atomic_path

    target = tmp_path / "figure.png"
    with pytest.raises(OSError) as err, atomic_path(target) as tmp:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(tmp))
    assert err.value.filename == str(target)
    assert list(tmp_path.iterdir()) == []
