"""The job list of every config's dry run, kept as golden files under tests/workflow/dag/.

A refactoring of the rules or of `phrasenmt.workflow` must plan the same jobs:
tests/workflow/test_dag_golden.py dry-runs each config and compares its jobs (rule,
wildcards, inputs, outputs, log and benchmark files; not shell commands, threads or
resources) with the golden file. When a change to the DAG is meant (a new model, a
new rule), regenerate the files and review their diff:

    .venv/bin/python -m tests.workflow.dag_golden --update [CONFIG ...]

Without --update it prints which configs differ. The dry runs are those of
tests/workflow/plans.py: --forceall (the plan does not depend on what results/
holds), with the external LM treated as built, so that the NPMT+LM rows are
planned whether or not this machine has `lmplz`.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

from tests.conftest import REPO
from tests.workflow.plans import JOB_STARTS, plan

GOLDEN = Path(__file__).resolve().parent / "dag"
# job fields that name files or the job itself; the rest (jobid, reason, threads,
# resources, shell command) depend on the machine or on what results/ holds
FIELDS = ("input", "output", "log", "benchmark")


def configs() -> dict[str, Path | None]:
    """Golden name -> config file (None: the default config.yaml alone)."""
    found: dict[str, Path | None] = {"config": None}
    for path in sorted((REPO / "configs").glob("*.yaml")):
        found[path.stem] = path
    for path in sorted((REPO / "configs" / "paper").glob("*.yaml")):
        found[f"paper_{path.stem}"] = path
    return found


def dry_run(configfile: Path | None) -> str:
    """The dry run's text of one config (made once per process); raises if it fails."""
    return plan(configfile).text


def parse_jobs(text: str) -> list[str]:
    """One block per job (its rule and wildcards, then its files), sorted."""
    jobs, job = [], None
    for line in text.splitlines():
        if line.startswith(JOB_STARTS) and line.endswith(":"):
            job = {"rule": line.split()[-1].rstrip(":"), "wildcards": ""}
            jobs.append(job)
        elif job is not None and line.startswith("    ") and ": " in line:
            key, value = line.strip().split(": ", 1)
            if key in (*FIELDS, "wildcards"):
                job[key] = value
        elif not line.startswith("    "):
            job = None
    blocks = []
    for job in jobs:
        head = f"{job['rule']} [{job['wildcards']}]"
        blocks.append("\n".join([head, *(f"    {k}: {job[k]}" for k in FIELDS
                                         if k in job)]))
    return sorted(blocks)


def job_list(configfile: Path | None) -> str:
    """The golden file's text of one config."""
    jobs = parse_jobs(dry_run(configfile))
    if not jobs:
        raise RuntimeError(f"dry run of {configfile or 'config.yaml'} planned no job")
    return "\n".join(jobs) + "\n"


def golden_path(name: str) -> Path:
    return GOLDEN / f"{name}.txt"


def diff(name: str, actual: str) -> str:
    """A unified diff of the golden file against `actual` ('' when equal)."""
    path = golden_path(name)
    expected = path.read_text(encoding="utf-8") if path.exists() else ""
    return "".join(difflib.unified_diff(
        expected.splitlines(keepends=True), actual.splitlines(keepends=True),
        fromfile=str(path.relative_to(REPO)), tofile=f"dry run of {name}"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true",
                        help="rewrite the golden files from the current dry runs")
    parser.add_argument("names", nargs="*",
                        help="golden names (default: every config): "
                        + ", ".join(configs()))
    args = parser.parse_args(argv)
    known = configs()
    for name in args.names:
        if name not in known:
            parser.error(f"unknown config {name!r}")
    status = 0
    for name in args.names or known:
        actual = job_list(known[name])
        if args.update:
            GOLDEN.mkdir(exist_ok=True)
            golden_path(name).write_text(actual, encoding="utf-8")
            jobs = sum(not line.startswith(" ") for line in actual.splitlines())
            print(f"wrote {golden_path(name).relative_to(REPO)} ({jobs} jobs)")
        elif changes := diff(name, actual):
            print(changes)
            status = 1
        else:
            print(f"{name}: same jobs")
    return status


if __name__ == "__main__":
    sys.exit(main())
