#!/usr/bin/env bash
# Retrains the served deltas from the repository alone and records them: `npm run train`.
#   1. trains the bi-encoder and the cross-encoder (train.py defaults: the current recipes) into models/cache/deltas/,
#   2. copies each run's config.json (the recipe) and metrics.json (its held-out numbers) into models/deltas/<id>/ —
#      what the repository keeps; the weights stay build output, and the set-up retrains them from that recipe,
#   3. builds, refits the classifier heads for the new encoder (they read its embeddings), and evaluates base vs tuned
#      on the held-out data.
#   BI_STEPS=60 CROSS_STEPS=60 bash models/train/train.sh   # a quick smoke run (records those steps: do not commit it)
set -euo pipefail
cd "$(dirname "$0")/../.."
BI_STEPS=${BI_STEPS:-}
CROSS_STEPS=${CROSS_STEPS:-}

if [ ! -x models/.venv/bin/python ]; then node scripts/setup.mjs --venv-only; fi
PY=$(bash models/train/venv.sh)

# Side by side, one thread each; whichever finishes first hands its core to the other (as the set-up trains them).
OUT=models/cache/deltas
BI_ID=$(models/.venv/bin/python -c 'import json; print(json.load(open("models/manifest.json"))["serve"]["biencoder"])')
CROSS_ID=$(models/.venv/bin/python -c 'import json; print(json.load(open("models/manifest.json"))["serve"]["reranker"])')
rm -f "$OUT/$BI_ID/delta.safetensors" "$OUT/$CROSS_ID/delta.safetensors"
mkdir -p models/train/runs
"$PY" models/train/train.py biencoder ${BI_STEPS:+--steps "$BI_STEPS"} --wider-when "$OUT/$CROSS_ID/delta.safetensors" > models/train/runs/biencoder.log 2>&1 &
BI_PID=$!
"$PY" models/train/train.py cross ${CROSS_STEPS:+--steps "$CROSS_STEPS"} --wider-when "$OUT/$BI_ID/delta.safetensors" 2>&1 | tee models/train/runs/cross.log
wait "$BI_PID"

for id in $(models/.venv/bin/python -c 'import json; m = json.load(open("models/manifest.json")); print(" ".join(k for k, v in m["models"].items() if v.get("delta")))'); do
  mkdir -p "models/deltas/$id"
  cp "models/cache/deltas/$id/config.json" "models/cache/deltas/$id/metrics.json" "models/deltas/$id/"
done

models/.venv/bin/python models/build_models.py
bash models/classifier/train
models/.venv/bin/python models/train/evaluate.py
