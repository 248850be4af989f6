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
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
all=(fuzz-npy fuzz-safetensors fuzz-rwkv fuzz-manifest fuzz-model-json fuzz-case-json fuzz-ir
     fuzz-interpreter)
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
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:symbolize=1
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
  set +e
  build-fuzz/bin/"$h" "$corpus" "${seeds[@]}" "${dict[@]}" -max_total_time="$seconds" \
    -max_len=32768 -timeout=20 ${SSM_FUZZ_SEED:+-seed=$SSM_FUZZ_SEED} -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$findings/" >"$log" 2>&1
  rc=$?
  set -e
  stats=$(grep -aE '^#[0-9]+' "$log" | tail -1 | sed -E 's/^(#[0-9]+)\s+\S+\s+(cov: [0-9]+ ft: [0-9]+).*exec\/s: ([0-9]+).*/\1 \2 exec\/s: \3/' || true)
  if [ $rc -ne 0 ]; then
    status=1
    echo "fuzz: $h: FINDING (exit $rc) after ${seconds}s: $stats; see $log and $findings/" >&2
    grep -aE "ERROR: |runtime error|SUMMARY" "$log" | head -5 >&2 || true
  else
    echo "fuzz: $h: ${seconds}s, no finding: $stats"
  fi
done
exit $status
