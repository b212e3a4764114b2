"""Warm start: `python -m phrasenmt.<stage>` without importing PyTorch every time.

A workflow run starts hundreds of short stage processes, and on a small machine
each spends seconds importing PyTorch, NumPy and pandas before its first line
of work. With `PHRASENMT_WARM=1` (the Snakefile sets it for the jobs it runs on
its own machine) a stage started as `python -m phrasenmt.<stage> ...` hands
itself to a server that has made those imports once: the server forks, and the
fork runs the stage as `__main__` with the starting process's argv, working
folder, environment, stdin, stdout and stderr (passed over a Unix socket), and
its exit status becomes the starting process's. What the stage computes is the
same; what it no longer pays is the imports.

- One server per user, interpreter and version of the code: its socket's name
  hashes the interpreter, `sys.path`, and the size and time of every file of
  the package, so an edited checkout gets a server of its own. A server exits
  after `IDLE` seconds without a job.
- A signal to the starting process (Snakemake stopping a job: SIGTERM, SIGINT)
  is passed on to the stage; a starting process that dies (SIGKILL) takes the
  stage with it.
- Not used (the stage starts as usual): when `PHRASENMT_WARM` is not `1`, with
  interpreter options before `-m`, outside Linux, on a machine with an NVIDIA
  driver (CUDA in a forked process is not tested), in a SLURM job or a
  torchrun worker, or when no server can be reached or started.
- What differs from a fresh interpreter: BLAS and OpenMP libraries are loaded
  once with one thread (every stage sets its own thread count through
  `--threads`), and Snakemake's benchmark files measure the starting process's
  memory, not the stage's (their seconds are right); `PHRASENMT_WARM=0` for
  memory figures.

Standard library only: `phrasenmt/__init__.py` calls `hand_off()` before
anything else is imported.
"""

from __future__ import annotations

import hashlib
import json
import os
import select
import signal
import socket
import struct
import sys
import time
from collections.abc import Callable

IDLE = 120  # seconds a server waits for a job before it exits
START_TIMEOUT = 120  # seconds a stage waits for a server it started to listen
# What the stages import and what costs (a missing one is skipped).
# torch._dynamo: every torch optimizer imports it when it is built (about 2.5 s).
# matplotlib's Agg canvas: the figure jobs (0.6-1.5 s each); scipy.special:
# the t tests of the seed comparisons and vMF; the rest: the stages that run
# once per model and seed (translate, detokenize, BLEU, pronoun alignment).
PRELOAD = ("numpy", "torch", "torch._dynamo", "pandas", "sacremoses", "sacrebleu", "regex",
           "scipy.special", "matplotlib.figure", "matplotlib.backends.backend_agg",
           "phrasenmt.io", "phrasenmt.cli", "phrasenmt.training.trainer",
           "phrasenmt.decoding.search", "phrasenmt.translate",
           "phrasenmt.data.detokenize", "phrasenmt.evaluate.multiseed",
           "phrasenmt.evaluate.pronouns", "phrasenmt.bpe")
_FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT,
              signal.SIGUSR1, signal.SIGUSR2)
_OFF_IN = ("SLURM_JOB_ID", "TORCHELASTIC_RUN_ID", "LOCAL_RANK")
_SERVE = "import sys\nfrom phrasenmt.warm import serve\nserve(sys.argv[1])\n"


# ----------------------------------------------------------------- the stage side

def _stage() -> tuple[str, list[str]] | None:
    """(module, args) of a `python -m phrasenmt...` start that may be handed off."""
    if os.environ.get("PHRASENMT_WARM") != "1" or not sys.platform.startswith("linux"):
        return None
    if any(name in os.environ for name in _OFF_IN) or sys.argv[:1] != ["-m"]:
        return None
    if os.path.exists("/proc/driver/nvidia"):  # CUDA after a fork is not measured
        return None
    argv = getattr(sys, "orig_argv", [])
    if len(argv) < 3 or argv[1] != "-m":
        return None
    module = argv[2]
    if module != "phrasenmt" and not module.startswith("phrasenmt."):
        return None
    return module, argv[3:]


def _code_key() -> str:
    """What a server's imports depend on: interpreter, search path, package files."""
    digest = hashlib.sha256()
    digest.update(repr((sys.executable, sys.version, sys.path[1:])).encode())
    root = os.path.dirname(os.path.abspath(__file__))
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            if name.endswith((".py", ".yaml", ".json")):
                st = os.stat(os.path.join(folder, name))
                digest.update(f"{folder}/{name}:{st.st_size}:{st.st_mtime_ns}".encode())
    for entry in sys.path[1:]:
        if entry.endswith("site-packages") and os.path.isdir(entry):
            digest.update(str(os.stat(entry).st_mtime_ns).encode())
    return digest.hexdigest()[:20]


