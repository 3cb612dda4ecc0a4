#!/usr/bin/env bash
# Installs what ugsearch needs from Debian 12's packages, only what is missing (run as root).
set -euo pipefail
packages=(cmake ninja-build g++ pkg-config
          libz3-dev libgtest-dev libgmock-dev libbenchmark-dev libopenmpi-dev openmpi-bin
          nlohmann-json3-dev libcli11-dev libfmt-dev
          clang-14 libclang-rt-14-dev libomp-14-dev
          python3-matplotlib python3-numpy graphviz)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
