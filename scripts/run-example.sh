#!/usr/bin/env bash
# The main job: the example Mamba-1 layer on seeded inputs through the reference interpreter,
# once as written and once after ssm-decompose, which must agree.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh --target ssm-opt ssm-run
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
build/bin/ssm-run examples/mamba1_layer.mlir --seed 0 --output-dir "$out/fused"
build/bin/ssm-opt examples/mamba1_layer.mlir -ssm-decompose -o "$out/decomposed.mlir"
build/bin/ssm-run "$out/decomposed.mlir" --seed 0 --expected "$out/fused/result0.npy" \
  --rtol 1e-5 --atol 1e-6
