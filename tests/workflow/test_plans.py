"""The shared dry runs (tests/workflow/plans.py): the jobs read for targets from a
whole config's plan are the jobs Snakemake plans for those targets."""

from __future__ import annotations

import pytest

from tests.conftest import REPO
from tests.workflow.dag_golden import parse_jobs
from tests.workflow.plans import Plan, dry_run, parse_blocks, plan

TEXT = """\
Building DAG of jobs...
[Sat Nov 28 22:32:34 2026]
rule a:
    input: raw.txt
    output: a.txt
    jobid: 2
    wildcards: x=1
Shell command: make a.txt > log 2>&1

[Sat Nov 28 22:32:34 2026]
rule b:
    input: a.txt, other.txt
    output: b.txt, b.log
    jobid: 1
Shell command: make b.txt

[Sat Nov 28 22:32:34 2026]
rule c:
    output: other.txt
    jobid: 3

[Sat Nov 28 22:32:34 2026]
rule d:
    input: a.txt
    output: d.txt
    jobid: 4

[Sat Nov 28 22:32:34 2026]
localrule all:
    input: b.txt, d.txt
    jobid: 0
Job stats:
job      count
"""


def test_parse_blocks_reads_each_job_with_its_files_and_command():
    jobs = parse_blocks(TEXT)
    assert [job.text.split()[1] for job in jobs] == ["a:", "b:", "c:", "d:", "all:"]
    assert jobs[1].inputs == ("a.txt", "other.txt")
    assert jobs[1].outputs == ("b.txt", "b.log")
    assert jobs[0].text.endswith("Shell command: make a.txt > log 2>&1\n\n")
    assert jobs[4].outputs == ()


def test_needed_for_follows_the_inputs_upstream():
    whole = Plan(TEXT, "")
    assert whole.rules == {"a", "b", "c", "d", "all"}
    assert whole.needed_for("b.txt").rules == {"a", "b", "c"}
    assert whole.needed_for("d.txt").rules == {"a", "d"}
    assert "make b.txt" in whole.needed_for("b.log").stdout
    with pytest.raises(KeyError, match="raw.txt"):
        whole.needed_for("raw.txt")


def test_needed_for_plans_what_snakemake_plans_for_the_targets():
    config = REPO / "configs" / "multi30k_families.yaml"
    targets = ["results/multi30k_de_en/report/claims_npmt.md",
               "results/multi30k_en_de/report/claims_phrase.md"]
    planned = dry_run(config, targets=tuple(targets))  # Snakemake's own
    read = plan(config).needed_for(*targets)
    assert parse_jobs(read.stdout) == parse_jobs(planned.stdout)
    assert len(parse_jobs(read.stdout)) > 20
