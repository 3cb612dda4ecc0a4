#!/usr/bin/env bash
# The whole test suite on a fresh Debian 12 machine (as root): install, build, ctest (every label:
# unit, cli, parallel, slow, gpu; gpu tests skip without a device and say so).
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release
ctest --preset release -j2 "$@"
