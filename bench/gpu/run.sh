#!/bin/bash
# The GPU session's one script (build here, check and time there in one call: docs/gpu.md). Runs on the
# lent machine over the bundle that bench/gpu/bundle.sh made, parts in the order given:
#   tests    test_cuda_kernels and test_cuda (the device against the CPU, bit for bit)
#   bench    bench_fingerprint: candidates/s, CPU (2 threads) against CUDA, and the device's bounds
#   full     full-size rmsnorm_linear (bfs against dfs-omp with cuda, 16 threads, 3 reps; and cpu),
#            then full-size gqa and qknorm_gqa (bfs cpu, bfs cuda, dfs-omp cuda)
#   dedup    bfs --dedup function, classes made on the device against on the CPU (same hashes, states)
#   small    every _small program: bfs cpu, bfs cuda, dfs-omp cuda
#   presets  test_search_presets with the auto backend (less the minute-long searches)
#   matrix   experiments/matrices/gpu.json (the mirage space, threads 1 to 16, cpu and cuda) with the
#            experiment driver, in the time left; its results come back as matrix.tgz
#   gated    full-size gated_mlp, bfs against dfs-omp with cuda (minutes)
#   batch    goal 2 without the CPU runs: full-size rmsnorm_linear (bfs and dfs-omp with cuda, 3 reps),
#            then full-size gqa and qknorm_gqa with cuda, dfs-omp against bfs at bfs_batch 32768
#            (the default), 131072 and 524288 (a 16-thread batch of 32768 states takes about 2 ms)
#   goal2    goal 2 at the default batch, each pair run twice, alternating to spread the host's noise:
#            full-size rmsnorm_linear (bfs and dfs-omp with cuda, 3 reps), then full gqa and qknorm_gqa
#   pipeline bfs against the bundle's baseline binary (BASE=<commit> bundle.sh), interleaved, twice
#            each, with dfs-omp: full gqa and qknorm_gqa, cuda, 16 threads (does carrying a batch's fed
#            states to the next batch hide the feed's last call?)
#   versus   this tree's ugsearch against the bundle's baseline one, bfs and dfs-omp, cuda, 16 threads,
#            interleaved: full gqa twice, full qknorm_gqa once (what a kernel change does to searches)
#   kernels  bench_fingerprint against the bundle's baseline one (BASE=<commit> bundle.sh) and any
#            variants added (bundle.sh --add NAME), interleaved, twice each: do the kernels of this
#            tree fingerprint faster than the baseline's? The rows of every run, side by side, at the end
#   profile  where a full-size rmsnorm_linear candidate's time goes on the device (goal 1's kernels,
#            never profiled): Nsight Compute's full set on the first interpreter launches of
#            bench_fingerprint --only rmsnorm_linear (clocks left alone: the figures are the card as shipped), the
#            interpreter kernels' SASS, and compute-sanitizer's memcheck over test_cuda_kernels
#   bench/gpu/run.sh [parts...]      default: tests bench full dedup
# The device tool allows 15 minutes a session and 10 a command, so the script keeps to a budget of its
# own (UGS_GPU_BUDGET_S seconds, default 480): each step gets at most the time left, a search at most
# 120 s (partial past that, exit 3), and a step that would start with under 20 s left is skipped and
# named. Logs and runs.tgz (every results file; the tool brings back at most 8 files) land under $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/ugs_gpu}
mkdir -p "$OUT" /work
# The tests and bench find the repository's files through the path they were built in.
[ -e /work/main ] || ln -s "$PWD" /work/main
# So do the baseline's (bundle.sh builds them in a worktree there): they read this tree's files.
[ -e /tmp/ugs-base ] || ln -s "$PWD" /tmp/ugs-base
export LD_LIBRARY_PATH=$PWD/.gpu/lib
U=.gpu/bin/ugsearch
parts=${*:-tests bench full dedup}
deadline=$(( $(date +%s) + ${UGS_GPU_BUDGET_S:-480} ))
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.used,memory.total --format=csv

left() { echo $(( deadline - $(date +%s) )); }

# fits NAME CAP: prints the seconds the step may take (the time left, at most CAP), or names the
# step as skipped and fails when under 20 s are left.
fits() {
  local l; l=$(left)
  if [ "$l" -lt 20 ]; then echo "SKIPPED (budget): $1" | tee -a "$OUT/skipped.log" >&2; return 1; fi
  echo $(( l < $2 ? l : $2 ))
}

