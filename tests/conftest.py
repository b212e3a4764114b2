"""Shared test fixtures: repository paths and a Snakemake runner."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import shared

# One OpenMP thread per process unless the caller set OMP_NUM_THREADS: the test
# workers, the background tiny runs and their jobs already fill the cores, tiny
# models gain nothing from a second thread, and idle OpenMP threads spin, costing
# CPU time the other processes need. Set when pytest loads this file, before
# torch is imported and before the workers start, so that every test process and
# every command a test starts (LOCAL_ENV below) has it.
os.environ.setdefault("OMP_NUM_THREADS", "1")

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
# The settings the unit tests read: a frozen copy of config.yaml. A test about the
# production config reads config.yaml and states a relation, not a tuned value.
TEST_CONFIG = REPO / "tests" / "data" / "config.yaml"

# Snakemake imports every installed executor plugin when it starts, and the
# SLURM plugin then runs `scontrol show config` (with a 10 s timeout), even for
# a dry run on the local executor. Where the SLURM client is installed but no
# controller answers (CI, once tests/cluster has stopped its cluster), every
# Snakemake start waited those 10 s. The local-executor tests run Snakemake with
# tools/shims first on PATH (as `make run` does): its scontrol fails at once, as without SLURM.
# tests/cluster runs the real one.
LOCAL_ENV = {**os.environ,
             "PATH": f"{REPO / 'tools' / 'shims'}{os.pathsep}{os.environ['PATH']}"}


# Options under which Snakemake starts no job: such a run goes to a fork of the
# tests' warm interpreter (tests/forkrun.py), which has imported Snakemake once.
NO_JOBS = {"-n", "--dry-run", "--dryrun", "--lint", "--unlock", "--report",
           "--list-rules", "--summary"}


def snakemake(*args: str, cwd: Path = REPO, timeout: int = 600, fork: bool | None = None
              ) -> subprocess.CompletedProcess:
    """Run the project's Snakemake (local executor) from the test interpreter;
    `fork`: in a fork of a warm interpreter (tests/forkrun.py), by default for a
    run that starts no job (a dry run, the lint, a configuration that must
    fail); a run of jobs gets an interpreter of its own, as a user's does."""
    cmd = [sys.executable, "-m", "snakemake", *args]
    if fork is None:
        fork = any(a in NO_JOBS for a in args)
    if fork:
        from tests import forkrun

        return forkrun.run(cmd, cwd=cwd, timeout=timeout, env=LOCAL_ENV)
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, check=False, env=LOCAL_ENV)


def pytest_configure(config):
    """One shared folder per pytest run, made before any worker starts (tests/shared.py)."""
    shared.begin()


def pytest_unconfigure(config):
    shared.end()


@pytest.fixture(scope="module")
def one_thread():
    """One torch thread for a module's tiny models, also where the caller set
    OMP_NUM_THREADS (they run fastest on one, and leave the shared cores free):
    `pytestmark = pytest.mark.usefixtures("one_thread")`."""
    import torch  # here, not above: OMP_NUM_THREADS is set before torch loads

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture
def repo() -> Path:
    """The repository root."""
    return REPO
