#!/usr/bin/env bash
# Makes sure Debian's redis-server binary is installed, for the tests that start their own Redis on a
# loopback port (test/helpers/redis.ts). Idempotent: does nothing when redis-server is already on the
# PATH. The tests never use the system service, so one that the package starts is stopped again.
set -euo pipefail

if command -v redis-server >/dev/null 2>&1; then
  echo "redis-server present: $(redis-server --version | head -n1)"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-redis: redis-server is missing and apt-get is not available; install Redis 6.2+ by hand" >&2
  exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "ensure-redis: need root (or sudo) to apt-get install redis-server" >&2
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends redis-server >/dev/null

# The package may start the system-wide service; tests run their own servers, so leave none behind.
if command -v service >/dev/null 2>&1; then
  $SUDO service redis-server stop >/dev/null 2>&1 || true
fi

echo "redis-server installed: $(redis-server --version | head -n1)"
