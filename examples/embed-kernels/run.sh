#!/bin/sh
# Builds and runs the example: two graphs compiled with different --name, linked into one C program.
# usage: run.sh <folder with ssm-compile> [work folder]
set -eu
bin=${1:?usage: run.sh <folder with ssm-compile> [work folder]}
work=${2:-$(mktemp -d)}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work/short" "$work/long"
"$bin/ssm-compile" "$here/short_scan.mlir" --name short_scan -o "$work/short"
"$bin/ssm-compile" "$here/long_scan.mlir" --name long_scan -o "$work/long"
# Each folder carries HalideRuntime.h; both static libraries hold Halide's runtime,
# whose symbols are weak, so they link together.
${CC:-cc} -O2 -std=c11 -Wall -I"$work/short" -I"$work/long" "$here/main.c" \
  "$work/short/short_scan.a" "$work/long/long_scan.a" -lpthread -ldl -lm -o "$work/embed-kernels"
# The chunk the long scan is called with is in its manifest ("time_chunking").
chunk=$(sed -n 's/^ *"chunk": \([0-9]*\).*/\1/p' "$work/long/manifest.json")
"$work/embed-kernels" "$chunk"
