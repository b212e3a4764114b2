"""`python -m phrasenmt.<stage> ...` for tests, without a Python and a PyTorch start each.

A stage's bad-input case fails in milliseconds, but a fresh interpreter spends
about 3 s of CPU importing PyTorch, pandas and the package first. `run()` sends
the command to a server process (one per test process, started on first use)
that has imported those once; the server forks a child per command. The child
is a process of its own, as `subprocess.run` would start: its own working
folder, environment, argv, stdin (/dev/null), stdout and stderr files and exit
status; its module runs as `__main__` from a fresh copy (the server's imported
copy of that module is dropped in the child, so `python -m`'s semantics hold).
An uncaught exception prints its traceback and exits 1, `SystemExit` exits
with its code, and atexit handlers run, as the interpreter does. The child
runs `phrasenmt.warm.run_child`, what the workflow's warm start runs; the
server differs from the warm start's in talking over pipes and files, so that
a test reads what the command printed.

Only `[sys.executable, "-m", MODULE, *args]` commands are accepted; anything
else raises, so a test that must start a real interpreter (signals, process
groups, import-time behaviour) keeps `subprocess.run`.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from phrasenmt.warm import PRELOAD  # what the workflow's warm start imports once

REPO = Path(__file__).resolve().parents[1]
# What a Snakemake start imports before it reads the config: about 2 s of the
# 3 s a dry run takes (the executor plugins bring pandas and SQLAlchemy).
SNAKEMAKE_PRELOAD = ("snakemake.cli", "snakemake.workflow", "phrasenmt.config",
                     "phrasenmt.experiment", "phrasenmt.workflow.adapter",
                     "phrasenmt.workflow.scheduler", "phrasenmt.workflow.targets")


SERVER = r"""
import json, os, sys
from phrasenmt.warm import fork_stage
for name in sys.argv[1:]:
    __import__(name)
replies = os.fdopen(os.dup(1), "w")
null_in = os.open(os.devnull, os.O_RDONLY)
null_out = os.open(os.devnull, os.O_WRONLY)
os.dup2(null_out, 1)  # what the server itself prints must not reach the replies
for line in sys.stdin:
    req = json.loads(line)

    def child_fds():
        replies.close()
        return [null_in, os.open(req["stdout"], os.O_WRONLY | os.O_TRUNC),
                os.open(req["stderr"], os.O_WRONLY | os.O_TRUNC)]

    pid = fork_stage(req, child_fds)  # what the workflow's warm start runs
    replies.write(json.dumps({"pid": pid}) + "\n")
    replies.flush()
    _, status = os.waitpid(pid, 0)
    replies.write(json.dumps({"status": os.waitstatus_to_exitcode(status)}) + "\n")
    replies.flush()
"""


class _Server:
    def __init__(self):
        # the repository too, so that `-m tests...` modules run from any folder
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(REPO)])}
        self.proc = subprocess.Popen([sys.executable, "-c", SERVER, *PRELOAD,
                                      *SNAKEMAKE_PRELOAD],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, cwd=REPO, env=env)
        # the replies, read from the pipe's descriptor: a buffered readline can
        # take both of a fast child's lines at once, and select() on the
        # descriptor would then wait for a line that is already read
        self._pending = b""
        atexit.register(self.close)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)

    def reply(self, timeout: float | None) -> dict | None:
        fd = self.proc.stdout.fileno()
        end = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self._pending:
            left = None if end is None else max(0.0, end - time.monotonic())
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                raise RuntimeError("the test's fork server ended")
            self._pending += chunk
        line, self._pending = self._pending.split(b"\n", 1)
        return json.loads(line)


_server: _Server | None = None


def run(cmd: list[str], cwd: Path | str | None = None, env: dict | None = None,
        timeout: float = 120, check: bool = False, capture_output: bool = True,
        text: bool = True) -> subprocess.CompletedProcess:
    """As `subprocess.run(cmd, capture_output=True, text=True, ...)` for
    `cmd = [sys.executable, "-m", MODULE, *args]`, in a fork of a warm server
    (stdin is /dev/null)."""
    if len(cmd) < 3 or cmd[0] != sys.executable or cmd[1] != "-m":
        raise ValueError(f"forkrun runs `{sys.executable} -m MODULE ...` only, not {cmd}")
    if not (capture_output and text):
        raise ValueError("forkrun captures stdout and stderr as text only")
    done = _run(cmd, cwd, env, timeout)
    if check:
        done.check_returncode()
    return done


def _run(cmd: list[str], cwd: Path | str | None, env: dict | None,
         timeout: float) -> subprocess.CompletedProcess:
    global _server
    if _server is None or _server.proc.poll() is not None:
        _server = _Server()
    with tempfile.TemporaryDirectory(prefix="forkrun-") as tmp:
        out, err = Path(tmp, "stdout"), Path(tmp, "stderr")
        out.touch()
        err.touch()
        request = {"module": cmd[2], "args": [str(a) for a in cmd[3:]],
                   "cwd": str(Path(cwd or os.getcwd()).resolve()),
                   "env": dict(os.environ if env is None else env),
                   "stdout": str(out), "stderr": str(err)}
        _server.proc.stdin.write(json.dumps(request) + "\n")
        _server.proc.stdin.flush()
        pid = _server.reply(None)["pid"]
        done = _server.reply(timeout)
        if done is None:
            os.kill(pid, signal.SIGKILL)
            _server.reply(None)
            raise subprocess.TimeoutExpired(cmd, timeout, out.read_text(), err.read_text())
        return subprocess.CompletedProcess(cmd, done["status"],
                                           out.read_text(encoding="utf-8"),
                                           err.read_text(encoding="utf-8"))
