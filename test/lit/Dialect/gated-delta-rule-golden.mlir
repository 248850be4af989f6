// ssm.gated_delta_rule against an independent float64 NumPy implementation
// (Inputs/gated_delta_rule_golden.py: the paper's product form
// S_t = (I - beta k k^T) D_t S_{t-1} + beta k v^T, written apart from the
// reference routine), on the reference interpreter and the compiled CPU
// kernel. Inputs are made as Qwen3.5 makes them (L2-normalised q and k,
// g = -exp(A) softplus(x), beta = sigmoid(b)). Three cases: @gdn (two value
// heads per key head, scalar gate, initial state, L 65), @kda (a gate per key
// channel, no initial state, L 64), @long (L 4096 in blocks whose decay is
// near 1 or near 0 and whose beta is near 0 or near 1). Tolerance rtol 1e-4,
// atol 1e-5 on every output and final state element.
// REQUIRES: ssm-run, numpy
// RUN: %numpy_python %S/Inputs/gated_delta_rule_golden.py %t/gdn gdn
// RUN: %numpy_python %S/Inputs/gated_delta_rule_golden.py %t/kda kda
// RUN: %numpy_python %S/Inputs/gated_delta_rule_golden.py %t/long long
// RUN: ssm-run %s --function gdn --input %t/gdn/q.npy --input %t/gdn/k.npy --input %t/gdn/v.npy --input %t/gdn/g.npy --input %t/gdn/beta.npy --input %t/gdn/s0.npy --expected %t/gdn/out.npy --expected %t/gdn/final_state.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%t.cache ssm-run %s --function gdn --engine cpu --input %t/gdn/q.npy --input %t/gdn/k.npy --input %t/gdn/v.npy --input %t/gdn/g.npy --input %t/gdn/beta.npy --input %t/gdn/s0.npy --expected %t/gdn/out.npy --expected %t/gdn/final_state.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// RUN: ssm-run %s --function kda --input %t/kda/q.npy --input %t/kda/k.npy --input %t/kda/v.npy --input %t/kda/g.npy --input %t/kda/beta.npy --expected %t/kda/out.npy --expected %t/kda/final_state.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%t.cache ssm-run %s --function kda --engine cpu --input %t/kda/q.npy --input %t/kda/k.npy --input %t/kda/v.npy --input %t/kda/g.npy --input %t/kda/beta.npy --expected %t/kda/out.npy --expected %t/kda/final_state.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// RUN: ssm-run %s --function long --input %t/long/q.npy --input %t/long/k.npy --input %t/long/v.npy --input %t/long/g.npy --input %t/long/beta.npy --input %t/long/s0.npy --expected %t/long/out.npy --expected %t/long/final_state.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%t.cache ssm-run %s --function long --engine cpu --input %t/long/q.npy --input %t/long/k.npy --input %t/long/v.npy --input %t/long/g.npy --input %t/long/beta.npy --input %t/long/s0.npy --expected %t/long/out.npy --expected %t/long/final_state.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// CHECK: result0{{.*}} PASS
// CHECK: result1{{.*}} PASS

func.func @gdn(%q: tensor<2x65x2x16xf32>, %k: tensor<2x65x2x16xf32>, %v: tensor<2x65x4x12xf32>,
               %g: tensor<2x65x4xf32>, %beta: tensor<2x65x4xf32>, %s0: tensor<2x4x16x12xf32>)
    -> (tensor<2x65x4x12xf32>, tensor<2x4x16x12xf32>) {
  %o, %s1 = ssm.gated_delta_rule %q, %k, %v, %g, %beta initial_state(%s0) {scale = 0.25 : f64}
      : (tensor<2x65x2x16xf32>, tensor<2x65x2x16xf32>, tensor<2x65x4x12xf32>, tensor<2x65x4xf32>,
         tensor<2x65x4xf32>, tensor<2x4x16x12xf32>) -> (tensor<2x65x4x12xf32>, tensor<2x4x16x12xf32>)
  return %o, %s1 : tensor<2x65x4x12xf32>, tensor<2x4x16x12xf32>
}

func.func @kda(%q: tensor<1x64x3x8xf32>, %k: tensor<1x64x3x8xf32>, %v: tensor<1x64x3x16xf32>,
               %g: tensor<1x64x3x8xf32>, %beta: tensor<1x64x3xf32>)
    -> (tensor<1x64x3x16xf32>, tensor<1x3x8x16xf32>) {
  %o, %s1 = ssm.gated_delta_rule %q, %k, %v, %g, %beta {scale = 0.35355339059327373 : f64}
      : (tensor<1x64x3x8xf32>, tensor<1x64x3x8xf32>, tensor<1x64x3x16xf32>, tensor<1x64x3x8xf32>,
         tensor<1x64x3xf32>) -> (tensor<1x64x3x16xf32>, tensor<1x3x8x16xf32>)
  return %o, %s1 : tensor<1x64x3x16xf32>, tensor<1x3x8x16xf32>
}

func.func @long(%q: tensor<1x4096x1x16xf32>, %k: tensor<1x4096x1x16xf32>, %v: tensor<1x4096x2x16xf32>,
                %g: tensor<1x4096x2xf32>, %beta: tensor<1x4096x2xf32>, %s0: tensor<1x2x16x16xf32>)
    -> (tensor<1x4096x2x16xf32>, tensor<1x2x16x16xf32>) {
  %o, %s1 = ssm.gated_delta_rule %q, %k, %v, %g, %beta initial_state(%s0) {scale = 0.25 : f64}
      : (tensor<1x4096x1x16xf32>, tensor<1x4096x1x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x4096x2xf32>,
         tensor<1x4096x2xf32>, tensor<1x2x16x16xf32>) -> (tensor<1x4096x2x16xf32>, tensor<1x2x16x16xf32>)
  return %o, %s1 : tensor<1x4096x2x16xf32>, tensor<1x2x16x16xf32>
}
