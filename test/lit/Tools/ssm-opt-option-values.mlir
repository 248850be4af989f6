// An option given its value as the next argument (`--pass-pipeline X`, which
// cl::opt accepts) must not be taken for an input file: ssm-opt checks that
// the input exists only after the options are parsed.

// RUN: ssm-opt %s --pass-pipeline 'builtin.module(func.func(ssm-decompose))' | FileCheck %s
// RUN: ssm-opt %s --pass-pipeline='builtin.module(func.func(ssm-decompose))' | FileCheck %s

// CHECK-LABEL: func.func @f(
// CHECK: ssm.affine_scan
func.func @f(%u: tensor<1x8x40xf32>, %A: tensor<8x4xf32>, %B: tensor<8x4xf32>) -> tensor<1x8x40xf32> {
  %y, %h = ssm.selective_scan channel_major %u, %u, %A, %B, %B
      : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) -> (tensor<1x8x40xf32>, tensor<1x8x4xf32>)
  return %y : tensor<1x8x40xf32>
}
