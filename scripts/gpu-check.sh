#!/usr/bin/env bash
# The CUDA check, for a machine with an NVIDIA GPU and its driver.
#
#   scripts/gpu-check.sh [--no-bench]              builds here, then checks
#   scripts/gpu-check.sh --pack DIR [--no-bench]   checks a pack built elsewhere
#
# Without --pack (a machine that can build: Debian 12 packages): builds the
# tools, runs every golden case and the tiny models with `ssm-run --engine
# cuda`, then packs them (scripts/gpu_pack.py) and runs the pack, which adds the
# benchmarks against PyTorch on the same GPU (Mamba-1 scan 1536 x 16 at L 512
# and 2048, batch 1 and 8, the decode step, causal conv1d, SSD) when torch with
# CUDA is importable.
# With --pack DIR (a GPU machine with no compiler, e.g. one that has only the
# driver, Python, NumPy and PyTorch): `scripts/gpu_pack.py -o DIR` on a build
# machine compiles every golden case, tiny model and benchmark for
# x86-64-linux-cuda-cuda_capability_80 ahead of time; this runs them through the
# runtime library (scripts/gpu_check.py): the same cases, the C API's path.
# Aimed at under 8 minutes on a fresh machine. Exit 0 when every check passes.
set -euo pipefail
cd "$(dirname "$0")/.."
pack="" bench=""
while [ $# -gt 0 ]; do
  case "$1" in
    --pack) pack="${2:?--pack needs a folder}"; shift 2 ;;
    --no-bench) bench=--no-bench; shift ;;
    *) echo "gpu-check: unknown argument '$1' (see the header of $0)" >&2; exit 2 ;;
  esac
done
command -v nvidia-smi >/dev/null || { echo "gpu-check: nvidia-smi not found: needs an NVIDIA GPU and driver" >&2; exit 2; }
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
if [ -n "$pack" ]; then
  exec python3 scripts/gpu_check.py "$pack" $bench
fi
# Halide 14 knows CUDA capabilities up to 8.6: take the largest it knows that
# the GPU has (the driver JITs that PTX forward on newer GPUs).
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
pick=""
for c in 30 32 35 50 61 70 75 80 86; do [ "$cap" -ge "$c" ] && pick=$c; done
[ -n "$pick" ] || { echo "gpu-check: compute capability $cap is below 3.0" >&2; exit 2; }
target=host-cuda-cuda_capability_$pick
echo "gpu-check: target $target"

scripts/install-deps.sh
SSM_BUILD_JOBS=$(nproc) scripts/build.sh --target ssm-compile ssm-run ssm-import ssm-opt
export SSM_CACHE_DIR="$PWD/build/compile-cache-gpu"
shared=${SSM_SHARED_DIR:-../shared}
[ -d "$shared/golden" ] || { echo "gpu-check: $shared/golden is missing" >&2; exit 1; }

# Golden cases (their own tolerances, case.json), compiled and run in parallel.
status=0
ls -d "$shared"/golden/*/ | xargs -P "$(nproc)" -I{} sh -c \
  'if out=$(build/bin/ssm-run --golden "$1" --engine cuda --target '"$target"' 2>&1); then
     echo "PASS golden $1"; else echo "FAIL golden $1"; echo "$out"; exit 1; fi' _ {} || status=1

# The tiny models: the lit tests of test/lit/Gpu on the cuda engine.
SSM_LIT_GPU="--engine cuda --target $target" python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv \
  build/test/lit --filter 'Gpu/' -j "$(nproc)" || status=1

scripts/gpu_pack.py --target "${target/host-/x86-64-linux-}" -o build/gpu-pack --force $bench
python3 scripts/gpu_check.py build/gpu-pack $bench || status=1
exit $status
