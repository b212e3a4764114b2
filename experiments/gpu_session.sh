#!/usr/bin/env bash
# One call on a GPU held for minutes: the checks that need one, in priority order, each
# under its own time limit (on CUDA 570 s together, within a 10-minute call),
# everything written to OUT (at most 8 files).
#
#   bash experiments/gpu_session.sh OUT [DEVICE]
#
# DEVICE: cuda (the default) or cpu (a rehearsal at tiny sizes, here).
#   1. the GPU check (tests/gpu/check.py) of the Transformer, and DDP through
#      the launcher with 1 and 2 ranks (2 ranks on one GPU share it over gloo);
#   2. the data-path A/B (experiments/gpu_ab.py): Transformer base, 25k-token
#      batches, every variant, fairseq beside it where its wheels were carried;
#   3. the A/B again with train.length_buckets (few batch shapes: what the
#      plans of new shapes cost, against part 2 at the same warm-up);
#   4. step 2 of the document models against the step-1 Transformer
#      (benchmarks/context.py): K = 3, frozen context states, FLOPs per token;
#   5. the same with train.length_buckets (the context padded to them too);
#   6. (ab_big, not in the default STEPS: run on 2026-12-04) the A/B at the big
#      preset (baseline and the trainer's own path).
# The wheels in WHEELS (default .whl/, from make gpu-wheels) are installed into
# /tmp/site first; WHEELS=none skips that (a Python that has them already).
# STEPS (default: check ab_base ab_buckets context context_buckets) names the
# parts to run.
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

STEPS=" ${STEPS:-check ab_base ab_buckets context context_buckets} "
BUCKETS="8 16 24 32 40 48 56 64 80 96 112 128 160 192 224 256"
step() {  # step NAME SECONDS COMMAND...: one part, its status and time in the log
  local name=$1 limit=$2 start=$SECONDS
  shift 2
  [[ $STEPS == *" $name "* ]] || return 0
  echo "== $name: $* (limit ${limit}s)" | tee -a "$LOG"
  timeout -s TERM -k 20 "$limit" "$@" >>"$LOG" 2>&1
  echo "== $name: exit $? after $((SECONDS - start))s" | tee -a "$LOG"
}

{ date -u; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1
  $PY -c "import torch; print('torch', torch.__version__, torch.version.cuda)"
  git rev-parse --short HEAD 2>/dev/null; } >>"$LOG" 2>&1

if [ "$DEVICE" = cuda ]; then
  step check 140 $PY -m tests.gpu.check --out "$OUT/check" --work /tmp/gpu_check \
    --archs transformer --timing off --fairseq off --budget-minutes 2.3
  step ab_base 220 $PY -m experiments.gpu_ab --device cuda --out "$OUT/ab_base.json" \
    --work /tmp/ab_base --rounds 12 --fairseq-warmup 150
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
