#!/usr/bin/env bash
# Step-2 sweep of the document-level models: trains step 2 from one step-1
# model under several settings (HAN with and without the reference code's layer
# norms, learning rates, random-context controls), keeps a checkpoint every
# SAVE updates, and prints the contrastive pronoun accuracy of each checkpoint
# on the dev items and on the test items, and the checkpoint chosen on the dev
# items alone (experiments/context_sweep_summary.py). All jobs run at once:
# meant for a GPU machine (DEVICE=cuda), where the ten jobs take about two
# minutes.
#
#   bash experiments/context_sweep.sh prepare results/synthetic_en_de DATA
#       copies what the sweep reads from a finished default run into DATA:
#       BPE'd train/dev text and document ids, the step-1 model, the synthetic
#       contrastive set (items.json, pairs.bpe.*, pairs.ctx.bpe.jsonl)
#   DEVICE=cuda STEPS=1250 SAVE=250 bash experiments/context_sweep.sh run DATA OUT
#   JOBS=short STEPS=600 SAVE=150 ... run DATA OUT   the second, shorter sweep
#   JOBS=k DEVICE=cpu STEPS=750 SAVE=250 ... run DATA OUT   han_dec with K = 2
#       and K = 3 previous sentences and their controls, as the default run
#       trains them (four jobs at once)
#   JOBS=k1 DEVICE=cpu STEPS=750 SAVE=50 VALID=250 ... run DATA OUT   han_dec as
#       config.yaml trains it (K = 1, Xavier-initialised HAN, validated every
#       250 updates as there), a checkpoint every 50 updates: how many step-2
#       updates the default run needs
#   JOBS=ctx_k1 DEVICE=cpu STEPS=1250 SAVE=125 ... run DATA OUT   ctx_transformer
#       with K = 1 and no context dropout (as config.yaml trains it) at lr 2e-3,
#       3e-3, 4e-3 and 6e-3, from Xavier, with half the tokens per update,
#       without label smoothing, and with the architecture's K = 2 and context
#       dropout 0.1 (eight jobs;
#       on the 2-core CPU run them two at a time with ONLY=name)
#   JOBS=dist DEVICE=cpu STEPS=1250 SAVE=125 ONLY=name ... run DATA OUT
#       antecedents 1 to 3 sentences back (synthetic.antecedent_distance):
#       ctx_transformer (ctx_k3), han_dec (handec_k3) and han_enc (hanenc_k3)
#       with K = 3, as config.yaml trains them, one job at a time with ONLY
#   JOBS=converged DEVICE=cpu STEPS=2500 SAVE=500 ... run DATA OUT   han_dec and
#       ctx_transformer with the converged family's step 2 (K = 3, dropout 0.1,
#       context dropout 0.1) for longer than its 1,000 updates, from a
#       `prepare`d results/converged_en_de (two jobs at once)
#   JOBS=converged_han_enc ... run DATA OUT   the same for han_enc, and
#   JOBS=converged_han_enc_dec STEP1=OUT/conv_hanenc_k3/run/checkpoints/checkpoint_N.pt
#       ... run DATA OUT2   for han_enc_dec from han_enc's checkpoint chosen on
#       the dev items, as the family starts han_enc_dec from han_enc
#   JOBS=start STEP1=CKPT DEVICE=cpu STEPS=750 SAVE=125 ... run DATA OUT
#       ctx_transformer (K = 1, no context dropout) and han_dec (K = 1, from
#       the identity and from Xavier) from another step 1, e.g. a checkpoint of
#       experiments/ctx_step1_quality.sh's longer Transformer
#   bash experiments/context_sweep.sh rescore DATA OUT
#       scores every checkpoint of every job in OUT again on DATA's contrastive
#       set, and prints the summary: for a set `prepare`d from another run of
#       the same corpus, e.g. one whose config gives the items more context
#       sentences
# The contrastive set gives each item as many context sentences as the largest
# K of the run it was prepared from (items.json's "context"); a job whose K is
# larger is refused, since its items would lack their farthest sentences.
# SEED (default 1) is the step 2's training seed (its data order); STEP1
# (default DATA/step1.pt) the step-1 checkpoint; ONLY runs the one job so named.
# A step 1 of another corpus (e.g. a pronoun rate of 1.0: a config with
# datasets.synthetic_en_de.synthetic.rates: {pronoun: 1.0}) is prepared the same
# way from that run's results folder.
set -u
case "${1:-}" in
prepare)
  R=$2 D=$3; mkdir -p "$D"
  cp "$R"/bpe/{train,dev}.bpe.{en,de} "$R"/data/{train,dev}.docs "$D"/
  cp "$R"/models/transformer/seed1/averaged.pt "$D"/step1.pt
  C=$R/discourse/contrastive/synthetic
  cp "$C"/items.json "$C"/pairs.bpe.src "$C"/pairs.bpe.tgt "$C"/pairs.ctx.bpe.jsonl "$D"/ || {
    echo "error: $C lacks the contrastive set's BPE'd pairs: run the run's contrastive_bpe job first" >&2
    exit 1; }
  exit 0 ;;
