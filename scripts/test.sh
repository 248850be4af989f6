#!/usr/bin/env bash
# Builds and runs every test: unit (gtest), lit (FileCheck), golden conformance (ctest).
#
#   scripts/test.sh                      the full suite in ./build
#                                        (SSM_CTEST_ARGS: more ctest options,
#                                        e.g. "-LE full" as in .ci/run)
#   scripts/test.sh --sanitize [SET]     the same code built with ASan+UBSan
#                                        (-DSSM_SANITIZE=ON) in ./build-asan
#
# Sanitizer sets: `full` (default): every ctest test (unit, e2e, lit, golden);
# `quick`: the unit tests, the golden cases on the reference and cpu engines,
# and the lit tests of Tools/, Reference/ and Dialect/ (bad input, static
# limits, verifiers); `unit` (what CI runs, see README): the unit tests only,
# which need no MLIR or Halide translation unit (the MLIR-side readers run
# under ASan+UBSan in CI through the fuzz smoke, scripts/fuzz.sh).
# Any sanitizer report fails the test that triggered it (halt_on_error).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" != "--sanitize" ]; then
  scripts/build.sh
  # shellcheck disable=SC2086 # SSM_CTEST_ARGS is a list of options
  ctest --test-dir build --output-on-failure -j "${SSM_TEST_JOBS:-$(nproc)}" ${SSM_CTEST_ARGS:-}
  exit 0
fi

set_=${2:-full}
case $set_ in full|quick|unit) ;; *) echo "test.sh: unknown sanitizer set '$set_' (full, quick, unit)" >&2; exit 2 ;; esac
jobs=${SSM_BUILD_JOBS:-$(nproc)}
if [ ! -f build-asan/build.ninja ]; then
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Release -DSSM_SANITIZE=ON \
    -DMLIR_DIR=/usr/lib/llvm-19/lib/cmake/mlir >/dev/null
fi
# LeakSanitizer is off: LLVM's and MLIR's globals (ManagedStatic, the
# cl::opt and dialect registries) are never freed by design, so every tool
# would "leak" on exit. Heap overflows, use-after-free and UB still abort.
# allow_user_poisoning=0: see scripts/fuzz.sh (LLVM allocator slabs shared with
# the uninstrumented libMLIR).
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:halt_on_error=1:allow_user_poisoning=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
if [ "$set_" = full ]; then
  cmake --build build-asan -j "$jobs"
  ctest --test-dir build-asan --output-on-failure -j "${SSM_TEST_JOBS:-$(nproc)}"
  exit 0
fi
if [ "$set_" = unit ]; then
  cmake --build build-asan -j "$jobs" --target ssm-unit-tests
  SSM_SHARED_DIR="$(cd .. && pwd)/shared" build-asan/bin/ssm-unit-tests --gtest_brief=1
  exit 0
fi
cmake --build build-asan -j "$jobs" --target ssm-unit-tests ssm-opt ssm-run ssm-compile
SSM_SHARED_DIR="$(cd .. && pwd)/shared" build-asan/bin/ssm-unit-tests --gtest_brief=1
ctest --test-dir build-asan --output-on-failure -j "${SSM_TEST_JOBS:-$(nproc)}" \
  -R '^golden\.(reference|cpu)\.'
python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv build-asan/test/lit \
  --filter '(Tools|Reference|Dialect)/'
