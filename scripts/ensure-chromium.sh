#!/usr/bin/env bash
# Installs Debian's Chromium for the browser test of /docs (test/docs-browser.test.ts drives it with puppeteer-core;
# nothing downloads a browser of its own). Idempotent: quick when /usr/bin/chromium is already there.
set -euo pipefail
# DejaVu for Latin text, Lohit for Devanagari: the examples' menu text ("पनीर टिक्का") shows in the screenshot.
FONTS="fonts-dejavu-core fonts-lohit-deva"
if [ -x /usr/bin/chromium ] && dpkg -s $FONTS >/dev/null 2>&1; then
  echo "chromium: $(/usr/bin/chromium --version 2>/dev/null || echo present)"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: no apt-get here; install Chromium as /usr/bin/chromium to run the browser test" >&2
  exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends chromium $FONTS >/dev/null
echo "chromium: $(/usr/bin/chromium --version)"
