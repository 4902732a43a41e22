#!/usr/bin/env bash
# Creates test/fuzz/.venv with the pinned schemathesis (requirements.txt) and prints the path of its `st`
# command. Idempotent: reinstalls only when requirements.txt changed. Exit 3 when python3 is missing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="$here/.venv"
if ! command -v python3 >/dev/null 2>&1; then
  echo "python3 is not installed" >&2
  exit 3
fi
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
if [[ ! -x "$venv/bin/st" || ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt" >&2
  echo "$want" > "$stamp"
fi
echo "$venv/bin/st"
