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
