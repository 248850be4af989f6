#!/usr/bin/env bash
# Builds and runs every test: unit (gtest), lit (FileCheck), golden conformance (ctest).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
ctest --test-dir build --output-on-failure -j "${SSM_TEST_JOBS:-$(nproc)}"
