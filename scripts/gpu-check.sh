#!/usr/bin/env bash
# The CUDA check (issue 13), for a machine with an NVIDIA GPU and its driver:
# builds the tools, runs every golden case and the tiny models on
# `--engine cuda`, then benchmarks the GPU kernels against PyTorch on the same
# GPU (bench/run.py: Mamba-1 scan 1536 x 16 at L 512 and 2048, batch 1 and 8,
# the decode step, causal conv1d, SSD) when torch with CUDA is importable, and
# against mamba_ssm's fused scan where mamba_ssm is installed.
# Aimed at under 8 minutes on a fresh machine. Exit 0 when every check passes.
#
#   scripts/gpu-check.sh [--no-bench]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v nvidia-smi >/dev/null || { echo "gpu-check: nvidia-smi not found: needs an NVIDIA GPU and driver" >&2; exit 2; }
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
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

if [ "${1:-}" != "--no-bench" ]; then
  if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    extra=""
    python3 -c 'import mamba_ssm' 2>/dev/null && extra=--mamba-ssm
    python3 bench/run.py --engine cuda --target "$target" --device cuda --rounds 3 --repeat 20 $extra
  else
    echo "gpu-check: no torch with CUDA: benchmarks skipped (pip install torch to compare)"
  fi
fi
exit $status
