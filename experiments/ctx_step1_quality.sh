#!/usr/bin/env bash
# How well must step 1 be trained for ctx_transformer to learn its context?
#
#   bash experiments/ctx_step1_quality.sh [OUT]      (default OUT: /tmp/ctx_step1_quality)
#   STEP1_UPDATES=3000 STARTS="2000 3000" bash experiments/ctx_step1_quality.sh OUT
#
# On the default run's data (results/synthetic_en_de, after `make run`): trains
# the tiny Transformer as config.yaml does but for STEP1_UPDATES updates
# (default 1,500; checkpoints every 500; the default run's step 1 is the one at
# 500), then gives ctx_transformer the default run's HAN step 2 (750 updates,
# lr 3e-3, warm-up 100) from the checkpoints at each of STARTS (default
# "1000 1500"), and prints the contrastive pronoun accuracy of each step 2
# after 500 and 750 updates on the 276 mirrored items (50 % = the context is
# not read). The converged step 1 is `make converged-context-usage`'s. About
# 15 CPU-minutes with the defaults.
set -euo pipefail
OUT=${1:-/tmp/ctx_step1_quality}
D=results/synthetic_en_de
C=$D/discourse/contrastive/synthetic
[ -f "$C/items.json" ] || { echo "error: $C/items.json: run 'make run' first" >&2; exit 1; }
STEP1_UPDATES=${STEP1_UPDATES:-1500}
STARTS=${STARTS:-1000 1500}
for start in $STARTS; do
  if (( start % 500 || start > STEP1_UPDATES || start < 500 )); then
    echo "error: STARTS: $start is not a checkpoint (a multiple of 500 up to STEP1_UPDATES=$STEP1_UPDATES)" >&2
    exit 1
  fi
done
mkdir -p "$OUT"
data=(--train-src $D/bpe/train.bpe.en --train-tgt $D/bpe/train.bpe.de
      --dev-src $D/bpe/dev.bpe.en --dev-tgt $D/bpe/dev.bpe.de)
python -m phrasenmt.train --spec '{"arch": "transformer", "model": {}, "preset": "tiny",
  "train": {"max_steps": '"$STEP1_UPDATES"', "save_interval": 500, "valid_interval": 500, "keep_last": 100,
  "average_last": 1}}' "${data[@]}" --outdir "$OUT/step1" --seed 1 --threads 1 --no-progress \
  2> "$OUT/step1.log"
declare -A starts=()
for start in $STARTS; do starts[step1_$start]="$OUT/step1/checkpoints/checkpoint_$start.pt"; done
scores=()
for name in "${!starts[@]}"; do
  python -m phrasenmt.train --spec '{"arch": "ctx_transformer", "model": {}, "preset": "tiny",
    "train": {"lr": 3e-3, "max_steps": 750, "save_interval": 250, "valid_interval": 250,
    "warmup_steps": 100, "keep_last": 3, "average_last": 1}}' "${data[@]}" \
    --docs $D/data/train.docs,$D/data/dev.docs --init-from "${starts[$name]}" \
    --outdir "$OUT/ctx_$name" --seed 1 --threads 1 --no-progress 2> "$OUT/ctx_$name.log"
  for step in 500 750; do
    python -m phrasenmt.translate score \
      --checkpoint "$OUT/ctx_$name/checkpoints/checkpoint_$step.pt" \
      --src $C/pairs.bpe.src --tgt $C/pairs.bpe.tgt --context $C/pairs.ctx.bpe.jsonl \
      --output "$OUT/$name.$step.txt" --batch-size 64 --threads 1 2> "$OUT/score.log"
    scores+=("${name}_after_$step=$OUT/$name.$step.txt")
  done
done
python -m phrasenmt.evaluate.contrastive evaluate --items $C/items.json \
  --scores "${scores[@]}" --out "$OUT/contrastive.tsv" 2> "$OUT/evaluate.log"
echo "step-1 dev loss (metrics.tsv):"
cut -f1,6 "$OUT/step1/metrics.tsv" | awk -F'\t' 'NR > 1 && $2 != ""'
echo "contrastive pronoun accuracy of ctx_transformer, by step 1 and step-2 updates:"
awk -F'\t' '$3 == "pronoun_gender" && $4 == "all"' "$OUT/contrastive.tsv"
