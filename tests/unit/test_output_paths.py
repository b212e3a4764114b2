"""Where outputs go: a symlink keeps pointing at the file it names, a pipe or
a device is written into, not replaced; an unwritable or empty output path
and an absurd thread count are refused before any work, in one line."""

from __future__ import annotations

import argparse
import os
import threading
from pathlib import Path

import pytest

from phrasenmt.cli import MAX_THREADS, output_file, thread_count
from phrasenmt.io import write_lines


def test_a_symlink_output_replaces_its_target_and_stays_a_link(tmp_path: Path):
    target = tmp_path / "target.txt"
    target.write_text("old\n")
    link = tmp_path / "link.de"
    link.symlink_to(target)
    write_lines(link, ["new"])
    assert link.is_symlink() and target.read_text() == "new\n"


def test_a_pipe_output_is_written_into_not_replaced(tmp_path: Path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    write_lines(fifo, ["a", "b"])
    reader.join(timeout=10)
    assert got == ["a\nb\n"]
    assert not fifo.is_file() and fifo.exists()  # still the pipe


def test_a_folder_that_cannot_take_the_temp_file_is_named_as_given(tmp_path: Path):
    missing = Path("/proc/phrasenmt-nothing-here")
    with pytest.raises(OSError) as err:
        write_lines(missing, ["x"])
    assert str(missing) in str(err.value) and ".tmp" not in str(err.value)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write to any folder")
def test_an_unwritable_folder_is_refused_before_the_work(tmp_path: Path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    with pytest.raises(argparse.ArgumentTypeError, match="is not writable"):
        output_file(str(folder / "out.de"))


def test_an_empty_output_path_is_not_called_a_folder():
    with pytest.raises(argparse.ArgumentTypeError, match="^an empty path; give a file"):
        output_file("")


def test_a_thread_count_past_the_bound_is_refused():
    assert thread_count(str(MAX_THREADS)) == MAX_THREADS
    with pytest.raises(argparse.ArgumentTypeError, match=r"must be in \[1, "):
        thread_count("100000")


def test_dev_stdout_redirected_to_a_file_is_written_into(tmp_path: Path):
    """`--output /dev/stdout > out.txt`: the shell's file gets the lines and
    stays the shell's file (not replaced by a new one)."""
    import subprocess
    import sys

    out = tmp_path / "out.txt"
    code = ("from phrasenmt.io import write_lines; "
            "write_lines('/dev/stdout', ['a', 'b']); print('after')")
    with open(out, "w", encoding="utf-8") as fh:
        subprocess.run([sys.executable, "-c", code], stdout=fh, check=True)
    assert out.read_text(encoding="utf-8") == "a\nb\nafter\n"


def test_a_file_under_dev_shm_is_still_written_whole(tmp_path: Path):
    shm = Path("/dev/shm")
    if not shm.is_dir() or not os.access(shm, os.W_OK):
        pytest.skip("no writable /dev/shm")
    target = shm / f"phrasenmt-test-{os.getpid()}.txt"
    try:
        write_lines(target, ["x"])
        assert target.read_text() == "x\n"
        assert not list(shm.glob(f".{target.name}.*.tmp"))
    finally:
        target.unlink(missing_ok=True)


def test_dev_stdout_is_a_valid_output_whoever_runs():
    """Its folder, /dev, is not the user's to write; the stream itself is."""
    assert output_file("/dev/stdout") == Path("/dev/stdout")
