#!/usr/bin/env bash
# Run a config's trainings (and the jobs that read their checkpoints) on a GPU
# node that has PyTorch but neither Snakemake nor a package index, from a folder
# prepared where the workflow runs (docs/gpu.md, "Training a config on a GPU node"):
#
#   STAGE/dry.log      snakemake -n -p --configfile CONFIG [--forcerun ...]
#   STAGE/inputs.tar   the files the node's jobs read that none of them makes
#                      (python tools/replay_jobs.py --node ... --list-inputs)
#   STAGE/rules        rules whose jobs the node runs beside the --node ones
#                      (e.g. fasttext, whose models are too big to copy); may be empty
#   WHEELS             wheels of what the node lacks (docs/gpu.md)
#
#   bash tools/replay_on_node.sh STAGE WHEELS OUT [JOBS] [SECONDS]
#
# SECONDS (default 1e6) stops the jobs there, so that what is done still comes back.
#
# Writes OUT/results.tgz (every file the jobs wrote under results/ except
# checkpoints, *.pt, *.bin and *.vec) and OUT/replay.json (each job's status,
# wall and CPU seconds). Unpack results.tgz in the workflow's folder and run
# Snakemake there for the rest (evaluation, tables): the same targets.
set -euo pipefail
STAGE=$1 WHEELS=$2 OUT=$3 JOBS=${4:-12} LIMIT=${5:-1000000}
SITE=/tmp/replay_site
if compgen -G "$WHEELS/*.whl" > /dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
        --upgrade --target "$SITE" "$WHEELS"/*.whl
fi
mkdir -p /tmp/replay_bin
# the jobs call `python`: a wrapper, not a link (a link to a venv's python leaves the venv)
printf '#!/bin/sh\nexec %s "$@"\n' "$(command -v python3)" > /tmp/replay_bin/python
chmod +x /tmp/replay_bin/python
export PATH=/tmp/replay_bin:$PATH PYTHONPATH=$SITE:$PWD/src PYTHONUNBUFFERED=1
tar -xf "$STAGE/inputs.tar"
touch /tmp/replay_stamp
sleep 1
status=0
RULES=$(cat "$STAGE/rules" 2>/dev/null || true)
timeout -k 5 "$LIMIT" python3 tools/replay_jobs.py --dry-run "$STAGE/dry.log" --jobs "$JOBS" \
    --report "$OUT/replay.json" --node ${RULES:+--rules $RULES} \
    > "$OUT/replay.log" 2>&1 || status=$?
tail -n 30 "$OUT/replay.log"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader \
    > "$OUT/gpu.txt" 2>&1 || true
python3 -c "import torch; print(torch.__version__, torch.version.cuda)" >> "$OUT/gpu.txt"
find results -newer /tmp/replay_stamp -type f ! -name '*.pt' ! -name '*.bin' \
    ! -name '*.vec' ! -path '*/checkpoints/*' ! -name train.concat \
    ! -path '*/plain/train.txt' -print0 | tar -czf "$OUT/results.tgz" --null -T -
exit $status
