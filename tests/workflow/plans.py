"""Dry runs of the workflow, each made once per pytest run and read by every test.

A Snakemake start that plans a config takes 10-20 s on a 2-core machine, and the
golden-DAG, every-config, paper and family tests all read the same plans. `plan()`
runs `snakemake -n -p --forceall` once per config file (and `--config` values) and
pytest run, whichever test process asks first, and keeps its text; `Plan.needed_for(targets)` reads, from that same job list, the jobs
a dry run of those targets plans: the targets' jobs and everything upstream of
them, which is what Snakemake plans for targets under --forceall
(tests/workflow/test_plans.py holds one to a targeted dry run of its own).

The dry runs treat the external LM as built, so that the NPMT+LM rows are planned
whether or not this machine has `lmplz` (it is only looked up, never run).
"""

from __future__ import annotations

import functools
import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from tests import forkrun, shared
from tests.conftest import LOCAL_ENV, REPO

JOB_STARTS = ("rule ", "localrule ", "checkpoint ", "localcheckpoint ")
# Snakemake with the LM's availability pinned (tests/workflow/planned.py), in a
# fork of the tests' warm interpreter (tests/forkrun.py).
PLANNER = "tests.workflow.planned"


@dataclass(frozen=True)
class Job:
    """One planned job: its text as the dry run printed it, and its files."""

    text: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]


@dataclass(frozen=True)
class Plan:
    """A dry run's printed text (stdout: the jobs and their shell commands)."""

    stdout: str
    stderr: str

    @property
    def text(self) -> str:
        """stdout and stderr together, as a terminal shows them."""
        return self.stdout + self.stderr

    @functools.cached_property
    def jobs(self) -> tuple[Job, ...]:
        """Every planned job, in the order printed."""
        return tuple(parse_blocks(self.stdout))

    @property
    def rules(self) -> set[str]:
        """The names of the rules with a planned job."""
        return {job.text.split(maxsplit=2)[1].rstrip(":") for job in self.jobs}

    def needed_for(self, *targets: str) -> Plan:
        """The jobs a dry run of `targets` plans: theirs and every job upstream."""
        made_by = {path: job for job in self.jobs for path in job.outputs}
        missing = [t for t in targets if t not in made_by]
        if missing:
            raise KeyError(f"no planned job makes {missing}")
        needed, todo = {}, list(targets)
        while todo:
            job = made_by.get(todo.pop())
            if job is not None and id(job) not in needed:
                needed[id(job)] = job
                todo.extend(job.inputs)
        text = "".join(job.text for job in self.jobs if id(job) in needed)
        return Plan(stdout=text, stderr="")


def _files(value: str) -> tuple[str, ...]:
    return tuple(part for part in value.split(", ") if part)


def parse_blocks(stdout: str) -> list[Job]:
    """The job blocks of a dry run's stdout: a job line, its fields, its command."""
    jobs, lines = [], None
    fields: dict[str, str] = {}

    def close():
        if lines is not None:
            jobs.append(Job("\n".join(lines) + "\n\n", _files(fields.get("input", "")),
                            _files(fields.get("output", ""))))

    for line in stdout.splitlines():
        if line.startswith(JOB_STARTS) and line.endswith(":"):
            close()
            lines, fields = [line], {}
        elif lines is not None and line.startswith("    ") and ": " in line:
            key, value = line.strip().split(": ", 1)
            fields.setdefault(key, value)
            lines.append(line)
        elif lines is not None and line.startswith("Shell command: "):
            lines.append(line)
        else:
            close()
            lines = None
    close()
    return jobs


def dry_run(configfile: Path | tuple[Path, ...] | None = None, *config: str,
            targets: tuple[str, ...] = (), cwd: Path = REPO) -> Plan:
    """`snakemake -n -p --forceall` of a config (None: config.yaml alone; a tuple:
    each file over the one before, as `--configfile A B`).

    `config` are `--config` values. Raises with the run's last lines if it fails.
    """
    files = configfile if isinstance(configfile, tuple) else [configfile] if configfile else []
    extra = ["--configfile", *map(str, files)] if files else []
    if config:
        extra += ["--config", *config]
    cmd = [sys.executable, "-m", PLANNER, "-n", "-p", "--forceall", "--cores", "2",
           *extra, "--", *targets]
    result = forkrun.run(cmd, cwd=cwd, timeout=600, env=LOCAL_ENV)
    if result.returncode != 0:
        raise RuntimeError(f"dry run of {configfile or 'config.yaml'} {config} failed:\n"
                           + (result.stdout + result.stderr)[-3000:])
    return Plan(result.stdout, result.stderr)


@functools.cache
def plan(configfile: Path | tuple[Path, ...] | None = None, *config: str,
         cwd: Path = REPO) -> Plan:
    """The dry run of a config and its default target, made once per pytest run
    (by the first test process that asks: tests/shared.py)."""
    key = hashlib.sha256(repr((str(configfile), config, str(cwd))).encode()).hexdigest()

    def make(path: Path) -> None:
        made = dry_run(configfile, *config, cwd=cwd)
        path.write_text(json.dumps([made.stdout, made.stderr]), encoding="utf-8")

    stdout, stderr = json.loads(shared.once(f"plan-{key[:16]}.json", make).read_text(
        encoding="utf-8"))
    return Plan(stdout, stderr)
