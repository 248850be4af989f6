#!/usr/bin/env bash
# Builds the libFuzzer harnesses of fuzz/ (clang-19, ASan+UBSan, build-fuzz/)
# and runs each for SECONDS (default 60) on its corpus, one after another.
#
#   scripts/fuzz.sh [SECONDS] [HARNESS...]     e.g. scripts/fuzz.sh 10 fuzz-npy
#
# Seeds are fuzz/corpus/<harness>/ (small files in the tree, taken from the
# tests); new inputs go to build-fuzz/corpus/<harness>/, findings (crash-*,
# leak-*, timeout-*) to build-fuzz/findings/<harness>/. Prints one summary
# line per harness (executions, exec/s, coverage: cov = edges, ft = features)
# and exits 1 if any harness found a crash. Needs clang-19 and
# libclang-rt-19-dev (scripts/install-deps.sh installs them). SSM_FUZZ_SEED
# fixes libFuzzer's seed (CI: 1, so a smoke run is repeatable).
# SSM_FUZZ_TIMEOUT (default 20) is the seconds one input may take before it
# counts as a finding (raise it on a loaded machine). SSM_FUZZ_CPU=1 counts
# SECONDS as CPU time used by the harness instead of wall time (for shared
# machines, where a wall-clock run may get a fraction of a core): the harness
# is stopped with SIGINT once its user+system time reaches SECONDS, and the
# summary line gives both times.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
all=(fuzz-npy fuzz-safetensors fuzz-rwkv fuzz-gguf fuzz-manifest fuzz-model-json fuzz-case-json fuzz-ir
     fuzz-interpreter fuzz-tokenizer fuzz-state-dlpack)
harnesses=("$@")
[ ${#harnesses[@]} -eq 0 ] && harnesses=("${all[@]}")
jobs=${SSM_BUILD_JOBS:-$(nproc)}

if [ ! -f build-fuzz/build.ninja ]; then
  CC=clang-19 CXX=clang++-19 cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DSSM_FUZZ=ON -DMLIR_DIR=/usr/lib/llvm-19/lib/cmake/mlir >/dev/null
fi
cmake --build build-fuzz -j "$jobs" --target "${harnesses[@]}"

# LLVM's and MLIR's globals are never freed (ManagedStatic, registries):
# LeakSanitizer would report them on every exit, so leaks are not checked.
# The harnesses that read folders write into $TMPDIR/ssm-fuzz-<pid>.
export TMPDIR="$PWD/build-fuzz/tmp-$$"
rm -rf "$TMPDIR" && mkdir -p "$TMPDIR"
trap 'rm -rf "$TMPDIR"' EXIT
# allow_user_poisoning=0: LLVM's BumpPtrAllocator (MLIR's attribute storage)
# poisons the unused part of each new slab when compiled with ASan, which our
# code is and Debian's libMLIR is not; a slab our code started and libMLIR
# then allocated from reads as poisoned (a false "use-after-poison" in a
# memmove from MLIR's parser, found by fuzz-ir). Heap bounds stay checked.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:symbolize=1:allow_user_poisoning=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
for h in "${harnesses[@]}"; do
  corpus=build-fuzz/corpus/$h findings=build-fuzz/findings/$h
  mkdir -p "$corpus" "$findings"
  seeds=("fuzz/corpus/$h")
  case $h in fuzz-ir|fuzz-interpreter) seeds+=(test/lit) ;; esac # every graph of the tests
  dict=()
  [ -f "fuzz/dict/$h.dict" ] && dict=(-dict="fuzz/dict/$h.dict")
  log=build-fuzz/findings/$h.log
  limit=(-max_total_time="$seconds")
  [ -n "${SSM_FUZZ_CPU:-}" ] && limit=()
  start=$SECONDS
  set +e
  build-fuzz/bin/"$h" "$corpus" "${seeds[@]}" "${dict[@]}" "${limit[@]}" \
    -max_len=32768 -timeout="${SSM_FUZZ_TIMEOUT:-20}" ${SSM_FUZZ_SEED:+-seed=$SSM_FUZZ_SEED} -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$findings/" >"$log" 2>&1 &
  pid=$!
  cpu=0
  if [ -n "${SSM_FUZZ_CPU:-}" ]; then
    tick=$(getconf CLK_TCK)
    while kill -0 "$pid" 2>/dev/null; do
      sleep 2
      # fields 14 and 15 of /proc/PID/stat: user and system time in clock ticks
      ticks=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null) || break
      cpu=$((ticks / tick))
      if [ "$cpu" -ge "$seconds" ]; then kill -INT "$pid"; break; fi
    done
  fi
  wait "$pid"
  rc=$?
  set -e
  # libFuzzer exits 72 (its -interrupt_exit_code) after SIGINT: our stop, not a finding.
  [ -n "${SSM_FUZZ_CPU:-}" ] && [ $rc -eq 72 ] && rc=0
  wall=$((SECONDS - start))
  stats=$(grep -aE '^#[0-9]+' "$log" | tail -1 | sed -E 's/^(#[0-9]+)\s+\S+\s+(cov: [0-9]+ ft: [0-9]+).*exec\/s: ([0-9]+).*/\1 \2 exec\/s: \3/' || true)
  if [ $rc -ne 0 ]; then
    status=1
    echo "fuzz: $h: FINDING (exit $rc) after ${seconds}s: $stats; see $log and $findings/" >&2
    grep -aE "ERROR: |runtime error|SUMMARY" "$log" | head -5 >&2 || true
  else
    if [ -n "${SSM_FUZZ_CPU:-}" ]; then
      echo "fuzz: $h: ${cpu}s CPU in ${wall}s wall, no finding: $stats"
    else
      echo "fuzz: $h: ${seconds}s, no finding: $stats"
    fi
  fi
done
exit $status
