"""tools/run_timeline.py: per-rule job seconds from a Snakemake log."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "run_timeline.py"

LOG = """Building DAG of jobs...
[Mon Nov 23 19:14:08 2026]
localrule synthetic:
    output: a
    jobid: 3
    wildcards: dataset=x
[Mon Nov 23 19:14:08 2026]
rule train:
    input: a
    jobid: 7
[Mon Nov 23 19:14:18 2026]
Finished jobid: 3 (Rule: synthetic)
[Mon Nov 23 19:14:38 2026]
Finished jobid: 7 (Rule: train)
"""


def test_sums_each_rules_job_seconds(tmp_path):
    log = tmp_path / "run.log"
    log.write_text(LOG)
    out = subprocess.run([sys.executable, str(SCRIPT), str(log)], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    assert out[0] == "span 30 s; seconds with n jobs running: {1: 20, 2: 10}"
    rows = {line.split()[0]: line.split()[1:] for line in out[2:]}
    assert rows["train"] == ["1", "30", "30.0"]
    assert rows["synthetic"] == ["1", "10", "10.0"]
    assert rows["all"] == ["2", "40"]


def test_a_log_without_finished_jobs_is_one_line(tmp_path):
    log = tmp_path / "run.log"
    log.write_text("Building DAG of jobs...\n")
    run = subprocess.run([sys.executable, str(SCRIPT), str(log)], capture_output=True,
                         text=True, check=False)
    assert run.returncode == 1
    assert run.stderr.strip() == f"{log}: no finished jobs in this log"
