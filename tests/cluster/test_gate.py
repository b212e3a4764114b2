"""The SLURM tests change the system (apt-get, /etc/slurm/slurm.conf): they run
only when asked (`make test-cluster`, PHRASENMT_CLUSTER_TESTS=1). This file has
no `cluster` marker: `make test` runs it. Both checks run with a PATH without
apt-get, hostname or bash's usual tools, so that a broken gate fails the test
without touching the machine."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

HERE = Path(__file__).resolve().parent


def _env(tmp_path: Path) -> dict[str, str]:
    """The environment minus the gate variable, and a PATH of an empty folder
    and the test interpreter's folder only (no apt-get, no system tools)."""
    empty = tmp_path / "bin"
    empty.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "PHRASENMT_CLUSTER_TESTS"}
    env["PATH"] = f"{empty}{os.pathsep}{Path(sys.executable).parent}"
    return env


def test_slurm_tests_are_skipped_unless_asked(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
         str(HERE / "test_slurm.py")],
        cwd=REPO, env=_env(tmp_path), capture_output=True, text=True, timeout=300,
        check=False)
    out = result.stdout + result.stderr
    assert result.returncode == 0, out[-3000:]
    assert "passed" not in out.splitlines()[-1] and "skipped" in out.splitlines()[-1], out
    assert ("changes the system (installs SLURM and MariaDB with apt-get, writes "
            "/etc/slurm/slurm.conf): run with make test-cluster "
            "(PHRASENMT_CLUSTER_TESTS=1)") in out, out[-3000:]


def test_setup_script_refuses_to_run_unless_asked(tmp_path):
    bash = "/bin/bash" if Path("/bin/bash").exists() else "/usr/bin/bash"
    result = subprocess.run([bash, str(HERE / "setup_slurm.sh")], env=_env(tmp_path),
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stderr.startswith("setup_slurm.sh: installs SLURM and MariaDB and writes "
                                    "/etc/slurm: run it through make test-cluster")
    assert result.stdout == ""


def test_make_targets():
    """`make test` leaves the gate closed; `make test-cluster` opens it."""
    result = subprocess.run(["make", "-n", "test", "test-cluster"], cwd=REPO,
                            capture_output=True, text=True, check=True)
    test, cluster = [line for line in result.stdout.splitlines() if "pytest" in line]
    assert "PHRASENMT_CLUSTER_TESTS" not in test
    assert cluster.startswith("PHRASENMT_CLUSTER_TESTS=1 ") and "tests/cluster" in cluster
