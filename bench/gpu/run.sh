#!/bin/bash
# The GPU session's one script (METHOD.md: build here, check and time there in one call). Runs on the
# lent machine over the bundle that bench/gpu/bundle.sh made: the CUDA tests, the fingerprint
# throughput bench, and searches with --backend cuda against --backend cpu (same μGraph hashes), the
# small programs and full-size rmsnorm_linear and gqa, bfs against dfs-omp at 16 threads; `dedup`: bfs with
# --dedup function, classes made on the device against on the CPU (same μGraph hashes and state counts);
# `gated`: full-size gated_mlp, bfs against dfs-omp with cuda (not in the default parts: minutes).
#   bench/gpu/run.sh [parts...]    parts: tests presets bench small full dedup gated (default: all but gated);
#                                  logs under $OUT
# (runs.tgz holds every results file: the device tool brings back few files).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/ugs_gpu}
mkdir -p "$OUT" /work
# The tests and bench find the repository's files through the path they were built in.
[ -e /work/main ] || ln -s "$PWD" /work/main
run() { LD_LIBRARY_PATH=$PWD/.gpu/lib "$@"; }
U=.gpu/bin/ugsearch
parts=${*:-tests presets bench small full dedup}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.used,memory.total --format=csv

search() {  # name args... : one search, its results under $OUT/runs (partial past 120 s; killed at 150)
  local name=$1; shift
  mkdir -p "$OUT/runs"
  timeout 150 env LD_LIBRARY_PATH=$PWD/.gpu/lib $U search "$@" --time-limit 120 --quiet --out "$OUT/runs/$name.json"
  local rc=$?
  [ $rc = 0 ] || [ $rc = 3 ] || echo "FAILED: $name (exit $rc)"
}

for part in $parts; do
  case $part in
    tests)
      run timeout 120 .gpu/bin/test_cuda_kernels 2>&1 | tee "$OUT/test_cuda_kernels.log" | grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED|Failure"
      run timeout 300 .gpu/bin/test_cuda 2>&1 | tee "$OUT/test_cuda.log" | grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED|Failure|CUDA compiled" ;;
    presets) # left out: gqa_small (minutes at 1 and 2 threads), full gqa and qknorm_gqa (CPU-bound, 1-3 min)
      run timeout 300 .gpu/bin/test_search_presets \
        --gtest_filter='-Small/Preset.*/3:Full/FullPreset.*/3:Full/FullPreset.*/6' 2>&1 | tee "$OUT/test_search_presets.log" | grep -E "^\[  (PASSED|FAILED) |Failure" ;;
    bench) run .gpu/bin/bench_fingerprint --reps 5 2>&1 | tee "$OUT/bench_fingerprint.log" ;;
    small)
      for p in rmsnorm_linear_small gated_mlp_small lora_small gqa_small mha_small mqa_small qknorm_gqa_small ntrans_small; do
        search "$p.bfs.cpu" "$p" --strategy bfs --threads 16 --backend cpu
        search "$p.bfs.cuda" "$p" --strategy bfs --threads 16 --backend cuda
        search "$p.dfs-omp.cuda" "$p" --strategy dfs-omp --threads 16 --backend cuda
      done ;;
    full)
      for rep in 1 2 3; do
        for s in bfs dfs-omp; do search "rmsnorm_linear.$s.cuda.$rep" rmsnorm_linear --strategy $s --threads 16 --backend cuda; done
      done
      for s in bfs dfs-omp; do search "rmsnorm_linear.$s.cpu" rmsnorm_linear --strategy $s --threads 16 --backend cpu; done
      # full-size gqa: 1,421 fingerprints of ~40 ms each on one CPU core (55 of its 63 s on 2 cores)
      search gqa.bfs.cpu gqa --strategy bfs --threads 16 --backend cpu
      for s in bfs dfs-omp; do search "gqa.$s.cuda" gqa --strategy $s --threads 16 --backend cuda; done
      # full-size qknorm_gqa: 324 million states, 2,238 fingerprints (190 s and 7 GiB with bfs on 2 cores)
      search qknorm_gqa.bfs.cpu qknorm_gqa --strategy bfs --threads 16 --backend cpu
      for s in bfs dfs-omp; do search "qknorm_gqa.$s.cuda" qknorm_gqa --strategy $s --threads 16 --backend cuda; done ;;
    gated) # full-size gated_mlp: many fingerprints and confirmations (data for goal 2's restatement)
      for s in bfs dfs-omp; do search "gated_mlp.$s.cuda" gated_mlp --strategy $s --threads 16 --backend cuda; done ;;
    dedup)
      for p in gqa_small lora_small rmsnorm_linear; do
        for b in cpu cuda; do search "$p.bfs-function.$b" "$p" --strategy bfs --threads 16 --backend $b --dedup function; done
      done ;;
  esac
done
[ -d "$OUT/runs" ] && python3 bench/gpu/compare.py "$OUT/runs" && tar -czf "$OUT/runs.tgz" -C "$OUT" runs && rm -rf "$OUT/runs"
