// A module compiled for instructions this CPU lacks is refused when it is
// loaded, naming the feature (runtime/CpuFeatures.h), instead of dying with
// SIGILL in its first kernel. avx512_knl (Knights Landing's AVX512ER/PF) is
// on no CPU this runs on.
// REQUIRES: ssm-run
// RUN: not env SSM_CACHE_DIR=%cache ssm-run %s --seed 1 --engine cpu --target x86-64-linux-avx512_knl 2>&1 | FileCheck %s
// CHECK: ssm-run: error: {{.*}}: compiled for x86-64-linux-avx512_knl, and this CPU cannot run its 'avx512_knl' instructions (compile it here with --target host)
//
// The host target only names what this CPU runs (see also
// ssm-compile-targets.mlir): the same graph runs and agrees.
// RUN: env SSM_CACHE_DIR=%cache ssm-run %s --seed 1 --engine cpu --check | FileCheck %s --check-prefix=HOST
// HOST: result0_vs_reference {{.*}} PASS

func.func @main(%x: tensor<64xf32>, %h: tensor<64xf16> {ssm.name = "h"}) -> tensor<64xf32> {
  %d = ssm.dequantize %h : (tensor<64xf16>) -> tensor<64xf32>
  %e = tensor.empty() : tensor<64xf32>
  %s = linalg.add ins(%x, %d : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  return %s : tensor<64xf32>
}
