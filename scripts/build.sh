#!/usr/bin/env bash
# Configures (once) and builds ssm-opt into ./build; tools land in ./build/bin.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${SSM_BUILD_JOBS:-$(nproc)}
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-19/lib/cmake/mlir >/dev/null
fi
cmake --build build -j "$jobs" "$@"
