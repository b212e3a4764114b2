"""Per-rule job seconds of one Snakemake run, from its log.

    python tools/run_timeline.py .snakemake/log/<run>.snakemake.log

Prints the run's span (first job start to last job end), for how many seconds
0, 1, 2 or more jobs were running, and per rule: jobs, summed job seconds and
seconds per job (each job from its start line to its `Finished jobid` line,
to the second, as the log stamps them). The sum of job seconds over the cores
is the least wall time that scheduling could reach.
"""

from __future__ import annotations

import argparse
import collections
import datetime
import re
from pathlib import Path


def jobs(path: str) -> list[tuple[str, datetime.datetime, datetime.datetime]]:
    """(rule, start, end) of every finished job in the log."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    stamp, start, rule, out = None, {}, {}, []
    for i, line in enumerate(lines):
        if line.startswith("[") and line.endswith("]"):
            stamp = datetime.datetime.strptime(line[1:-1], "%a %b %d %H:%M:%S %Y")
        if m := re.match(r"(local)?rule (\w+):", line):
            for later in lines[i + 1: i + 12]:
                if j := re.match(r"\s+jobid: (\d+)", later):
                    start[j.group(1)], rule[j.group(1)] = stamp, m.group(2)
                    break
        if (m := re.match(r"Finished jobid: (\d+)", line)) and m.group(1) in start:
            out.append((rule[m.group(1)], start[m.group(1)], stamp))
    return out


def main() -> None:
    """Print the summary of one log."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("log")
    args = p.parse_args()
    runs = jobs(args.log)
    if not runs:
        raise SystemExit(f"{args.log}: no finished jobs in this log")
    t0, t1 = min(s for _, s, _ in runs), max(e for _, _, e in runs)
    running = [0] * int((t1 - t0).total_seconds())
    for _, s, e in runs:
        for k in range(int((s - t0).total_seconds()), int((e - t0).total_seconds())):
            running[k] += 1
    print(f"span {len(running)} s; seconds with n jobs running: "
          f"{dict(sorted(collections.Counter(min(n, 3) for n in running).items()))}")
    total, count = collections.Counter(), collections.Counter()
    for name, s, e in runs:
        total[name] += (e - s).total_seconds()
        count[name] += 1
    print(f"{'rule':<32}{'jobs':>5}{'job s':>9}{'s/job':>8}")
    for name, secs in total.most_common():
        print(f"{name:<32}{count[name]:>5}{secs:>9.0f}{secs / count[name]:>8.1f}")
    print(f"{'all':<32}{sum(count.values()):>5}{sum(total.values()):>9.0f}")


if __name__ == "__main__":
    main()
