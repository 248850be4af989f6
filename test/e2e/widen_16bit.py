#!/usr/bin/env python3
"""Compiled kernels read 16-bit weights exactly (codegen/kernels/Widen.h).

Every one of the 65536 f16 and the 65536 bf16 bit patterns goes through a
compiled ssm.dequantize (an f16 or bf16 argument read as f32, on the host
target: the F16C helper on x86-64, Halide's cast elsewhere) and the result
must be the IEEE 754 widening bit for bit (the expected values come from
Python's struct module, binary16 'e' and a 16-bit shift for bf16); NaN inputs
must give NaNs. Standard library only; needs a C compiler (cc) like the
examples.

Usage: widen_16bit.py <build/bin> <work dir>
"""
import math
import os
import struct
import subprocess
import sys

BIN, WORK = sys.argv[1], sys.argv[2]
N = 65536

GRAPH = """func.func @widen_f16(%w: tensor<65536xf16> {ssm.name = "w"}) -> tensor<65536xf32> {
  %d = ssm.dequantize %w : (tensor<65536xf16>) -> tensor<65536xf32>
  return %d : tensor<65536xf32>
}
func.func @widen_bf16(%w: tensor<65536xbf16> {ssm.name = "w"}) -> tensor<65536xf32> {
  %d = ssm.dequantize %w : (tensor<65536xbf16>) -> tensor<65536xf32>
  return %d : tensor<65536xf32>
}
"""

HARNESS = r"""#include "ssm_module.h"
#include <stdint.h>
#include <stdio.h>
#include <string.h>
static uint16_t in[65536];
static uint32_t out[65536];
static int run(int (*fn)(struct halide_buffer_t *, struct halide_buffer_t *), uint8_t code,
               FILE *f) {
  halide_dimension_t dim = {0, 65536, 1, 0};
  halide_buffer_t a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  a.host = (uint8_t *)in;
  a.type.code = code;
  a.type.bits = 16;
  a.type.lanes = 1;
  a.dimensions = 1;
  a.dim = &dim;
  b = a;
  b.host = (uint8_t *)out;
  b.type.code = halide_type_float;
  b.type.bits = 32;
  if (fn(&a, &b))
    return 1;
  return fwrite(out, 4, 65536, f) != 65536;
}
int main(int argc, char **argv) {
  FILE *f = fopen(argv[1], "wb");
  for (int i = 0; i < 65536; ++i)
    in[i] = (uint16_t)i;
  if (!f || run(ssm_widen_f16, halide_type_float, f) || run(ssm_widen_bf16, halide_type_bfloat, f))
    return 2;
  return fclose(f) != 0;
}
"""


def sh(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"FAILED: {' '.join(cmd)}\n{p.stdout}{p.stderr}")


os.makedirs(WORK, exist_ok=True)
graph, module = os.path.join(WORK, "widen.mlir"), os.path.join(WORK, "module")
with open(graph, "w") as f:
    f.write(GRAPH)
sh(["rm", "-rf", module])
sh([os.path.join(BIN, "ssm-compile"), graph, "-o", module])
with open(os.path.join(WORK, "harness.c"), "w") as f:
    f.write(HARNESS)
exe, raw = os.path.join(WORK, "widen"), os.path.join(WORK, "widen.bin")
sh([os.environ.get("CC", "cc"), "-O1", "-std=c11", "-I", module, os.path.join(WORK, "harness.c"),
    os.path.join(module, "ssm_module.a"), "-lpthread", "-ldl", "-lm", "-o", exe])
sh([exe, raw])
with open(raw, "rb") as f:
    got = struct.unpack(f"<{2 * N}I", f.read())

bad = []
for kind, base in (("f16", 0), ("bf16", N)):
    for h in range(N):
        if kind == "f16":
            want = struct.unpack("<e", struct.pack("<H", h))[0]
            want_bits = None if math.isnan(want) else struct.unpack("<I", struct.pack("<f", want))[0]
        else:
            want_bits = h << 16
            if (h & 0x7F80) == 0x7F80 and (h & 0x7F):
                want_bits = None  # NaN
        g = got[base + h]
        g_nan = (g & 0x7F800000) == 0x7F800000 and (g & 0x7FFFFF) != 0
        ok = g_nan if want_bits is None else g == want_bits
        if not ok:
            bad.append(f"{kind} 0x{h:04x}: got 0x{g:08x}, want {'NaN' if want_bits is None else hex(want_bits)}")
if bad:
    print(f"{len(bad)} of {2 * N} conversions wrong, first ones:")
    print("\n".join(bad[:20]))
    sys.exit(1)
print(f"widen_16bit: all {N} f16 and {N} bf16 bit patterns exact (NaNs NaN): PASS")
