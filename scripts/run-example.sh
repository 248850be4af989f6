#!/usr/bin/env bash
# The main job: compile a Mamba-1 block at mamba-130m sizes (examples/mamba1_block_130m.mlir,
# d_model 768, d_inner 1536, d_state 16, 512 tokens, seeded synthetic weights) for this CPU,
# run it, and check it against the reference interpreter.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh --target ssm-opt ssm-run ssm-compile
export SSM_CACHE_DIR=${SSM_CACHE_DIR:-$PWD/build/compile-cache}
echo "== Mamba-1 block (mamba-130m sizes, L 512): compiled for the host CPU vs the reference interpreter"
build/bin/ssm-run examples/mamba1_block_130m.mlir --seed 0 --engine cpu --check \
  --rtol 1e-3 --atol 1e-3 --repeat 10 "$@"
