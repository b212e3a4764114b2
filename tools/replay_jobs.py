"""Run the jobs of a Snakemake dry run where Snakemake is not installed.

A GPU node without a package index often has PyTorch but not Snakemake. This
runs the shell commands that `snakemake -n -p` printed, in dependency order,
several at a time, for the rules chosen: on the node, the trainings and every
job that reads their checkpoints; back where the workflow lives, the rest of
the same dry run, from the files that came back (Snakemake itself would redo
the trainings there, since the checkpoints stay on the node).

    snakemake -n -p TARGETS --configfile CONFIG > dry.log
    python tools/replay_jobs.py --dry-run dry.log --rules train average \\
        translate --jobs 12 --report replay.json

A job whose outputs all exist is taken as done. A job runs once every input
that another chosen job makes exists; a chosen job that needs the output of a
job not chosen (and not there) is reported and skipped, not run on a guess.
A failed job's outputs are deleted, as Snakemake does. On SIGTERM or SIGINT
(`timeout`) it starts nothing more, ends the running jobs, and still writes
its report. Each job's benchmark file is written in Snakemake's format (wall
seconds and the CPU seconds of the job's processes; memory and I/O columns are
0: not measured here), so that the workflow's efficiency tables read it.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import signal
import subprocess
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

BENCHMARK_HEADER = ("s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\t"
                    "mean_load\tcpu_time\n")


@dataclass
class Job:
    """One job of the dry run: its rule, files and shell command."""

    rule: str
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    benchmark: str = ""
    command: str = ""


FIELDS = {"input": "inputs", "output": "outputs", "log": "log"}


def parse_dry_run(text: str) -> list[Job]:
    """The jobs of `snakemake -n -p` output (rules with a shell command)."""
    jobs: list[Job] = []
    job: Job | None = None
    in_command = False
    for line in text.splitlines():
        head = re.match(r"^(?:local)?rule (\S+):$", line)
        if head:
            job = Job(head.group(1))
            jobs.append(job)
            in_command = False
            continue
        if job is None:
            continue
        key = re.match(r"^    (input|output|log|benchmark): (.*)$", line)
        if key and not in_command:
            name, value = key.groups()
            if name == "benchmark":
                job.benchmark = value.strip()
            else:
                getattr(job, FIELDS[name]).extend(v.strip() for v in value.split(", "))
            continue
        if line.startswith("Shell command: "):
            job.command = line[len("Shell command: "):]
            in_command = True
            continue
        if in_command:
            if not line.strip():
                in_command = False
                job = None
            else:
                job.command += "\n" + line
    return [j for j in jobs if j.command]


class Stop:
    """Set by SIGTERM/SIGINT: start nothing more, end the running jobs' process groups."""

    requested = False
    groups: set[int] = set()  # noqa: RUF012  (process groups of the running jobs)

    @classmethod
    def handler(cls, signum: int, frame: object) -> None:
        cls.requested = True
        for group in list(cls.groups):
            try:
                os.killpg(group, signal.SIGTERM)
            except ProcessLookupError:
                pass


def run_job(job: Job) -> dict:
    """Run one job's command under bash; write its benchmark file."""
    for path in [*job.outputs, *job.log, job.benchmark]:
        if path:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    # Its own process group (ended as one on a stop), and none of our standard
    # streams: a job left running must not keep a pipe that reads ours open.
    proc = subprocess.Popen(["bash", "-c", "set -euo pipefail; " + job.command],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            start_new_session=True)
    Stop.groups.add(proc.pid)
    if Stop.requested:  # a stop that came between the check and the start
        os.killpg(proc.pid, signal.SIGTERM)
    _, status, usage = os.wait4(proc.pid, 0)
    Stop.groups.discard(proc.pid)
    rc = os.waitstatus_to_exitcode(status)
    seconds = time.monotonic() - start
    cpu = usage.ru_utime + usage.ru_stime
    if rc != 0:  # no half-written output may pass for a done job
        for path in job.outputs:
            if os.path.isfile(path):
                os.remove(path)
    if job.benchmark and rc == 0:
        hms = str(datetime.timedelta(seconds=int(seconds)))
        Path(job.benchmark).write_text(
            BENCHMARK_HEADER + f"{seconds:.2f}\t{hms}\t0\t0\t0\t0\t0\t0\t"
            f"{100 * cpu / max(seconds, 1e-9):.2f}\t{cpu:.2f}\n")
    return {"rule": job.rule, "outputs": job.outputs, "rc": rc,
            "seconds": round(seconds, 2), "cpu_seconds": round(cpu, 2)}


def by_rules(jobs: list[Job], rules: list[str]) -> list[Job]:
    """The jobs of these rules, those of earlier rules first."""
    order = {rule: i for i, rule in enumerate(rules)}
    return sorted((j for j in jobs if j.rule in order), key=lambda j: order[j.rule])


def is_training(job: Job) -> bool:
    return any(re.search(r"/models/[^/]+/seed[^/]+/summary\.json$", o) for o in job.outputs)


def node_jobs(jobs: list[Job], rules: list[str]) -> list[Job]:
    """Trainings, every job that reads or writes a checkpoint (*.pt), the jobs
    of `rules`, and the jobs that make what those read where it is not here
    (temporary files); trainings first."""
    maker = {o: j for j in jobs for o in j.outputs}
    chosen = {id(j): j for j in jobs if is_training(j) or j.rule in rules
              or any(p.endswith(".pt") for p in [*j.inputs, *j.outputs])}
    todo = list(chosen.values())
    while todo:
        for path in todo.pop().inputs:
            producer = maker.get(path)
            if producer is not None and id(producer) not in chosen \
                    and not os.path.exists(path):
                chosen[id(producer)] = producer
                todo.append(producer)
    return sorted((j for j in jobs if id(j) in chosen), key=lambda j: not is_training(j))


