"""The GPU check (tests/gpu/check.py), part 4: DDP through the training rule's launcher.

The Transformer (tiny, fp32, no dropout) trains under `torchrun --standalone
--nproc-per-node N -m phrasenmt.train` (rules/common.smk, train_launcher) and
as one plain process with the same spec, seed and data; the per-update losses
must agree to DDP_TOL (relative). With one rank the trainer needs no process
group (it wraps the model in DistributedDataParallel from 2 ranks). Two ranks
on a node with one GPU share it through gloo (PHRASENMT_DIST_BACKEND=gloo):
the process group, DDP's gradient all-reduce of CUDA tensors, each rank's own
share of the batches and the trainer's sums, without NCCL.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from phrasenmt.train import main as train_main
from phrasenmt.training.distributed import BACKEND_VARIABLE
from tests.gpu.families import (
    CheckFailed,
    Settings,
    call,
    losses,
    one_line,
    relative,
    train_args,
)

DDP_TOL = 1e-3  # relative difference of DDP's per-update losses to one process'


def ddp_command(procs: int) -> list[str]:
    """The training rule's launcher (rules/common.smk, train_launcher) as argv:
    `torchrun --standalone --nproc-per-node N`, run as `python -m
    torch.distributed.run` (the same program; torchrun may not be on PATH)."""
    return [sys.executable, "-m", "torch.distributed.run", "--standalone",
            "--nproc-per-node", str(procs), "-m", "phrasenmt.train"]


def subprocess_env(backend: str = "auto") -> dict[str, str]:
    """This process' environment with this checkout's src/ first on PYTHONPATH
    and the process group's backend (PHRASENMT_DIST_BACKEND)."""
    src = str(Path(__file__).resolve().parents[2] / "src")
    path = os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PYTHONPATH": path, BACKEND_VARIABLE: backend}


def run_group(argv: list[str], timeout: float,
              backend: str = "auto") -> subprocess.CompletedProcess:
    """Run the launcher in its own process group; if this process is stopped
    (SIGTERM raises Terminated) or the time runs out, the launcher and its
    ranks get SIGTERM, then SIGKILL 10 s later: no rank is left behind."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=subprocess_env(backend),
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except BaseException:
        for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, None)):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.communicate(timeout=wait)
                break
        raise
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def rank_error(stderr: str) -> str:
    """The line that says why a rank failed: the last `...Error: ...` line of the
    ranks' output (not the launcher's ChildFailedError, whose summary ends in a
    rule of '='), else the last line that is not such a rule."""
    lines = [re.sub(r"^\[(default)?rank\d+\]:\s*", "", x.strip())
             for x in stderr.splitlines() if x.strip()]
    errors = [x for x in lines if re.match(r"^[\w.]*(Error|Exception)\b.*:", x)
              and "ChildFailedError" not in x]
    return one_line((errors or [x for x in lines if set(x) != {"="}] or [""])[-1])


def check_ddp(s: Settings, procs: int, timeout: float,
              backend: str = "auto") -> dict[str, Any]:
    """The Transformer under the launcher with `procs` ranks vs one process (fp32),
    the process group's backend `backend` (PHRASENMT_DIST_BACKEND)."""
    folder = s.workdir / f"ddp{procs}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    name = f"DDP, {procs} process(es)" + ("" if backend == "auto" else f", {backend}")
    row: dict[str, Any] = {"check": name, "status": "FAIL", "backend": backend}
    start = time.perf_counter()
    try:
        single = folder / "single"
        call(train_main, train_args("transformer", s, single, "fp32"),
             folder / "single.log")
        result = run_group(
            [*ddp_command(procs), *train_args("transformer", s, folder / "ddp", "fp32")],
            timeout, backend)
        (folder / "ddp.log").write_text(result.stdout + result.stderr, "utf-8")
        if result.returncode != 0:
            raise CheckFailed(f"exit {result.returncode}: {rank_error(result.stderr)}")
        one, _ = losses(single)
        many, _ = losses(folder / "ddp")
        diff = max(relative(a, b) for a, b in zip(many, one, strict=True))
        row.update(updates=len(many), max_rel_diff=diff, tolerance=DDP_TOL)
        if procs == 1:  # Distributed: a world of 1 needs no process group
            row["note"] = "1 rank: no process group (DDP wraps from 2 ranks)"
        if len(many) != len(one) or diff > DDP_TOL:
            raise CheckFailed(f"losses differ from one process' by up to {diff:.2e} "
                              f"(> {DDP_TOL})")
        row["status"], row["reason"] = "PASS", ""
    except subprocess.TimeoutExpired:
        row["reason"] = f"timed out after {timeout:.0f} s"
    except CheckFailed as err:
        row["reason"] = str(err)
    row["seconds"] = round(time.perf_counter() - start, 1)
    return row
