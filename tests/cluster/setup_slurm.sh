#!/usr/bin/env bash
# setup_slurm.sh -- a single-node SLURM cluster for tests/cluster/test_slurm.py, on Debian 12
# (where it is tested; Ubuntu has packages of the same names). It starts the daemons
# itself: no systemd needed.
# It changes the system (apt-get installs, /etc/slurm, /etc/munge, a MariaDB database):
# it runs only with PHRASENMT_CLUSTER_TESTS=1, which `make test-cluster` sets.
# Installs munge + slurmctld/slurmd (+ slurmdbd/MariaDB so that `sacct` works), writes the
# configs (one gres GPU backed by a device file; job comments stored in accounting so that
# `sacct -o Comment` names each job's Snakemake rule), starts the daemons in the background
# (PIDs in $STATE_DIR/*.pid, only for daemons this script started) and waits until the node
# is idle. Re-running it is safe: installed packages, running daemons and unchanged configs
# are left alone (changed configs -> slurmctld/slurmd of this script are restarted).
# tests/cluster/teardown_slurm.sh stops exactly the daemons listed in $STATE_DIR.
# Env knobs:
#   WITH_DBD=1|0   1 (default): slurmdbd+MariaDB, sacct works (plugin default status command)
#                  0: no accounting; then run snakemake with --slurm-status-command squeue
#   FAKE_GPUS=N    number of fake gres/gpu on the node (default 1, 0 disables)
#   CPUS=N         advertise N CPUs (> real ones allowed, uses SlurmdParameters=config_overrides)
#   STATE_DIR=...  where PID files/daemon stdout go (default $TMPDIR/phrasenmt-slurm/run)
set -euo pipefail
if [[ ${PHRASENMT_CLUSTER_TESTS:-} != 1 ]]; then
  echo "setup_slurm.sh: installs SLURM and MariaDB and writes /etc/slurm: run it through" \
    "make test-cluster (or with PHRASENMT_CLUSTER_TESTS=1)" >&2
  exit 1
fi

STATE_DIR=${STATE_DIR:-${TMPDIR:-/tmp}/phrasenmt-slurm/run}
WITH_DBD=${WITH_DBD:-1}
FAKE_GPUS=${FAKE_GPUS:-1}
CPUS=${CPUS:-}
CLUSTER=${CLUSTER:-localcluster}
PARTITION=${PARTITION:-main}
DBPASS=${DBPASS:-slurmdbpass}
H=$(hostname -s)
T0=$(date +%s)

