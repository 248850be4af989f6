#!/bin/sh
# Builds and runs the sensor-stream example. usage: run.sh <folder with ssm-compile> [work folder] [readings]
set -eu
bin=${1:?usage: run.sh <folder with ssm-compile> [work folder] [readings]}
work=${2:-$(mktemp -d)}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work/sensor"
"$bin/ssm-compile" "$here/filter.mlir" --name sensor -o "$work/sensor"
${CC:-cc} -O2 -std=c11 -Wall -I"$work/sensor" "$here/sensor.c" "$work/sensor/sensor.a" \
  -lpthread -ldl -lm -o "$work/sensor-stream"
"$work/sensor-stream" ${3:-1000000}