# A gtest binary, its whole log under $OUT, its verdict lines here.
gtest() {
  local exe=$1 s; shift
  s=$(fits "$exe" 300) || return
  timeout "$s" ".gpu/bin/$exe" "$@" 2>&1 | tee "$OUT/$exe.log" |
    grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED|Failure|CUDA compiled"
  [ "${PIPESTATUS[0]}" = 124 ] && echo "TIMED OUT: $exe after $s s"
}

search() {  # name args... : one search, its results under $OUT/runs
  local name=$1 s; shift
  s=$(fits "$name" 120) || return
  mkdir -p "$OUT/runs"
  timeout $(( s + 30 )) $U search "$@" --time-limit "$s" --quiet --out "$OUT/runs/$name.json"
  local rc=$?
  [ $rc = 0 ] || [ $rc = 3 ] || echo "FAILED: $name (exit $rc)"
}

for part in $parts; do
  echo "== $part ($(left) s left)"
  case $part in
    tests)
      gtest test_cuda_kernels
      gtest test_cuda ;;
    bench)
      s=$(fits bench_fingerprint 240) &&
        timeout "$s" .gpu/bin/bench_fingerprint --reps 5 2>&1 | tee "$OUT/bench_fingerprint.log" ;;
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
    dedup)
      for p in gqa_small lora_small rmsnorm_linear; do
        for b in cpu cuda; do search "$p.bfs-function.$b" "$p" --strategy bfs --threads 16 --backend $b --dedup function; done
      done ;;
    small)
      for p in rmsnorm_linear_small gated_mlp_small lora_small gqa_small mha_small mqa_small qknorm_gqa_small ntrans_small; do
        search "$p.bfs.cpu" "$p" --strategy bfs --threads 16 --backend cpu
        search "$p.bfs.cuda" "$p" --strategy bfs --threads 16 --backend cuda
        search "$p.dfs-omp.cuda" "$p" --strategy dfs-omp --threads 16 --backend cuda
      done ;;
    presets) # left out: gqa_small (minutes at 1 and 2 threads), full gqa (CPU-bound, a minute), the larger mirage spaces (minutes)
      gtest test_search_presets --gtest_filter='-Small/Preset.*/3:Full/FullPreset.*/3:Small/MirageSpaceLarger.*' ;;
    batch)
      for rep in 1 2 3; do
        for s in bfs dfs-omp; do search "rmsnorm_linear.$s.cuda.$rep" rmsnorm_linear --strategy $s --threads 16 --backend cuda; done
      done
      for p in gqa qknorm_gqa; do
        search "$p.dfs-omp.cuda" $p --strategy dfs-omp --threads 16 --backend cuda
        for b in 32768 131072 524288; do
          echo "{\"bfs_batch\": $b}" > "$OUT/batch$b.json"
          search "$p.bfs-batch$b.cuda" $p --strategy bfs --threads 16 --backend cuda --config "$OUT/batch$b.json"
        done
      done
      rm -f "$OUT"/batch*.json ;;
    goal2)
      for rep in 1 2 3; do
        for s in bfs dfs-omp; do search "rmsnorm_linear.$s.cuda.$rep" rmsnorm_linear --strategy $s --threads 16 --backend cuda; done
      done
      for p in gqa qknorm_gqa; do
        for rep in 1 2; do
          for s in bfs dfs-omp; do search "$p.$s.cuda.$rep" $p --strategy $s --threads 16 --backend cuda; done
        done
      done ;;
    pipeline)
      [ -x .gpu/bin/ugsearch.base ] || { echo "pipeline: no .gpu/bin/ugsearch.base (BASE=<commit> bench/gpu/bundle.sh)"; continue; }
      for p in gqa qknorm_gqa; do
        for rep in 1 2; do
          U=.gpu/bin/ugsearch.base search "$p.bfs-base.cuda.$rep" $p --strategy bfs --threads 16 --backend cuda
          search "$p.bfs.cuda.$rep" $p --strategy bfs --threads 16 --backend cuda
          search "$p.dfs-omp.cuda.$rep" $p --strategy dfs-omp --threads 16 --backend cuda
        done
      done ;;
    versus)
      [ -x .gpu/bin/ugsearch.base ] || { echo "versus: no .gpu/bin/ugsearch.base (BASE=<commit> bench/gpu/bundle.sh)"; continue; }
      for run in gqa.1 gqa.2 qknorm_gqa.1; do
        for s in bfs dfs-omp; do
          U=.gpu/bin/ugsearch.base search "${run%.*}.$s-base.cuda.${run#*.}" "${run%.*}" --strategy $s --threads 16 --backend cuda
          search "${run%.*}.$s-new.cuda.${run#*.}" "${run%.*}" --strategy $s --threads 16 --backend cuda
        done
      done ;;
    kernels)
      [ -x .gpu/bin/bench_fingerprint.base ] || { echo "kernels: no .gpu/bin/bench_fingerprint.base (BASE=<commit> bench/gpu/bundle.sh)"; continue; }
      variants="base new $(cd .gpu/bin && ls bench_fingerprint.* | sed 's/^bench_fingerprint\.//' | grep -v '^base$' | tr '\n' ' ')"
      for rep in 1 2; do
        for v in $variants; do
          exe=.gpu/bin/bench_fingerprint && [ $v != new ] && exe=$exe.$v
          s=$(fits "bench_fingerprint $v" 60) || break
          echo "-- bench_fingerprint $v $rep"
          timeout "$s" $exe --reps 5 2>&1 | tee "$OUT/bench_fingerprint.$v.$rep.log" | grep -E "^(program|rmsnorm_linear |gqa )"
        done
      done
      # µs a candidate, one column per run: the variants' rows side by side.
      for v in $variants; do for rep in 1 2; do
        f=$OUT/bench_fingerprint.$v.$rep.log
        [ -f "$f" ] && awk -v c="$v.$rep" 'BEGIN{print c} /^(rmsnorm_linear|gqa) /{print $12}' "$f" > "$f.col"
      done; done
      awk '/^(rmsnorm_linear|gqa) /{print $1 "." $2 "." $3}' "$OUT/bench_fingerprint.base.1.log" |
        sed '1i row' | paste - "$OUT"/*.col | awk '{printf "%-30s", $1; for (i = 2; i <= NF; i++) printf " %10s", $i; print ""}'
      rm -f "$OUT"/*.col ;;
    profile)
      # The setups' launches come first (the program evaluated on the drawn inputs), then each row's
      # warm-up and timed calls: 24 launches reach the wide field's candidates. One archive comes back.
      P=$OUT/profile && mkdir -p "$P"
      if s=$(fits ncu 240); then
        timeout "$s" ncu --clock-control none --set full -k regex:interpret_kernel -c 24 \
          .gpu/bin/bench_fingerprint --reps 1 --only rmsnorm_linear > "$P/ncu.log" 2>&1
        echo "ncu: exit $?, $(grep -c 'interpret_kernel' "$P/ncu.log") kernel reports"
        grep -E 'interpret_kernel|Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Registers Per' \
          "$P/ncu.log" | head -60
      fi
      cuobjdump --dump-sass .gpu/bin/bench_fingerprint 2>&1 |
        awk '/Function : /{keep = /interpret_kernel/} keep' > "$P/interpret.sass"
      echo "interpret.sass: $(grep -c 'Function : ' "$P/interpret.sass") kernels, $(wc -l < "$P/interpret.sass") lines"
      if s=$(fits compute-sanitizer 200); then
        timeout "$s" compute-sanitizer --tool memcheck .gpu/bin/test_cuda_kernels > "$P/memcheck.log" 2>&1
        tail -3 "$P/memcheck.log"
      fi
      tar -czf "$OUT/profile.tgz" -C "$OUT" profile && rm -rf "$P" ;;
    matrix)
      # experiments/matrices/gpu.json through the experiment driver, in the time left; a cell cut
      # short by the budget is recorded as interrupted and the cells after it stay unrun.
      s=$(fits "matrix gpu" 100000) &&
        timeout "$s" python3 experiments/run.py --matrix gpu --binary $U --out "$OUT/matrix" 2>&1 |
        tee "$OUT/matrix.log" | tail -5
      [ -d "$OUT/matrix" ] && tar -czf "$OUT/matrix.tgz" -C "$OUT" matrix && rm -rf "$OUT/matrix" ;;
    gated)
      for s in bfs dfs-omp; do search "gated_mlp.$s.cuda" gated_mlp --strategy $s --threads 16 --backend cuda; done ;;
    *) echo "unknown part: $part (parts: tests bench full dedup small presets matrix gated batch goal2 pipeline versus kernels profile)" >&2; exit 2 ;;
  esac
done
echo "== done ($(left) s left)"
[ -d "$OUT/runs" ] && python3 bench/gpu/compare.py "$OUT/runs" && tar -czf "$OUT/runs.tgz" -C "$OUT" runs && rm -rf "$OUT/runs"
