#!/bin/bash
# Packs what a run on a lent GPU machine needs into .gpu/ (carried by the device tool): the release
# build's GPU-facing binaries and the shared libraries they load that a bare CUDA image lacks. The
# binaries are built here because that machine has none of the project's Debian dependencies.
#   bench/gpu/bundle.sh            (after cmake --build --preset release)
#   BASE=<commit> bench/gpu/bundle.sh   also that commit's ugsearch and bench_fingerprint, as
#                                       .gpu/bin/*.base (built in a worktree under /tmp), for run.sh's
#                                       parts `pipeline` and `kernels`
#   bench/gpu/bundle.sh --add NAME      adds the release build's bench_fingerprint as
#                                       .gpu/bin/bench_fingerprint.NAME to the bundle, which stays:
#                                       a kernel variant for `kernels` (build it, add it, revert)
set -euo pipefail
cd "$(dirname "$0")/../.."
B=build/release
if [ "${1:-}" = --add ]; then
  [ -n "${2:-}" ] && [ -d .gpu/bin ] || { echo "usage: bench/gpu/bundle.sh --add NAME (after a bundle)" >&2; exit 2; }
  install -m 755 "$B/bench/bench_fingerprint" ".gpu/bin/bench_fingerprint.$2"
  strip --strip-unneeded ".gpu/bin/bench_fingerprint.$2"
  echo "bundle $(du -sh .gpu | cut -f1): $(cd .gpu/bin && ls bench_fingerprint* | tr '\n' ' ')"
  exit 0
fi
rm -rf .gpu && mkdir -p .gpu/bin .gpu/lib
for exe in ugsearch tests/test_cuda tests/test_cuda_kernels tests/test_search_presets bench/bench_fingerprint; do
  cp "$B/$exe" .gpu/bin/
done
if [ -n "${BASE:-}" ]; then
  W=/tmp/ugs-base
  git worktree remove --force "$W" 2>/dev/null || rm -rf "$W"
  git worktree add --detach "$W" "$BASE" >/dev/null
  (cd "$W" && cmake --preset release >/dev/null &&
    cmake --build --preset release --target ugsearch bench_fingerprint >/dev/null)
  cp "$W/$B/ugsearch" .gpu/bin/ugsearch.base
  cp "$W/$B/bench/bench_fingerprint" .gpu/bin/bench_fingerprint.base
  git worktree remove --force "$W"
fi
# Every library the binaries load, except the C runtime and the loader (the image has its own).
ldd .gpu/bin/* | awk '/=> \//{print $3}' | sort -u | grep -v -E '/(libc|libm|libpthread|libdl|librt)\.so' |
  while read -r lib; do cp -L "$lib" .gpu/lib/; done
# The device tool carries at most 64 MiB with the tree: unstripped, the bundle alone is 60 MB.
strip --strip-unneeded .gpu/bin/* .gpu/lib/*
total=$(( $(du -sk .gpu | cut -f1) + $(git ls-files -z | du -ck --files0-from=- | tail -1 | cut -f1) ))
echo "bundle $(du -sh .gpu | cut -f1), with the tracked tree $(( total / 1024 )) MiB (the device tool carries 64)"
[ "$total" -lt $(( 64 * 1024 )) ] || echo "too large to carry: leave out binaries the run does not use" >&2
