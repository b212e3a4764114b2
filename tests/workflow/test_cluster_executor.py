"""The SLURM profile on a machine without SLURM: one line before any job,
where every job failed its submission in turn (the plugin's FileNotFoundError
of `sacctmgr`) and the run ended after its retries. A dry run of the profile
still plans, so the cluster's DAG can be checked on a laptop."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from phrasenmt.workflow import base as wf
from tests.conftest import REPO

TARGET = "results/quickstart_en_de/raw/train.en"


SLURM = {"sbatch", "sacct", "sacctmgr", "squeue", "scancel", "scontrol", "srun", "sinfo"}


def _without_slurm(tmp_path) -> dict[str, str]:
    """This environment with SLURM's commands taken off PATH: a folder of links
    to every other command of PATH's folders (a CI machine may have SLURM)."""
    links = tmp_path / "bin"
    links.mkdir(parents=True)
    for folder in os.environ["PATH"].split(os.pathsep):
        if not os.path.isdir(folder):
            continue
        for name in os.listdir(folder):
            target = os.path.join(folder, name)
            if name not in SLURM and not (links / name).exists() and os.access(target, os.X_OK):
                (links / name).symlink_to(target)
    return {**os.environ, "PATH": str(links)}


def test_executor_unavailable_names_the_submit_command(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    line = wf.executor_unavailable("slurm")
    assert line is not None and "`sbatch`, which is not on PATH here" in line
    assert wf.executor_unavailable("local") is None
    assert wf.executor_unavailable(None) is None
    (tmp_path / "sbatch").write_text("#!/bin/sh\n")
    (tmp_path / "sbatch").chmod(0o755)
    assert wf.executor_unavailable("slurm") is None


def test_the_slurm_profile_without_slurm_stops_in_one_line(tmp_path):
    (tmp_path / "work").mkdir()  # the Snakefile's `configfile:` is read from here
    shutil.copy(REPO / "config.yaml", tmp_path / "work" / "config.yaml")
    cmd = [sys.executable, "-m", "snakemake", "--profile", "profiles/slurm",
           "--directory", str(tmp_path / "work"), "--snakefile", str(REPO / "Snakefile"),
           TARGET, "--configfile", str(REPO / "configs/quickstart.yaml")]
    env = _without_slurm(tmp_path / "env")
    run = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, env=env,
                         timeout=300, check=False)
    errors = [x for x in run.stderr.splitlines() if x.startswith("error:")]
    assert run.returncode == 1, run.stderr[-2000:]
    assert errors == [f"error: {wf.executor_unavailable('slurm')}"], run.stderr[-2000:]
    assert "Traceback" not in run.stderr and "sacctmgr" not in run.stderr
    assert not (tmp_path / "work" / "results").exists()
    plan = subprocess.run([*cmd, "-n"], cwd=REPO, capture_output=True, text=True,
                          env=env, timeout=300, check=False)
    assert plan.returncode == 0, plan.stderr[-2000:]
