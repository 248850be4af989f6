// ssm-decompose preserves meaning: the reference interpreter gives the same
// results for the fused selective_scan (its own kernel) and for the
// decomposed form (discretize + affine_scan + linalg readout), on seeded data.
// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-run %s --function grouped_cm --seed 7 --output-dir %t/a
// RUN: ssm-opt %s -ssm-decompose -o %t/dec.mlir
// RUN: ssm-run %t/dec.mlir --function grouped_cm --seed 7 --expected %t/a/result0.npy --expected %t/a/result1.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// RUN: ssm-run %s --function const_tm --seed 9 --output-dir %t/b
// RUN: ssm-run %t/dec.mlir --function const_tm --seed 9 --expected %t/b/result0.npy --expected %t/b/result1.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// RUN: not grep ssm.selective_scan %t/dec.mlir

// CHECK: result0 max_abs={{.*}} PASS
// CHECK: result1 max_abs={{.*}} PASS

func.func @grouped_cm(%u: tensor<2x8x24xf32>, %dt: tensor<2x8x24xf32>, %A: tensor<8x4xf32>,
                      %B: tensor<2x2x4x24xf32>, %C: tensor<2x2x4x24xf32>, %D: tensor<8xf32>,
                      %z: tensor<2x8x24xf32>, %bias: tensor<8xf32>) -> (tensor<2x8x24xf32>, tensor<2x8x4xf32>) {
  %y, %h = ssm.selective_scan channel_major %u, %dt, %A, %B, %C D(%D) z(%z) delta_bias(%bias) {delta_softplus}
      : (tensor<2x8x24xf32>, tensor<2x8x24xf32>, tensor<8x4xf32>, tensor<2x2x4x24xf32>, tensor<2x2x4x24xf32>,
         tensor<8xf32>, tensor<2x8x24xf32>, tensor<8xf32>) -> (tensor<2x8x24xf32>, tensor<2x8x4xf32>)
  return %y, %h : tensor<2x8x24xf32>, tensor<2x8x4xf32>
}

func.func @const_tm(%u: tensor<1x16x6xf32>, %dt: tensor<1x16x6xf32>, %A: tensor<6x3xf32>,
                    %B: tensor<6x3xf32>, %C: tensor<1x16x3xf32>, %h0: tensor<1x6x3xf32>) -> (tensor<1x16x6xf32>, tensor<1x6x3xf32>) {
  %y, %h = ssm.selective_scan time_major %u, %dt, %A, %B, %C h0(%h0)
      : (tensor<1x16x6xf32>, tensor<1x16x6xf32>, tensor<6x3xf32>, tensor<6x3xf32>, tensor<1x16x3xf32>,
         tensor<1x6x3xf32>) -> (tensor<1x16x6xf32>, tensor<1x6x3xf32>)
  return %y, %h : tensor<1x16x6xf32>, tensor<1x6x3xf32>
}
