#!/usr/bin/env bash
# Packs built binaries with the shared libraries they load (all but the C library's own) into one
# folder, so they run on a machine that has none of Debian's packages, e.g. a GPU machine with only
# the CUDA driver:  scripts/bundle.sh OUT_DIR BINARY...   then there:  LD_LIBRARY_PATH=OUT_DIR/lib OUT_DIR/bin/NAME
# Test binaries keep reading the source tree at the path they were built in (UGS_SOURCE_DIR).
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: scripts/bundle.sh OUT_DIR BINARY..." >&2; exit 2; }
out=$1; shift
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
for b in "$@"; do
  [ -x "$b" ] || { echo "scripts/bundle.sh: $b is not an executable; build it first" >&2; exit 2; }
  cp "$b" "$out/bin/"
  ldd "$b" | awk '/=> \//{print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*) ;;  # the target's own C library
      *) cp -Ln "$lib" "$out/lib/" ;;
    esac
  done
done
du -sh "$out"
