// Compiled CPU kernels agree with the reference interpreter on graphs of
// upstream ops (matmuls, norms, slices, reshapes, concat, transposes) and on
// the example Mamba-1 layer.
// RUN: env SSM_CACHE_DIR=%cache ssm-run %s --seed 3 --engine cpu --check --rtol 1e-4 --atol 1e-5 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %S/../../../examples/mamba1_layer.mlir --seed 0 --engine cpu --check --rtol 1e-4 --atol 1e-6 | FileCheck %s --check-prefix=LAYER

// CHECK: result0_vs_reference {{.*}} PASS
// CHECK: result1_vs_reference {{.*}} PASS
// CHECK: result2_vs_reference {{.*}} PASS
// CHECK: result3_vs_reference {{.*}} PASS
// LAYER: result0_vs_reference {{.*}} PASS

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @main(%x: tensor<40x24xf32>, %w: tensor<36x24xf32> {ssm.param = "w"}, %v: tensor<24x8xf32> {ssm.param = "v"})
    -> (tensor<40x36xf32>, tensor<40xf32>, tensor<8x24x2xf32>, tensor<40x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<40x36xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<40x36xf32>) -> tensor<40x36xf32>
  %mt = linalg.matmul_transpose_b ins(%x, %w : tensor<40x24xf32>, tensor<36x24xf32>) outs(%f0 : tensor<40x36xf32>) -> tensor<40x36xf32>
  %e1 = tensor.empty() : tensor<40xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<40xf32>) -> tensor<40xf32>
  %ss = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<40x24xf32>) outs(%f1 : tensor<40xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  } -> tensor<40xf32>
  %r = math.rsqrt %ss : tensor<40xf32>
  %t0 = tensor.empty() : tensor<8x24xf32>
  %t = linalg.transpose ins(%v : tensor<24x8xf32>) outs(%t0 : tensor<8x24xf32>) permutation = [1, 0]
  %t3 = tensor.expand_shape %t [[0], [1, 2]] output_shape [8, 24, 1] : tensor<8x24xf32> into tensor<8x24x1xf32>
  %n3 = arith.negf %t3 : tensor<8x24x1xf32>
  %c = tensor.concat dim(2) %t3, %n3 : (tensor<8x24x1xf32>, tensor<8x24x1xf32>) -> tensor<8x24x2xf32>
  %sl = tensor.extract_slice %mt[0, 4] [40, 8] [1, 2] : tensor<40x36xf32> to tensor<40x8xf32>
  return %mt, %r, %c, %sl : tensor<40x36xf32>, tensor<40xf32>, tensor<8x24x2xf32>, tensor<40x8xf32>
}