def schedule(jobs: list[Job], chosen: list[Job], workers: int) -> list[dict]:
    """Run the chosen jobs whose outputs are missing, in dependency order."""
    chosen = [j for j in chosen if not all(os.path.exists(o) for o in j.outputs)]
    maker = {o: j for j in jobs for o in j.outputs}
    chosen_ids = {id(j) for j in chosen}
    report: list[dict] = []
    pending = list(chosen)
    failed: set[int] = set()
    finished: set[int] = set()  # chosen jobs that ended with rc 0
    running: dict[Future, Job] = {}

    def blocker(job: Job) -> str | None:
        """Why the job cannot start now: 'wait', a reason to skip, or None."""
        for path in job.inputs:
            producer = maker.get(path)
            if producer is not None and id(producer) in chosen_ids \
                    and id(producer) not in finished:
                # An output exists as soon as its job opens it: only the
                # producer's end says it is whole.
                return f"input {path}: its job failed" if id(producer) in failed \
                    else "wait"
            if os.path.exists(path):
                continue
            if producer is None:
                return f"input {path} is missing and no job makes it"
            if id(producer) not in chosen_ids:
                return f"input {path} comes from rule {producer.rule}, not chosen"
            return f"input {path}: its job ended without making it"
        return None

    with ThreadPoolExecutor(max_workers=workers) as pool:
        while pending or running:
            for job in list(pending):
                if len(running) >= workers or Stop.requested:
                    break
                why = blocker(job)
                if why == "wait":
                    continue
                pending.remove(job)
                if why is not None:
                    failed.add(id(job))
                    report.append({"rule": job.rule, "outputs": job.outputs,
                                   "rc": None, "skipped": why})
                    print(f"skip {job.rule} {job.outputs[0]}: {why}", flush=True)
                    continue
                print(f"start {job.rule} {job.outputs[0]}", flush=True)
                running[pool.submit(run_job, job)] = job
            if not running:
                if pending:  # stopped, or every pending job waits on one not running
                    why = "stopped" if Stop.requested else "dependency cycle"
                    for job in pending:
                        report.append({"rule": job.rule, "outputs": job.outputs,
                                       "rc": None, "skipped": why})
                    break
                continue
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                job = running.pop(future)
                result = future.result()
                report.append(result)
                if result["rc"] != 0:
                    failed.add(id(job))
                else:
                    finished.add(id(job))
                print(f"{'done' if result['rc'] == 0 else 'FAILED'} {job.rule} "
                      f"{job.outputs[0]} ({result['seconds']} s)", flush=True)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", required=True, type=Path,
                        help="the output of snakemake -n -p")
    parser.add_argument("--rules", nargs="+", default=[],
                        help="run the jobs of these rules (earlier rules first "
                        "where several jobs could start)")
    parser.add_argument("--node", action="store_true",
                        help="run the jobs a GPU node runs: trainings, every job that "
                        "reads a checkpoint, and those that make their inputs where "
                        "these are not here; with --rules, those rules' jobs too")
    parser.add_argument("--rest", action="store_true",
                        help="with --node: run the jobs --node does not (evaluation "
                        "and tables, where the node's files came back)")
    parser.add_argument("--jobs", type=int, default=1, help="jobs at a time")
    parser.add_argument("--report", type=Path, help="write each job's result (JSON)")
    parser.add_argument("--list-inputs", action="store_true",
                        help="print the files the chosen jobs read that none of them "
                        "makes (what to copy to the node), and run nothing")
    args = parser.parse_args(argv)
    jobs = parse_dry_run(args.dry_run.read_text())
    if args.rest and not args.node:
        parser.error("--rest: the jobs that --node leaves: give --node too")
    if not args.rules and not args.node:
        parser.error("say which jobs to run: --rules RULE ... or --node")
    unknown = set(args.rules) - {j.rule for j in jobs}
    if unknown and not args.node:
        parser.error(f"--rules: no job of {', '.join(sorted(unknown))} in {args.dry_run}")
    if unknown:  # with --node they are extras: a config may have none of their jobs
        print(f"note: no job of {', '.join(sorted(unknown))} in {args.dry_run}",
              file=sys.stderr)
    rules = list(dict.fromkeys(args.rules))
    chosen = node_jobs(jobs, rules) if args.node else by_rules(jobs, rules)
    if args.rest:
        on_node = {id(j) for j in chosen}
        chosen = [j for j in jobs if id(j) not in on_node]
    if not chosen:
        parser.error(f"--node: no training and no job that reads a checkpoint in "
                     f"{args.dry_run}")
    if args.list_inputs:
        made = {o for j in chosen for o in j.outputs}
        needed = sorted({i for j in chosen for i in j.inputs} - made)
        missing = [p for p in needed if not os.path.exists(p)]
        if missing:
            print(f"error: {len(missing)} inputs are not here, e.g. {missing[0]}",
                  file=sys.stderr)
            return 1
        print("\n".join(needed))
        return 0
    signal.signal(signal.SIGTERM, Stop.handler)
    signal.signal(signal.SIGINT, Stop.handler)
    report = schedule(jobs, chosen, max(1, args.jobs))
    if args.report:
        args.report.write_text(json.dumps(report, indent=1) + "\n")
    bad = [r for r in report if r["rc"] != 0]
    print(f"{len(report) - len(bad)} of {len(report)} jobs done", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