log() { echo "[setup_slurm +$(( $(date +%s) - T0 ))s] $*"; }
die() { echo "[setup_slurm] ERROR: $*" >&2; exit 1; }
is_proc() {  # is_proc PID NAME: PID is alive and its argv[0] basename is NAME
  local a0
  kill -0 "$1" 2>/dev/null || return 1
  a0=$(tr '\0' '\n' <"/proc/$1/cmdline" 2>/dev/null | head -1)
  [[ ${a0##*/} == "$2" ]]
}
# alive NAME: $STATE_DIR/NAME.pid holds a live NAME process (i.e. one this script started)
alive() { [[ -s $STATE_DIR/$1.pid ]] && is_proc "$(<"$STATE_DIR/$1.pid")" "$1"; }
# running_elsewhere NAME PIDFILE: the daemon's own pid file points at a live NAME process
running_elsewhere() { [[ -s $2 ]] && is_proc "$(<"$2")" "$1"; }
waitfor() {  # waitfor SECONDS DESCRIPTION CMD...
  local t=$1 what=$2 i; shift 2
  for ((i = 0; i < t * 4; i++)); do "$@" >/dev/null 2>&1 && return 0; sleep 0.25; done
  die "timeout (${t}s) waiting for $what"
}
# start NAME LOGFILE CMD... : start a foreground daemon detached from this shell, record PID
start_bg() {
  local name=$1 out=$2; shift 2
  setsid nohup "$@" >"$out" 2>&1 </dev/null &
  echo $! >"$STATE_DIR/$name.pid"
  log "started $name (pid $!)"
}
stop_own() {  # stop a daemon this script started (by PID file only)
  local pf=$STATE_DIR/$1.pid pid i
  if alive "$1"; then
    pid=$(<"$pf"); kill -TERM "$pid"
    for ((i = 0; i < 120; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
    log "stopped $1 (pid $pid)"
  fi
  rm -f "$pf"
}

[[ $(id -u) == 0 ]] || die "must run as root"
mkdir -p "$STATE_DIR"

# ---------------------------------------------------------------- 1. packages
pkgs=(slurmctld slurmd slurm-client munge)
[[ $WITH_DBD == 1 ]] && pkgs+=(slurmdbd mariadb-server)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  log "installing: ${missing[*]}"
  made_policy=0
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then  # keep postinst scripts from starting daemons
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; made_policy=1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt_install() { apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends "${missing[@]}"; }
  ok=0
  for attempt in 1 2 3 4 5; do
    if apt_install >"$STATE_DIR/apt.log" 2>&1; then ok=1; break; fi
    if [[ $attempt == 1 ]]; then
      log "apt-get install failed, running apt-get update"
      apt-get -o DPkg::Lock::Timeout=300 update -q >>"$STATE_DIR/apt.log" 2>&1 || true
    else
      log "apt-get install failed (lock?), retrying in 30s"; sleep 30
    fi
  done
  ((made_policy)) && rm -f /usr/sbin/policy-rc.d
  ((ok)) || { tail -20 "$STATE_DIR/apt.log"; die "apt-get install failed"; }
  log "packages installed"
else
  log "packages already installed"
fi

# ---------------------------------------------------------------- 2. munge
if [[ ! -s /etc/munge/munge.key ]]; then
  mungekey --create --keyfile=/etc/munge/munge.key
  chown munge:munge /etc/munge/munge.key; chmod 0400 /etc/munge/munge.key
fi
install -d -o munge -g munge -m 0755 /run/munge
if alive munged || running_elsewhere munged /run/munge/munged.pid; then
  log "munged already running"
else
  runuser -u munge -- /usr/sbin/munged          # daemonizes itself, writes /run/munge/munged.pid
  waitfor 10 "munged pid file" test -s /run/munge/munged.pid
  cp /run/munge/munged.pid "$STATE_DIR/munged.pid"
  log "started munged (pid $(<"$STATE_DIR/munged.pid"))"
fi
waitfor 10 munge sh -c 'munge -n | unmunge'

# ---------------------------------------------------------------- 3. config
read -r NODE_CPUS BOARDS SPB CPS TPC REALMEM < <(slurmd -C | head -1 | tr ' ' '\n' | awk -F= '
  /^CPUs=/{c=$2} /^Boards=/{b=$2} /^SocketsPerBoard=/{s=$2} /^CoresPerSocket=/{k=$2}
  /^ThreadsPerCore=/{t=$2} /^RealMemory=/{m=$2} END{print c, b, s, k, t, m}')
MEM=$(( REALMEM > 4096 ? REALMEM - 1024 : REALMEM * 9 / 10 ))   # leave a little headroom
if [[ -n $CPUS && $CPUS != "$NODE_CPUS" ]]; then
  NODE_HW="CPUs=$CPUS"; OVERRIDE="SlurmdParameters=config_overrides"
  TASKPLUGIN=task/none   # task/affinity cannot bind to CPUs that do not exist
else
  TASKPLUGIN=task/affinity
  NODE_HW="CPUs=$NODE_CPUS Boards=$BOARDS SocketsPerBoard=$SPB CoresPerSocket=$CPS ThreadsPerCore=$TPC"
  OVERRIDE="#SlurmdParameters="
fi
GRES_NODE=""; GRES_CONF="# no gres"
if ((FAKE_GPUS > 0)); then
  for ((i = 0; i < FAKE_GPUS; i++)); do
    [[ -e /dev/fakegpu$i ]] || mknod -m 0666 /dev/fakegpu$i c 1 3   # a /dev/null clone
  done
  GRES_NODE="Gres=gpu:$FAKE_GPUS"
  GRES_CONF="NodeName=$H Name=gpu File=/dev/fakegpu[0-$((FAKE_GPUS - 1))]"
fi
if [[ $WITH_DBD == 1 ]]; then
  ACCT="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStorageTRES=gres/gpu
AccountingStoreFlags=job_comment"
else
  ACCT="AccountingStorageType=accounting_storage/none"
fi

CHANGED=0
put() {  # put FILE MODE OWNER  (content on stdin) -- only rewrite when different
  local tmp; tmp=$(mktemp)
  cat >"$tmp"
  if ! cmp -s "$tmp" "$1"; then
    install -m "$2" -o "$3" -g "$3" "$tmp" "$1"; CHANGED=1; log "wrote $1"
  fi
  rm -f "$tmp"
}
put /etc/slurm/slurm.conf 0644 root <<EOF
# generated by phrasenmt tests/cluster/setup_slurm.sh
ClusterName=$CLUSTER
SlurmctldHost=$H
AuthType=auth/munge
CryptoType=crypto/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=$TASKPLUGIN
ReturnToService=2
SlurmUser=slurm
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmdSpoolDir=/var/lib/slurm/slurmd
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
MailProg=/bin/true
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1000
MinJobAge=300
KillWait=5
GresTypes=gpu
$OVERRIDE
$ACCT
JobAcctGatherType=jobacct_gather/linux
JobCompType=jobcomp/filetxt
JobCompLoc=/var/log/slurm/jobcomp.log
NodeName=$H NodeAddr=127.0.0.1 $NODE_HW RealMemory=$MEM $GRES_NODE State=UNKNOWN
PartitionName=$PARTITION Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
put /etc/slurm/gres.conf 0644 root <<<"$GRES_CONF"
if [[ $WITH_DBD == 1 ]]; then
  put /etc/slurm/slurmdbd.conf 0600 slurm <<EOF
AuthType=auth/munge
DbdHost=localhost
DbdPort=6819
SlurmUser=slurm
LogFile=/var/log/slurm/slurmdbd.log
PidFile=/run/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=slurm
StoragePass=$DBPASS
StorageLoc=slurm_acct_db
EOF
fi
install -d -o slurm -g slurm /var/lib/slurm/slurmctld /var/log/slurm
install -d /var/lib/slurm/slurmd

if ((CHANGED)); then  # restart what we own so the new config is used
  stop_own slurmd; stop_own slurmctld
fi

# ---------------------------------------------------------------- 4. MariaDB + slurmdbd
if [[ $WITH_DBD == 1 ]]; then
  install -d -o mysql -g mysql -m 0755 /run/mysqld
  if alive mariadbd || running_elsewhere mariadbd /run/mysqld/mysqld.pid; then
    log "mariadbd already running"
  else
    start_bg mariadbd "$STATE_DIR/mariadbd.out" /usr/sbin/mariadbd --user=mysql --skip-networking \
      --innodb-buffer-pool-size=256M --innodb-lock-wait-timeout=900
  fi
  waitfor 60 "mariadb" mariadb -e 'select 1'
  mariadb -e "CREATE DATABASE IF NOT EXISTS slurm_acct_db;
    CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY '$DBPASS';
    GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost'; FLUSH PRIVILEGES;"
  if alive slurmdbd || running_elsewhere slurmdbd /run/slurmdbd.pid; then
    log "slurmdbd already running"
  else
    start_bg slurmdbd "$STATE_DIR/slurmdbd.out" /usr/sbin/slurmdbd -D
  fi
  waitfor 60 "slurmdbd on port 6819" bash -c 'exec 3<>/dev/tcp/127.0.0.1/6819'
fi

# ---------------------------------------------------------------- 5. slurmctld + slurmd
if alive slurmctld || running_elsewhere slurmctld /run/slurmctld.pid; then
  log "slurmctld already running"
else
  start_bg slurmctld "$STATE_DIR/slurmctld.out" /usr/sbin/slurmctld -D
fi
waitfor 60 "slurmctld" scontrol ping
if alive slurmd || running_elsewhere slurmd /run/slurmd.pid; then
  log "slurmd already running"
else
  start_bg slurmd "$STATE_DIR/slurmd.out" /usr/sbin/slurmd -D
fi

node_state() { sinfo -h -n "$H" -o %T 2>/dev/null | head -1; }
for ((i = 0; i < 240; i++)); do
  st=$(node_state)
  case $st in
    idle|mixed|allocated|completing) break ;;
    *drain*|*down*|*inval*|*fail*)
      if ((i % 20 == 0)); then log "node state '$st' -> resume"; scontrol update nodename="$H" state=resume || true; fi ;;
  esac
  sleep 0.25
done
[[ $st =~ ^(idle|mixed|allocated|completing)$ ]] || { tail -5 /var/log/slurm/slurmctld.log; die "node not idle (state: $st)"; }

if [[ $WITH_DBD == 1 ]]; then
  waitfor 30 "cluster registration in slurmdbd" bash -c "sacctmgr -n -P list cluster format=cluster | grep -qx $CLUSTER"
fi
if [[ ${SMOKE:-1} == 1 ]]; then  # one tiny job end to end (and, with slurmdbd, until sacct sees it)
  jid=$(sbatch --parsable -J setup_smoke -t 1 -o /dev/null --wrap true)
  if [[ $WITH_DBD == 1 ]]; then
    waitfor 60 "smoke job $jid COMPLETED in sacct" bash -c "sacct -n -X -P -j $jid -o State | grep -q COMPLETED"
  else
    waitfor 60 "smoke job $jid COMPLETED in squeue" bash -c "squeue -h -t all -j $jid -o %T | grep -q COMPLETED"
  fi
  log "smoke job $jid completed"
fi
log "ready: $(sinfo -h -o '%P %a %D %T %N %G')"
echo "snakemake: --executor slurm --default-resources slurm_partition=$PARTITION slurm_account=root" \
  "$([[ $WITH_DBD == 1 ]] || echo '--slurm-status-command squeue')" \
  "--slurm-init-seconds-before-status-checks 2"
