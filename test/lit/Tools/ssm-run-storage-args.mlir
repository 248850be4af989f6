// Graph arguments kept in a storage type (f16, bf16, int8: the weights
// ssm.dequantize reads) reach the compiled kernels as those bytes: --seed
// fills int8 ones with integers in [-127, 127], and the cpu engine agrees
// with the reference exactly (it read a null buffer, all zeros, before).
// REQUIRES: ssm-run
// RUN: env SSM_CACHE_DIR=%cache ssm-run %s --seed 3 --engine cpu --check --rtol 0 --atol 0 | FileCheck %s
// CHECK: result0_vs_reference max_abs=0 {{.*}} PASS
// CHECK: result1_vs_reference max_abs=0 {{.*}} PASS
// CHECK: result2_vs_reference max_abs=0 {{.*}} PASS
//
// An int8 argument given values that are not int8 integers is refused,
// naming it and the element.
// RUN: python3 %S/Inputs/npy_fill.py %t.half.npy 0.5 4x64
// RUN: not env SSM_CACHE_DIR=%cache ssm-run %s --input q=%t.half.npy --seed 3 --engine cpu 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: argument 'q' is int8, but its element 0 is 0.500000 (not an integer in [-128, 127])

func.func @main(%q: tensor<4x64xi8> {ssm.name = "q"}, %s: tensor<4x2xf16> {ssm.name = "s"},
                %b: tensor<4x8xbf16> {ssm.name = "b"}, %h: tensor<16xf16> {ssm.name = "h"})
    -> (tensor<4x64xf32>, tensor<4x8xf32>, tensor<16xf32>) {
  %d = ssm.dequantize %q, %s : (tensor<4x64xi8>, tensor<4x2xf16>) -> tensor<4x64xf32>
  %e = ssm.dequantize %b : (tensor<4x8xbf16>) -> tensor<4x8xf32>
  %g = ssm.dequantize %h : (tensor<16xf16>) -> tensor<16xf32>
  return %d, %e, %g : tensor<4x64xf32>, tensor<4x8xf32>, tensor<16xf32>
}
