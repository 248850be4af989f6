// (Its long part, label full: gated-delta-rule-golden-long.full.mlir.)
// ssm.gated_delta_rule against an independent float64 NumPy implementation
// (Inputs/gated_delta_rule_golden.py: the paper's product form
// S_t = (I - beta k k^T) D_t S_{t-1} + beta k v^T, written apart from the
// reference routine), on the reference interpreter and the compiled CPU
// kernels: each function runs the op in its token-by-token form
// (#ssm.schedule<chunk = 0>) and in the chunked WY form (chunk 16, 64, and the
// default), all compared with the same expected outputs and final state.
// Inputs are made as Qwen3.5 makes them (L2-normalised q and k,
// g = -exp(A) softplus(x), beta = sigmoid(b)). Three cases: @gdn (two value
// heads per key head, scalar gate, initial state, L 65: chunks with a tail of
// one token), @kda (a gate per key channel, no initial state, L 64), @long
// (L 4096 in blocks of 256 tokens whose decay is near 1 or near 0 and whose
// beta is near 0 or near 1). Tolerance rtol 1e-4, atol 1e-5 on every output
// and final state element.
// REQUIRES: ssm-run, numpy
// RUN: %numpy_python %S/Inputs/gated_delta_rule_golden.py %t/gdn gdn
// RUN: %numpy_python %S/Inputs/gated_delta_rule_golden.py %t/kda kda
// RUN: ssm-run %s --function gdn --input %t/gdn/q.npy --input %t/gdn/k.npy --input %t/gdn/v.npy --input %t/gdn/g.npy --input %t/gdn/beta.npy --input %t/gdn/s0.npy --expected %t/gdn/out.npy --expected %t/gdn/final_state.npy --expected %t/gdn/out.npy --expected %t/gdn/final_state.npy --expected %t/gdn/out.npy --expected %t/gdn/final_state.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=GDN
// RUN: env SSM_CACHE_DIR=%cache ssm-run %s --function gdn --engine cpu --input %t/gdn/q.npy --input %t/gdn/k.npy --input %t/gdn/v.npy --input %t/gdn/g.npy --input %t/gdn/beta.npy --input %t/gdn/s0.npy --expected %t/gdn/out.npy --expected %t/gdn/final_state.npy --expected %t/gdn/out.npy --expected %t/gdn/final_state.npy --expected %t/gdn/out.npy --expected %t/gdn/final_state.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=GDN
// RUN: ssm-run %s --function kda --input %t/kda/q.npy --input %t/kda/k.npy --input %t/kda/v.npy --input %t/kda/g.npy --input %t/kda/beta.npy --expected %t/kda/out.npy --expected %t/kda/final_state.npy --expected %t/kda/out.npy --expected %t/kda/final_state.npy --expected %t/kda/out.npy --expected %t/kda/final_state.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=KDA
// RUN: env SSM_CACHE_DIR=%cache ssm-run %s --function kda --engine cpu --input %t/kda/q.npy --input %t/kda/k.npy --input %t/kda/v.npy --input %t/kda/g.npy --input %t/kda/beta.npy --expected %t/kda/out.npy --expected %t/kda/final_state.npy --expected %t/kda/out.npy --expected %t/kda/final_state.npy --expected %t/kda/out.npy --expected %t/kda/final_state.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=KDA
// GDN: result0{{.*}} PASS
// GDN: result1{{.*}} PASS
// GDN: result2{{.*}} PASS
// GDN: result3{{.*}} PASS
// GDN: result4{{.*}} PASS
// GDN: result5{{.*}} PASS
// KDA: result0{{.*}} PASS
// KDA: result1{{.*}} PASS
// KDA: result2{{.*}} PASS
// KDA: result3{{.*}} PASS
// KDA: result4{{.*}} PASS
// KDA: result5{{.*}} PASS
// LONG: result0{{.*}} PASS
// LONG: result1{{.*}} PASS
// LONG: result2{{.*}} PASS
// LONG: result3{{.*}} PASS

