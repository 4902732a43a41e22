#!/usr/bin/env bash
# Creates or updates the training venv (models/train/.venv: torch lives only here; the PyPI torch is the CUDA build,
# ~3 GB of wheels, and runs on CPU) and prints its python. Used by train.sh and by the set-up when it must train.
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=models/train/.venv
if [ ! -x "$VENV/bin/python" ]; then python3 -m venv "$VENV" >&2; fi
REQ_HASH=$(sha256sum models/train/requirements.txt | cut -d' ' -f1)
if [ "$(cat "$VENV/.requirements.sha256" 2>/dev/null)" != "$REQ_HASH" ]; then
  "$VENV/bin/pip" install --quiet --disable-pip-version-check -r models/train/requirements.txt >&2
  echo "$REQ_HASH" > "$VENV/.requirements.sha256"
fi
# The base weights the training starts from: fetched and sha256-verified by the exporter's build script.
models/.venv/bin/python models/build_models.py --fetch-only >&2
echo "$VENV/bin/python"
