#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine (as root): install, build, then verify the hand-written
# reference μGraph of the built-in rmsnorm_linear_small in both fields (the search comes with the
# generator issue). Extra arguments go to `ugsearch verify`.
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release
./build/release/ugsearch verify rmsnorm_linear_small experiments/mugraphs/rmsnorm_linear_small.json --field both "$@"