// Token by token, chunks of 16 (five, the last holding one token), the default (64).
func.func @gdn(%q: tensor<2x65x2x16xf32>, %k: tensor<2x65x2x16xf32>, %v: tensor<2x65x4x12xf32>,
               %g: tensor<2x65x4xf32>, %beta: tensor<2x65x4xf32>, %s0: tensor<2x4x16x12xf32>)
    -> (tensor<2x65x4x12xf32>, tensor<2x4x16x12xf32>, tensor<2x65x4x12xf32>, tensor<2x4x16x12xf32>, tensor<2x65x4x12xf32>, tensor<2x4x16x12xf32>) {
  %o0, %f0 = ssm.gated_delta_rule %q, %k, %v, %g, %beta initial_state(%s0) {scale = 0.25 : f64, ssm.schedule = #ssm.schedule<chunk = 0>}
      : (tensor<2x65x2x16xf32>, tensor<2x65x2x16xf32>, tensor<2x65x4x12xf32>, tensor<2x65x4xf32>, tensor<2x65x4xf32>, tensor<2x4x16x12xf32>)
      -> (tensor<2x65x4x12xf32>, tensor<2x4x16x12xf32>)
  %o1, %f1 = ssm.gated_delta_rule %q, %k, %v, %g, %beta initial_state(%s0) {scale = 0.25 : f64, ssm.schedule = #ssm.schedule<chunk = 16>}
      : (tensor<2x65x2x16xf32>, tensor<2x65x2x16xf32>, tensor<2x65x4x12xf32>, tensor<2x65x4xf32>, tensor<2x65x4xf32>, tensor<2x4x16x12xf32>)
      -> (tensor<2x65x4x12xf32>, tensor<2x4x16x12xf32>)
  %o2, %f2 = ssm.gated_delta_rule %q, %k, %v, %g, %beta initial_state(%s0) {scale = 0.25 : f64}
      : (tensor<2x65x2x16xf32>, tensor<2x65x2x16xf32>, tensor<2x65x4x12xf32>, tensor<2x65x4xf32>, tensor<2x65x4xf32>, tensor<2x4x16x12xf32>)
      -> (tensor<2x65x4x12xf32>, tensor<2x4x16x12xf32>)
  return %o0, %f0, %o1, %f1, %o2, %f2 : tensor<2x65x4x12xf32>, tensor<2x4x16x12xf32>, tensor<2x65x4x12xf32>, tensor<2x4x16x12xf32>, tensor<2x65x4x12xf32>, tensor<2x4x16x12xf32>
}

// Token by token, the default (16: four whole chunks), one chunk of 64.
func.func @kda(%q: tensor<1x64x3x8xf32>, %k: tensor<1x64x3x8xf32>, %v: tensor<1x64x3x16xf32>,
               %g: tensor<1x64x3x8xf32>, %beta: tensor<1x64x3xf32>)
    -> (tensor<1x64x3x16xf32>, tensor<1x3x8x16xf32>, tensor<1x64x3x16xf32>, tensor<1x3x8x16xf32>, tensor<1x64x3x16xf32>, tensor<1x3x8x16xf32>) {
  %o0, %f0 = ssm.gated_delta_rule %q, %k, %v, %g, %beta {scale = 0.35355339059327373 : f64, ssm.schedule = #ssm.schedule<chunk = 0>}
      : (tensor<1x64x3x8xf32>, tensor<1x64x3x8xf32>, tensor<1x64x3x16xf32>, tensor<1x64x3x8xf32>, tensor<1x64x3xf32>)
      -> (tensor<1x64x3x16xf32>, tensor<1x3x8x16xf32>)
  %o1, %f1 = ssm.gated_delta_rule %q, %k, %v, %g, %beta {scale = 0.35355339059327373 : f64}
      : (tensor<1x64x3x8xf32>, tensor<1x64x3x8xf32>, tensor<1x64x3x16xf32>, tensor<1x64x3x8xf32>, tensor<1x64x3xf32>)
      -> (tensor<1x64x3x16xf32>, tensor<1x3x8x16xf32>)
  %o2, %f2 = ssm.gated_delta_rule %q, %k, %v, %g, %beta {scale = 0.35355339059327373 : f64, ssm.schedule = #ssm.schedule<chunk = 64>}
      : (tensor<1x64x3x8xf32>, tensor<1x64x3x8xf32>, tensor<1x64x3x16xf32>, tensor<1x64x3x8xf32>, tensor<1x64x3xf32>)
      -> (tensor<1x64x3x16xf32>, tensor<1x3x8x16xf32>)
  return %o0, %f0, %o1, %f1, %o2, %f2 : tensor<1x64x3x16xf32>, tensor<1x3x8x16xf32>, tensor<1x64x3x16xf32>, tensor<1x3x8x16xf32>, tensor<1x64x3x16xf32>, tensor<1x3x8x16xf32>
}

// Token by token and the default (64).
func.func @long(%q: tensor<1x4096x1x16xf32>, %k: tensor<1x4096x1x16xf32>, %v: tensor<1x4096x2x16xf32>,
               %g: tensor<1x4096x2xf32>, %beta: tensor<1x4096x2xf32>, %s0: tensor<1x2x16x16xf32>)
    -> (tensor<1x4096x2x16xf32>, tensor<1x2x16x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x2x16x16xf32>) {
  %o0, %f0 = ssm.gated_delta_rule %q, %k, %v, %g, %beta initial_state(%s0) {scale = 0.25 : f64, ssm.schedule = #ssm.schedule<chunk = 0>}
      : (tensor<1x4096x1x16xf32>, tensor<1x4096x1x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x4096x2xf32>, tensor<1x4096x2xf32>, tensor<1x2x16x16xf32>)
      -> (tensor<1x4096x2x16xf32>, tensor<1x2x16x16xf32>)
  %o1, %f1 = ssm.gated_delta_rule %q, %k, %v, %g, %beta initial_state(%s0) {scale = 0.25 : f64}
      : (tensor<1x4096x1x16xf32>, tensor<1x4096x1x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x4096x2xf32>, tensor<1x4096x2xf32>, tensor<1x2x16x16xf32>)
      -> (tensor<1x4096x2x16xf32>, tensor<1x2x16x16xf32>)
  return %o0, %f0, %o1, %f1 : tensor<1x4096x2x16xf32>, tensor<1x2x16x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x2x16x16xf32>
}
