#!/usr/bin/env bash
# Installs the system tools the tests need, from Debian's packages, when they are missing:
#   - a C compiler: the NVML probe's tests build a fake libnvidia-ml.so from C source;
#   - clang and lld: @cg/schema's tests build its WebAssembly decoder and compare it with the
#     committed module;
#   - chromium: the HTML report's tests drive a real browser (never a downloaded one).
# Idempotent and quick when all are present.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cc >/dev/null 2>&1; then
  echo "installing gcc (apt)"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq gcc libc6-dev >/dev/null
fi
if ! command -v clang >/dev/null 2>&1 || ! command -v wasm-ld >/dev/null 2>&1; then
  echo "installing clang and lld (apt)"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq clang lld >/dev/null
fi
bash scripts/install-chromium.sh >/dev/null
