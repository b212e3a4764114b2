#!/usr/bin/env bash
# One call on a GPU held for minutes: the checks that need one, in priority order, each
# under its own time limit (on CUDA 440 s together by default, which leaves a
# 15-minute device budget room for the machine's start and one rerun of a part),
# everything written to OUT (at most 8 files).
#
#   bash experiments/gpu_session.sh OUT [DEVICE]
#
# DEVICE: cuda (the default) or cpu (a rehearsal at tiny sizes, here).
#   imports: what the parts import, first (a missing wheel costs seconds, not a part);
#   1. check: the GPU check (tests/gpu/check.py) of one model of each family on
#      CUDA (Transformer, NPMT, PCoNMT with fertility, phrase pooling, HAN),
#      and DDP through the launcher with 1 and 2 ranks (2 ranks on one GPU
#      share it over gloo) where time is left;
#   2. ab_base: the data-path A/B (experiments/gpu_ab.py): Transformer base,
#      25k-token batches, every variant, fairseq beside it where its wheels
#      were carried, both in fresh processes within what is left of the limit;
#   3. context: step 2 of the document models against the step-1 Transformer
#      (benchmarks/context.py): K = 3, frozen context states, FLOPs per token;
#   not in the default STEPS (run on 2026-12-04): ab_buckets and
#   context_buckets (parts 2 and 3 with train.length_buckets) and ab_big (the
#   A/B at the big preset).
# The wheels in WHEELS (default .whl/, from make gpu-wheels; GPU_SCIPY= for a
# machine that has scipy) are installed into /tmp/site first; WHEELS=none
# skips that (a Python that has them already).
# STEPS (default: imports check ab_base context) names the parts to run.
set -u
OUT=${1:?usage: bash experiments/gpu_session.sh OUT [cuda|cpu]}
DEVICE=${2:-cuda}
PY=${PY:-python3}
mkdir -p "$OUT"
LOG=$OUT/session.log
export PYTHONUNBUFFERED=1
WHEELS=${WHEELS:-.whl}
if [ -d "$WHEELS" ]; then
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
    --target /tmp/site "$WHEELS"/*.whl || exit 1
  export PYTHONPATH=/tmp/site:${PYTHONPATH:-}
fi
export PYTHONPATH=$PWD/src:$PWD${PYTHONPATH:+:$PYTHONPATH}

STEPS=" ${STEPS:-imports check ab_base context} "
BUCKETS="8 16 24 32 40 48 56 64 80 96 112 128 160 192 224 256"
step() {  # step NAME SECONDS COMMAND...: one part, its status and time in the log
  local name=$1 limit=$2 start=$SECONDS
  shift 2
  [[ $STEPS == *" $name "* ]] || return 0
  echo "== $name: $* (limit ${limit}s)" | tee -a "$LOG"
  timeout -s TERM -k 20 "$limit" "$@" >>"$LOG" 2>&1
  local rc=$?
  echo "== $name: exit $rc after $((SECONDS - start))s" | tee -a "$LOG"
  return $rc
}

{ date -u; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1
  $PY -c "import torch; print('torch', torch.__version__, torch.version.cuda)"
  git rev-parse --short HEAD 2>/dev/null; } >>"$LOG" 2>&1

step imports 30 $PY -c "import phrasenmt.train, tests.gpu.check, experiments.gpu_ab, \
benchmarks.speed, pydantic, jsonschema, stopwordsiso, tensorboardX, scipy.special" \
  || { echo "== a part's import failed: nothing else runs" | tee -a "$LOG"; exit 1; }
if [ "$DEVICE" = cuda ]; then
  # the check's own budget ends 20 s before its limit: it writes its summary
  step check 150 $PY -m tests.gpu.check --out "$OUT/check" --work /tmp/gpu_check \
    --archs transformer npmt pconmt_fert2 pr_mean han_dec --timing off \
    --fairseq off --budget-minutes 2.1
  # fairseq and ours in fresh processes start when the variants are done and
  # get 110 s; the variants' time was not measured on its own: if the limit
  # stops fairseq, the JSON still holds every variant
  step ab_base 200 $PY -m experiments.gpu_ab --device cuda --out "$OUT/ab_base.json" \
    --work /tmp/ab_base --rounds 12 --fairseq-warmup 150 --fairseq-seconds 110
  step ab_buckets 100 $PY -m experiments.gpu_ab --device cuda \
    --out "$OUT/ab_buckets.json" --work /tmp/ab_buckets --rounds 12 --fairseq off \
    --length-buckets $BUCKETS
  step context 60 $PY -m benchmarks.speed --suite context --device cuda --preset base \
    --k 3 --sentences 4000 --max-tokens 8192 --warmup 3 --updates 20 --flops 2 \
    --out "$OUT/context.json"
  step context_buckets 50 $PY -m benchmarks.speed --suite context --device cuda \
    --preset base --k 3 --sentences 4000 --max-tokens 8192 --warmup 3 --updates 20 \
    --length-buckets $BUCKETS --out "$OUT/context_buckets.json"
  step ab_big 70 $PY -m experiments.gpu_ab --device cuda --preset big \
    --variants prefetch --fairseq off --warmup 4 --rounds 6 \
    --out "$OUT/ab_big.json" --work /tmp/ab_big
else
  step ab_base 120 $PY -m experiments.gpu_ab --device cpu --out "$OUT/ab_base.json" \
    --work /tmp/ab_base
  step ab_buckets 120 $PY -m experiments.gpu_ab --device cpu \
    --out "$OUT/ab_buckets.json" --work /tmp/ab_buckets --length-buckets 8 16 24 32
  step check 300 $PY -m tests.gpu.check --device cpu --out "$OUT/check" \
    --work /tmp/gpu_check --archs transformer han_dec --timing off --fairseq off \
    --budget-minutes 4
  step context 200 $PY -m benchmarks.speed --suite context --device cpu --preset tiny \
    --k 3 --sentences 200 --max-tokens 1024 --warmup 1 --updates 3 --flops 1 \
    --out "$OUT/context.json"
  step context_buckets 200 $PY -m benchmarks.speed --suite context --device cpu \
    --preset tiny --k 3 --sentences 200 --max-tokens 1024 --warmup 1 --updates 3 \
    --length-buckets 8 16 24 32 40 --out "$OUT/context_buckets.json"
fi
for log in "$OUT"/check/logs/ddp*/*.log; do  # below the depth that comes back
  [ -f "$log" ] && { echo "== tail of $log"; tail -n 25 "$log"; } >>"$LOG"
done
echo "== done $(date -u)" | tee -a "$LOG"
