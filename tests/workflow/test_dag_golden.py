"""Every config's dry run plans the jobs of its golden file (tests/workflow/dag/).

A change that is meant to change the DAG regenerates them:
`.venv/bin/python -m tests.workflow.dag_golden --update` (then review the diff).
"""

from __future__ import annotations

import pytest

from tests.workflow import dag_golden

CONFIGS = dag_golden.configs()


def test_every_config_has_a_golden_file():
    files = sorted(p.stem for p in dag_golden.GOLDEN.glob("*.txt"))
    assert files == sorted(CONFIGS), "run: python -m tests.workflow.dag_golden --update"


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_dry_run_plans_the_golden_jobs(name: str):
    changes = dag_golden.diff(name, dag_golden.job_list(CONFIGS[name]))
    assert not changes, (
        f"the dry run of {name} plans other jobs than its golden file; if that is "
        f"meant, run: python -m tests.workflow.dag_golden --update {name}\n"
        + changes[:4000])


def test_parse_jobs_reads_rule_wildcards_and_files():
    text = ("rule b:\n    input: x\n    output: y\n    jobid: 3\n"
            "    wildcards: dataset=d\n    resources: mem_mb=1\n"
            "Shell command: run x > y\n\n"
            "localrule a:\n    input: y\n    jobid: 0\n    reason: Forced\n")
    assert dag_golden.parse_jobs(text) == [
        "a []\n    input: y",
        "b [dataset=d]\n    input: x\n    output: y",
    ]
