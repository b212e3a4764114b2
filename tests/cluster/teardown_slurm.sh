#!/usr/bin/env bash
# teardown_slurm.sh -- stop only the daemons that tests/cluster/setup_slurm.sh started,
# using its PID files (never by process name). Packages, configs and state are kept,
# so a later setup_local_slurm.sh run only restarts the daemons.
set -uo pipefail
STATE_DIR=${STATE_DIR:-${TMPDIR:-/tmp}/phrasenmt-slurm/run}
for name in slurmd slurmctld slurmdbd mariadbd munged; do   # reverse start order
  pf=$STATE_DIR/$name.pid
  [[ -s $pf ]] || continue
  pid=$(<"$pf")
  a0=$(tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | head -1)
  if kill -0 "$pid" 2>/dev/null && [[ ${a0##*/} == "$name" ]]; then
    kill -TERM "$pid"
    for ((i = 0; i < 120; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; echo "killed -9 $name ($pid)"; else echo "stopped $name ($pid)"; fi
  else
    echo "$name ($pid) not running (stale pid file)"
  fi
  rm -f "$pf"
done
# drop daemon-written pid files whose process is gone (a stale /run/slurmctld.pid makes
# `apt-get purge slurmctld` run scancel in its prerm and fail)
for f in /run/slurmctld.pid /run/slurmd.pid /run/slurmdbd.pid; do
  [[ -s $f ]] && ! kill -0 "$(<"$f")" 2>/dev/null && rm -f "$f"
done
exit 0
