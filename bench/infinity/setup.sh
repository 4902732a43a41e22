#!/usr/bin/env bash
# Creates or updates bench/infinity/.venv from requirements.txt and prints the path of its infinity_emb command.
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -x .venv/bin/python ]; then python3 -m venv .venv >&2; fi
REQ_HASH=$(sha256sum requirements.txt | cut -d' ' -f1)
if [ "$(cat .venv/.requirements.sha256 2>/dev/null)" != "$REQ_HASH" ]; then
  .venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt >&2
  echo "$REQ_HASH" > .venv/.requirements.sha256
fi
echo "$PWD/.venv/bin/infinity_emb"
