#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine (as root): install, build, then search the built-in
# rmsnorm_linear_small with the breadth-first engine on every core (results in results.json).
# Extra arguments go to `ugsearch search` (e.g. --strategy dfs, --out FILE).
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release
./build/release/ugsearch search rmsnorm_linear_small --strategy bfs --threads "$(nproc)" "$@"