def socket_path() -> str:
    """The socket of the server for this interpreter and code."""
    import tempfile

    folder = os.path.join(tempfile.gettempdir(), f"phrasenmt-warm-{os.getuid()}")
    os.makedirs(folder, mode=0o700, exist_ok=True)
    return os.path.join(folder, f"{_code_key()}.sock")


def _connect(path: str) -> socket.socket | None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError:
        sock.close()
        return None
    return sock


def _server(path: str) -> socket.socket | None:
    """A connection to the server at `path`, started first if none listens."""
    if len(path) > 100:  # a Unix socket's path has about 107 bytes
        return None
    sock = _connect(path)
    if sock is not None:
        return sock
    import fcntl
    import subprocess

    with open(path + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one stage starts it; the others wait
        sock = _connect(path)
        if sock is not None:
            return sock
        env = dict(os.environ, PHRASENMT_WARM="0")
        with open(path + ".log", "ab") as log:
            subprocess.Popen([sys.executable, "-c", _SERVE, path],
                             stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                             env=env, start_new_session=True, close_fds=True)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            sock = _connect(path)
            if sock is not None:
                return sock
            time.sleep(0.05)
    return None


def _send(sock: socket.socket, message: dict, fds: list[int] | None = None) -> None:
    data = json.dumps(message).encode()
    head = struct.pack("!I", len(data))
    if fds:
        socket.send_fds(sock, [head], fds)
        sock.sendall(data)
    else:
        sock.sendall(head + data)


def _receive(sock: socket.socket, with_fds: int = 0) -> tuple[dict | None, list[int]]:
    """One message (None: the other side closed) and the descriptors sent with it."""
    fds: list[int] = []
    if with_fds:
        head, fds, _, _ = socket.recv_fds(sock, 4, with_fds)
    else:
        head = _exactly(sock, 4)
    if len(head) < 4:
        head += _exactly(sock, 4 - len(head)) if head else b""
    if len(head) < 4:
        return None, fds
    (size,) = struct.unpack("!I", head)
    data = _exactly(sock, size)
    return (json.loads(data) if len(data) == size else None), fds


def _exactly(sock: socket.socket, size: int) -> bytes:
    chunks, got = [], 0
    while got < size:
        try:
            chunk = sock.recv(size - got)
        except InterruptedError:
            continue
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _signal_job(pid: int, signum: int) -> None:
    """Signal the stage's process group (it leads one: `run_child`), as a shell's
    job is signalled; the stage alone if it has not made its group yet."""
    try:
        os.killpg(pid, signum)
    except (ProcessLookupError, PermissionError):
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass


def hand_off() -> None:
    """Run this `python -m phrasenmt...` start in a warm server and exit with
    its status; returns (the start goes on as usual) where that does not apply."""
    stage = _stage()
    if stage is None:
        return
    try:
        sock = _server(socket_path())
    except OSError:
        return
    if sock is None:
        return
    module, args = stage
    request = {"module": module, "args": args, "cwd": os.getcwd(),
               "env": dict(os.environ)}
    try:
        _send(sock, request, [0, 1, 2])
        reply, _ = _receive(sock)
    except OSError:
        return
    if reply is None or "pid" not in reply:
        return  # the server refused the job before forking: run it here
    pid = reply["pid"]

    def forward(signum, _frame):
        _signal_job(pid, signum)

    for signum in _FORWARDED:
        signal.signal(signum, forward)
    done, _ = _receive(sock)
    if done is None:
        sys.stderr.write("error: the warm-start server ended during the job "
                         "(PHRASENMT_WARM=0 runs stages without it)\n")
        os._exit(1)
    status = done["status"]
    if status < 0:  # ended by a signal: end the same way
        signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
    os._exit(status if status >= 0 else 128 - status)


# ----------------------------------------------------------------- the server side

def fork_stage(request: dict, child_fds: Callable[[], list[int]],
               preimport: bool = True) -> int:
    """Import the stage's module here first (`preimport`: warm for the next
    command; an error is left to the child, which meets it and reports it),
    then fork. The child takes its stdin, stdout and stderr from `child_fds()`
    (which also closes what the stage must not hold), runs the stage
    (`run_child`) and exits with its status. -> the child's pid."""
    if preimport:
        try:
            __import__(request["module"])
        except BaseException:  # noqa: BLE001, S110 - the child meets it and reports it
            pass
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            code = run_child(request, child_fds())
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
    return pid


def run_child(request: dict, fds: list[int]) -> int:
    """In a fork: become the stage `request` names (module, args, cwd, env) on
    descriptors `fds` (stdin, stdout, stderr) and run it; its exit status."""
    import importlib.util
    import runpy
    import traceback

    os.setsid()
    for target, fd in enumerate(fds[:3]):
        os.dup2(fd, target)
    for fd in fds:
        if fd > 2:
            os.close(fd)
    import io

    # the interpreter's streams on the stage's descriptors, buffered as a fresh
    # interpreter buffers them (stdout by line on a terminal only)
    encoding, errors = sys.stdout.encoding, sys.stdout.errors
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(
        open(0, "rb", closefd=False), encoding=encoding, errors=errors)  # noqa: SIM115 - the stage's stream
    sys.stdout = sys.__stdout__ = io.TextIOWrapper(
        open(1, "wb", closefd=False), encoding=encoding, errors=errors,  # noqa: SIM115
        line_buffering=os.isatty(1))
    sys.stderr = sys.__stderr__ = io.TextIOWrapper(
        open(2, "wb", closefd=False), encoding=encoding,  # noqa: SIM115
        errors="backslashreplace", line_buffering=True)
    for signum in (*_FORWARDED, signal.SIGCHLD, signal.SIGPIPE):
        signal.signal(signum, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # as the interpreter sets it
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    module = request["module"]
    sys.argv = [module, *request["args"]]
    sys.path[0] = request["cwd"]
    import random

    random.seed()  # a fresh interpreter's state, not the server's
    code = 1
    try:
        spec = importlib.util.find_spec(module)
        if spec is None:
            print(f"{sys.executable}: No module named {module}", file=sys.stderr)
            return 1
        sys.modules.pop(module if spec.submodule_search_locations is None
                        else module + ".__main__", None)
        runpy.run_module(module, run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as exit:
        if exit.code is None:
            code = 0
        elif isinstance(exit.code, int):
            code = exit.code
        else:
            print(exit.code, file=sys.stderr)
            code = 1
    except BaseException:  # noqa: BLE001 - printed as the interpreter prints it
        traceback.print_exc()
        code = 1
    import atexit

    try:
        atexit._run_exitfuncs()
    except BaseException:  # noqa: BLE001 - as the interpreter
        traceback.print_exc()
    return code


def serve(path: str) -> None:
    """Listen at `path`, fork one child per stage, until `IDLE` seconds pass idle."""
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[name] = "1"  # loaded once here: no thread pools to fork
    from phrasenmt.allocator import tune

    tune()  # the forks inherit glibc's malloc settings (phrasenmt/allocator.py)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        os.unlink(path)  # a dead server's socket (the starter holds the lock)
    except FileNotFoundError:
        pass
    listener.bind(path)
    listener.listen(64)
    for name in PRELOAD:
        try:
            __import__(name)
        except Exception:  # noqa: BLE001, S110 - a stage that needs it reports it
            pass
    jobs: dict[int, socket.socket] = {}  # child pid -> its stage's connection
    last = time.monotonic()
    while jobs or time.monotonic() - last < IDLE:
        ready, _, _ = select.select([listener, *jobs.values()], [], [], 0.05)
        for sock in ready:
            if sock is listener:
                conn, _ = listener.accept()
                _start(conn, jobs, listener)
            else:  # a stage's end closed or wrote: it died, so its job goes too
                pid = next(p for p, s in jobs.items() if s is sock)
                _signal_job(pid, signal.SIGKILL)
        _reap(jobs)
        if jobs:
            last = time.monotonic()
    listener.close()
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _start(conn: socket.socket, jobs: dict[int, socket.socket],
           listener: socket.socket) -> None:
    try:
        request, fds = _receive(conn, with_fds=3)
    except OSError:
        conn.close()
        return
    if request is None or len(fds) != 3:
        for fd in fds:
            os.close(fd)
        conn.close()
        return

    def child_fds() -> list[int]:  # what the stage must not hold, closed
        listener.close()
        conn.close()
        for other in jobs.values():
            other.close()
        return fds

    # only the package's modules are import-safe: warm for the next job
    pid = fork_stage(request, child_fds,
                     preimport=request["module"].startswith("phrasenmt."))
    for fd in fds:
        os.close(fd)
    try:
        _send(conn, {"pid": pid})
    except OSError:
        _signal_job(pid, signal.SIGKILL)
    jobs[pid] = conn


def _reap(jobs: dict[int, socket.socket]) -> None:
    while jobs:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = jobs.pop(pid, None)
        if conn is not None:
            try:
                _send(conn, {"status": os.waitstatus_to_exitcode(status)})
            except OSError:
                pass
            conn.close()
