#!/usr/bin/env bash
# Installs the system tools the tests need, from Debian's packages, when they are missing:
#   - a C compiler: the NVML probe's tests build a fake libnvidia-ml.so from C source;
#   - chromium: the HTML report's tests drive a real browser (never a downloaded one).
# Idempotent and quick when both are present.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cc >/dev/null 2>&1; then
  echo "installing gcc (apt)"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq gcc libc6-dev >/dev/null
fi
bash scripts/install-chromium.sh >/dev/null
