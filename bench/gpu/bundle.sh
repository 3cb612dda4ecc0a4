#!/bin/bash
# Packs what a run on a lent GPU machine needs into .gpu/ (carried by the device tool): the release
# build's GPU-facing binaries and the shared libraries they load that a bare CUDA image lacks. The
# binaries are built here because that machine has none of the project's Debian dependencies.
#   bench/gpu/bundle.sh            (after cmake --build --preset release)
set -euo pipefail
cd "$(dirname "$0")/../.."
B=build/release
rm -rf .gpu && mkdir -p .gpu/bin .gpu/lib
for exe in ugsearch tests/test_cuda tests/test_cuda_kernels tests/test_search_presets bench/bench_fingerprint; do
  cp "$B/$exe" .gpu/bin/
done
# Every library the binaries load, except the C runtime and the loader (the image has its own).
ldd .gpu/bin/* | awk '/=> \//{print $3}' | sort -u | grep -v -E '/(libc|libm|libpthread|libdl|librt)\.so' |
  while read -r lib; do cp -L "$lib" .gpu/lib/; done
du -sh .gpu
