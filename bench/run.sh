#!/usr/bin/env bash
# The embedding benchmark in one command: installs bench/'s own dependencies the first time, rebuilds dist/ so the
# numbers are for the current source, then runs embed.bench.mjs (arguments pass through, e.g. --quick).
# BENCH_SKIP_BUILD=1 benchmarks dist/ as it is.
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -d node_modules/@huggingface/transformers ]; then
  npm install --no-audit --no-fund
fi
if [ ! -f ../models/build/manifest.lock.json ]; then
  echo "models are not built: run 'node scripts/setup.mjs' in the repo root first" >&2
  exit 1
fi
if [ "${BENCH_SKIP_BUILD:-0}" != 1 ]; then
  # tspc exits non-zero on type errors anywhere in the tree but still emits; whether dist/ exists is what matters.
  (cd .. && npx tspc -p tsconfig.json) || echo "# tspc reported errors; benchmarking the emitted dist/" >&2
fi
if [ ! -f ../dist/src/main.js ]; then
  echo "dist/ is missing: run 'npx tspc -p tsconfig.json' in the repo root" >&2
  exit 1
fi
exec node embed.bench.mjs "$@"
