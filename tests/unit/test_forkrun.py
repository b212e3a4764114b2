"""tests/forkrun.py gives what `subprocess.run` of `python -m MODULE` gives."""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from tests import forkrun

MODULES = {
    "ok.py": "import os, sys\nprint(os.getcwd(), os.environ.get('FORKRUN_X'), sys.argv[1:])\n",
    "boom.py": "raise RuntimeError('boom')\n",
    "quits.py": "import sys\nprint('out')\nsys.exit('a message')\n",
    "atexits.py": "import atexit\natexit.register(lambda: print('at exit'))\n",
    "reads.py": "import sys\nprint(repr(sys.stdin.read()))\n",
    "pkg/__init__.py": "print('package')\n",
    "pkg/__main__.py": "import sys\nprint('main of', __package__, sys.argv[1:])\n",
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("forkrun")
    (root / "pkg").mkdir()
    for name, text in MODULES.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize("module", ["ok", "boom", "quits", "atexits", "reads", "pkg",
                                    "no_such_module"])
def test_a_fork_gives_what_a_fresh_interpreter_gives(folder: Path, module: str):
    cmd = [sys.executable, "-m", module, "a", "b c"]
    env = {"PATH": "/usr/bin:/bin", "FORKRUN_X": "x"}
    fresh = subprocess.run(cmd, cwd=folder, env=env, capture_output=True, text=True,
                           check=False, stdin=subprocess.DEVNULL, timeout=60)
    forked = forkrun.run(cmd, cwd=folder, env=env, timeout=60)
    assert forked.returncode == fresh.returncode
    assert forked.stdout == fresh.stdout

    def tail(text: str) -> list[str]:  # the traceback's frames differ (runpy's)
        return [ln for ln in text.splitlines() if not ln.startswith(" ")][-1:]

    assert tail(forked.stderr) == tail(fresh.stderr)
    assert ("Traceback" in forked.stderr) == ("Traceback" in fresh.stderr)


def test_a_command_past_its_timeout_is_killed(folder: Path):
    (folder / "sleeps.py").write_text("import time\ntime.sleep(60)\n", encoding="utf-8")
    with pytest.raises(subprocess.TimeoutExpired):
        forkrun.run([sys.executable, "-m", "sleeps"], cwd=folder, timeout=1)
    assert forkrun.run([sys.executable, "-m", "ok"], cwd=folder).returncode == 0


def test_other_commands_are_refused():
    with pytest.raises(ValueError, match="-m MODULE"):
        forkrun.run(["python3", "-c", "print(1)"])


def test_both_replies_of_a_fast_child_are_read_though_they_arrive_at_once():
    """A child that ends at once (no_such_module) writes its pid and status lines
    before the first is read: the second must not wait on the emptied pipe."""
    read, write = os.pipe()
    server = forkrun._Server.__new__(forkrun._Server)
    server.proc = types.SimpleNamespace(stdout=os.fdopen(read, "r"))
    server._pending = b""
    os.write(write, b'{"pid": 7}\n{"status": 1}\n')
    try:
        assert server.reply(5) == {"pid": 7}
        assert server.reply(0.5) == {"status": 1}
        assert server.reply(0.1) is None  # nothing more: a timeout, not a hang
    finally:
        os.close(write)
        server.proc.stdout.close()
