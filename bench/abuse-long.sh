#!/usr/bin/env bash
# The long abuse runs, longer than CI's: `bash abuse-long.sh soak|fuzz|overload|all` from bench/.
# They are the long suite's tests (test/long/) with bigger budgets; each prints TAP and its figures, and leaves a
# JSON summary in dist/ (soak-summary.json, fuzz-summary.json, overload-summary.json).
#   soak      1 hour at 150 req/s mixed (MENU_SOAK_SECONDS, default 3600; CI runs 600)
#   fuzz      5 minutes of schemathesis generation per operation (MENU_FUZZ_SECONDS, default 300; CI runs 20)
#   overload  5x capacity for 3 minutes (MENU_OVERLOAD_SECONDS, default 180; CI runs 30)
# The run-tests timeout is raised to fit (MENU_LONG_TIMEOUT_S).
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-all}"
(npx tspc -p tsconfig.json) >/dev/null || echo "# tspc reported errors; running the emitted dist/" >&2
run() { node scripts/run-tests.mjs --long "$@"; }
case "$what" in
  soak) MENU_SOAK_SECONDS="${MENU_SOAK_SECONDS:-3600}" MENU_LONG_TIMEOUT_S=$(( ${MENU_SOAK_SECONDS:-3600} + 900 )) run dist/test/long/soak.test.js ;;
  fuzz) MENU_FUZZ_SECONDS="${MENU_FUZZ_SECONDS:-300}" MENU_LONG_TIMEOUT_S=$(( ${MENU_FUZZ_SECONDS:-300} * 12 + 900 )) run dist/test/long/fuzz-schemathesis.test.js ;;
  overload) MENU_OVERLOAD_SECONDS="${MENU_OVERLOAD_SECONDS:-180}" run dist/test/long/overload.test.js ;;
  all) "$0" fuzz && "$0" overload && "$0" soak ;;
  *) echo "usage: bash bench/abuse-long.sh soak|fuzz|overload|all" >&2; exit 2 ;;
esac
