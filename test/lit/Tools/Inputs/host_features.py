#!/usr/bin/env python3
"""Checks that a resolved host target names no x86 feature this CPU lacks.

Reads the target string (ssm-compile --print-target) on stdin and this CPU's
flags from /proc/cpuinfo. Halide 14 reads AVX-VNNI plus AVX512-BF16 as
avx512_sapphirerapids, which lets LLVM emit AVX512-FP16 (vcvtph2psx) that
AMD Zen 5 cannot run; the feature must be dropped unless the CPU has
avx512_fp16. Prints "host target: OK" or the offending feature.
"""
import sys

target = sys.stdin.read().strip()
flags = set()
try:
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
except OSError:
    pass
features = target.split("-")
# Halide feature -> the cpuinfo flag the CPU must have for code built with it.
needs = {"avx512_sapphirerapids": "avx512_fp16", "avx512": "avx512f", "avx2": "avx2",
         "fma": "fma", "f16c": "f16c", "avx": "avx", "sse41": "sse4_1"}
bad = [f for f in features if f in needs and flags and needs[f] not in flags]
if bad:
    print(f"host target {target}: {', '.join(bad)} needs CPU flags this CPU lacks")
    sys.exit(1)
print("host target: OK")