run|rescore) D=$2 O=$3 ;;
*) echo "usage: $0 prepare RESULTS/DATASET DATA | run DATA OUT | rescore DATA OUT" >&2; exit 2 ;;
esac
mkdir -p "$O"
export OMP_NUM_THREADS=1 PYTHONUNBUFFERED=1
DEV=${DEVICE:-cuda} S=${STEPS:-1250} SAVE=${SAVE:-250}
VALID=${VALID:-$SAVE}  # validation interval (it may draw on the RNG: keep it as the run compared)
SEED=${SEED:-1} STEP1=${STEP1:-$D/step1.pt}
[ -f "$STEP1" ] || { echo "error: STEP1: $STEP1 does not exist" >&2; exit 1; }
score_all() {  # out: score each checkpoint of the job in out on DATA's contrastive set
  local out=$1 name; name=$(basename "$1")
  for ck in "$out"/run/checkpoints/checkpoint_*.pt; do
    local s; s=$(basename "$ck" .pt); s=${s#checkpoint_}
    python3 -m phrasenmt.translate score --checkpoint "$ck" --src "$D"/pairs.bpe.src \
      --tgt "$D"/pairs.bpe.tgt --context "$D"/pairs.ctx.bpe.jsonl \
      --output "$out"/scores_"$s".txt --device "$DEV" --precision fp32 \
      > "$out"/score_"$s".log 2>&1 || echo "$name: scoring $s failed"
  done
}
context_width() {  # arch model-json: the job's K, and the set's context sentences
  python3 - "$1" "$2" "$D"/items.json <<'PY'
import json, sys
from phrasenmt.sweeps import sweep_base_value  # the spec's K, else the preset's
arch, model, items = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
job = {"models": {"job": {"arch": arch, "preset": "tiny", "model": model}}}
print(sweep_base_value(job, "job", "model.context_size"), json.load(open(items))["context"])
PY
}
if [ "$1" = rescore ]; then
  for out in "$O"/*/; do [ -d "$out"/run/checkpoints ] && score_all "${out%/}" & done
  wait
  python3 "$(dirname "$0")"/context_sweep_summary.py "$D" "$O"
  exit 0
fi
job() {  # name arch model-json lr warmup [more train settings, JSON members]
  local name=$1 arch=$2 model=$3 lr=$4 wu=$5 more="${6:+, $6}" out=$O/$1
  [ -z "${ONLY:-}" ] || [ "$ONLY" = "$name" ] || return 0
  local k width; read -r k width < <(context_width "$arch" "$model")
  if [ "$k" -gt "$width" ]; then
    echo "$name: K = $k, but $D/items.json gives each item $width context sentences: prepare DATA from a run whose config has a document model with K >= $k" >&2
    return 0
  fi
  mkdir -p "$out"
  local t0; t0=$(date +%s)
  python3 -m phrasenmt.train --spec "{\"arch\": \"$arch\", \"model\": $model, \"preset\": \"tiny\", \"train\": {\"max_steps\": $S, \"warmup_steps\": $wu, \"lr\": $lr, \"valid_interval\": $VALID, \"save_interval\": $SAVE, \"keep_last\": 20, \"average_last\": 1$more}}" \
    --train-src "$D"/train.bpe.en --train-tgt "$D"/train.bpe.de --dev-src "$D"/dev.bpe.en \
    --dev-tgt "$D"/dev.bpe.de --docs "$D"/train.docs,"$D"/dev.docs --init-from "$STEP1" \
    --outdir "$out"/run --seed "$SEED" --device "$DEV" --precision fp32 --no-progress \
    > "$out"/train.log 2>&1 || { echo "$name: training failed"; tail -3 "$out"/train.log; return; }
  echo "$name train_s=$(( $(date +%s) - t0 ))" > "$out"/time.txt
  score_all "$out"
}
BASE_CTX=()  # a step 1 that reads context (han_enc for han_enc_dec) scores with it
[ "${JOBS:-}" != converged_han_enc_dec ] || BASE_CTX=(--context "$D"/pairs.ctx.bpe.jsonl)
python3 -m phrasenmt.translate score --checkpoint "$STEP1" --src "$D"/pairs.bpe.src \
  --tgt "$D"/pairs.bpe.tgt "${BASE_CTX[@]}" --output "$O"/base_scores.txt --device "$DEV" \
  --precision fp32 > "$O"/base.log 2>&1 || echo "step 1: scoring failed (see $O/base.log)" &
K1='"context_size": 1, "context_dropout": 0.0'  # ctx_transformer as config.yaml trains it
case "${JOBS:-norms}" in
converged)  # the converged family's step 2 (configs/converged_families.yaml): K = 3, dropout 0.1, context dropout 0.1
job conv_handec_k3 han_dec '{"context_size": 3, "context_init": "identity", "dropout": 0.1}' 3.0e-3 100 '"empty_context_rate": 0.1' &
job conv_ctx_k3 ctx_transformer '{"context_size": 3, "context_dropout": 0.0, "dropout": 0.1}' 3.0e-3 100 '"empty_context_rate": 0.1' &
;;
converged_han_enc)  # the converged HAN encoder's step 2 (the same settings)
job conv_hanenc_k3 han_enc '{"context_size": 3, "dropout": 0.1}' 3.0e-3 100 '"empty_context_rate": 0.1' &
;;
converged_han_enc_dec)  # the converged HAN encoder-decoder's, from STEP1 = a conv_hanenc_k3 checkpoint
job conv_hanencdec_k3 han_enc_dec '{"context_size": 3, "dropout": 0.1}' 3.0e-3 100 '"empty_context_rate": 0.1' &
;;
dist)  # antecedents up to 3 sentences back: K = 3, as config.yaml trains them
job ctx_k3 ctx_transformer '{"context_size": 3, "context_dropout": 0.0}' 3.0e-3 100 &
job handec_k3 han_dec '{"context_size": 3, "context_init": "random"}' 3.0e-3 100 &
job hanenc_k3 han_enc '{"context_size": 3}' 3.0e-3 20 &
;;
k1)  # the default run's han_dec
job handec_k1 han_dec '{"context_size": 1, "context_init": "random"}' 3.0e-3 100 &
;;
k1_nodrop)  # the default run's han_dec without context dropout
job handec_k1_nodrop han_dec '{"context_size": 1, "context_init": "random", "context_dropout": 0.0}' 3.0e-3 100 &
;;
ctx_k1)  # the default run's ctx_transformer, its learning rate, start and batch
job ctx_k1_3e3 ctx_transformer "{$K1}" 3.0e-3 100 &
job ctx_k1_2e3 ctx_transformer "{$K1}" 2.0e-3 100 &
job ctx_k1_4e3 ctx_transformer "{$K1}" 4.0e-3 100 &
job ctx_k1_6e3 ctx_transformer "{$K1}" 6.0e-3 100 &
job ctx_k1_xavier ctx_transformer "{$K1, \"context_init\": \"random\"}" 3.0e-3 100 &
job ctx_k1_half ctx_transformer "{$K1}" 3.0e-3 100 '"max_tokens": 512, "update_tokens": 250' &
job ctx_k1_ls0 ctx_transformer "{$K1}" 3.0e-3 100 '"label_smoothing": 0.0' &
job ctx_k2 ctx_transformer '{}' 3.0e-3 100 &  # as the default run trained it before: K = 2, dropout 0.1
;;
start)  # ctx_transformer and han_dec from another step 1 (STEP1)
job ctx_k1_3e3 ctx_transformer "{$K1}" 3.0e-3 100 &
job handec_k1_identity han_dec '{"context_size": 1, "context_init": "identity"}' 3.0e-3 100 &
job handec_k1 han_dec '{"context_size": 1, "context_init": "random"}' 3.0e-3 100 &
;;
k)  # HAN decoder with K = 2 and K = 3, each with its control
job handec_k2 han_dec '{"context_size": 2}' 3.0e-3 100 &
job handec_k2_random han_dec '{"context_size": 2, "context": "random"}' 3.0e-3 100 &
job handec_k3 han_dec '{"context_size": 3}' 3.0e-3 100 &
job handec_k3_random han_dec '{"context_size": 3, "context": "random"}' 3.0e-3 100 &
;;
short)  # the second sweep: shorter steps, higher lr
job handec_ln_3e3 han_dec '{"reference_norms": true}' 3.0e-3 100 &
job handec_ln_3e3_random han_dec '{"reference_norms": true, "context": "random"}' 3.0e-3 100 &
job handec_ln_5e3 han_dec '{"reference_norms": true}' 5.0e-3 50 &
job ctx_3e3 ctx_transformer '{}' 3.0e-3 100 &
job ctx_3e3_random ctx_transformer '{"context": "random"}' 3.0e-3 100 &
job ctx_5e3 ctx_transformer '{}' 5.0e-3 50 &
job hanenc_ln_3e3 han_enc '{"reference_norms": true}' 3.0e-3 100 &
job hanenc_ln_3e3_random han_enc '{"reference_norms": true, "context": "random"}' 3.0e-3 100 &
;;
*)  # the first sweep: layer norms on and off, learning rates
job handec_1e3 han_dec '{"reference_norms": false}' 1.0e-3 100 &
job handec_1e3_ln han_dec '{"reference_norms": true}' 1.0e-3 100 &
job handec_3e3 han_dec '{"reference_norms": false}' 3.0e-3 100 &
job handec_3e3_ln han_dec '{"reference_norms": true}' 3.0e-3 100 &
job handec_3e3_ln_random han_dec '{"reference_norms": true, "context": "random"}' 3.0e-3 100 &
job hanenc_3e3 han_enc '{"reference_norms": false}' 3.0e-3 100 &
job hanenc_3e3_ln han_enc '{"reference_norms": true}' 3.0e-3 100 &
job ctx_1e3 ctx_transformer '{}' 1.0e-3 100 &
job ctx_3e3 ctx_transformer '{}' 3.0e-3 100 &
job ctx_3e3_random ctx_transformer '{"context": "random"}' 3.0e-3 100 &
;;
esac
wait
python3 "$(dirname "$0")"/context_sweep_summary.py "$D" "$O"
