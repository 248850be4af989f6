// The L 4096 case (@long) of Dialect/wkv7-chunked-golden.mlir on both engines:
// label full (ctest lit.full); the short cases stay in the quick suite.
// ssm.wkv7's chunked form (#ssm.schedule<chunk = C>: the WY form, a
// triangular solve per chunk, Wkv7Kernel.h) and its token-by-token form
// (chunk 0) against an independent float64 NumPy implementation
// (Inputs/wkv7_chunked_golden.py: the matrix form of rwkv_v7_demo.py),
// on the reference interpreter (which runs the f64 reference routine
// whatever the chunk) and the compiled CPU kernels. Every function runs the
// same inputs in several forms, all compared with the same expected outputs
// and final state: @rwkv (RWKV-7-made inputs, 2 streams, L 70: chunks with
// tails; chunks 0, 1, 7 (no unrolling of the pass), 16, 64, the default),
// @head64 (N 64, RWKV-7's head size; chunks 0, 16, 32), @long (L 4096 in
// blocks of 256 tokens of decay near 0 (w about -30) or near 1 (w about
// -1e-4) and iclr near 0 or near 1, and 8 tokens at 1000, 2000, 3000 of large
// untied a, b; chunks 0, 16, 64). Tolerances: rtol 1e-4, atol 1e-5 (@long:
// atol 1e-4: its outputs reach 99, where the f32 serial form is 4.6e-5 off).
// REQUIRES: ssm-run, numpy
// RUN: %numpy_python %S/Inputs/wkv7_chunked_golden.py %t/long long
// RUN: ssm-run %s --function long --input %t/long/r.npy --input %t/long/w.npy --input %t/long/k.npy --input %t/long/v.npy --input %t/long/a.npy --input %t/long/b.npy --input %t/long/s0.npy --expected %t/long/y.npy --expected %t/long/final_state.npy --expected %t/long/y.npy --expected %t/long/final_state.npy --expected %t/long/y.npy --expected %t/long/final_state.npy --rtol 1e-4 --atol 1e-4 | FileCheck %s --check-prefix=LONG
// RUN: env SSM_CACHE_DIR=%cache ssm-run %s --function long --engine cpu --input %t/long/r.npy --input %t/long/w.npy --input %t/long/k.npy --input %t/long/v.npy --input %t/long/a.npy --input %t/long/b.npy --input %t/long/s0.npy --expected %t/long/y.npy --expected %t/long/final_state.npy --expected %t/long/y.npy --expected %t/long/final_state.npy --expected %t/long/y.npy --expected %t/long/final_state.npy --rtol 1e-4 --atol 1e-4 | FileCheck %s --check-prefix=LONG
// RWKV: result0{{.*}} PASS
// RWKV: result1{{.*}} PASS
// RWKV: result2{{.*}} PASS
// RWKV: result3{{.*}} PASS
// RWKV: result4{{.*}} PASS
// RWKV: result5{{.*}} PASS
// RWKV: result6{{.*}} PASS
// RWKV: result7{{.*}} PASS
// RWKV: result8{{.*}} PASS
// RWKV: result9{{.*}} PASS
// RWKV: result10{{.*}} PASS
// RWKV: result11{{.*}} PASS
// HEAD64: result0{{.*}} PASS
// HEAD64: result1{{.*}} PASS
// HEAD64: result2{{.*}} PASS
// HEAD64: result3{{.*}} PASS
// HEAD64: result4{{.*}} PASS
// HEAD64: result5{{.*}} PASS
// LONG: result0{{.*}} PASS
// LONG: result1{{.*}} PASS
// LONG: result2{{.*}} PASS
// LONG: result3{{.*}} PASS
// LONG: result4{{.*}} PASS
// LONG: result5{{.*}} PASS

// Token by token, chunks of 1, 7, 16, 64, the default.
func.func @rwkv(%r: tensor<2x70x2x16xf32>, %w: tensor<2x70x2x16xf32>, %k: tensor<2x70x2x16xf32>, %v: tensor<2x70x2x16xf32>, %a: tensor<2x70x2x16xf32>, %b: tensor<2x70x2x16xf32>, %s0: tensor<2x2x16x16xf32>)
    -> (tensor<2x70x2x16xf32>, tensor<2x2x16x16xf32>, tensor<2x70x2x16xf32>, tensor<2x2x16x16xf32>, tensor<2x70x2x16xf32>, tensor<2x2x16x16xf32>, tensor<2x70x2x16xf32>, tensor<2x2x16x16xf32>, tensor<2x70x2x16xf32>, tensor<2x2x16x16xf32>, tensor<2x70x2x16xf32>, tensor<2x2x16x16xf32>) {
  %y0, %f0 = ssm.wkv7 %r, %w, %k, %v, %a, %b initial_state(%s0) {ssm.schedule = #ssm.schedule<chunk = 0>}
      : (tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x2x16x16xf32>) -> (tensor<2x70x2x16xf32>, tensor<2x2x16x16xf32>)
  %y1, %f1 = ssm.wkv7 %r, %w, %k, %v, %a, %b initial_state(%s0) {ssm.schedule = #ssm.schedule<chunk = 1>}
      : (tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x2x16x16xf32>) -> (tensor<2x70x2x16xf32>, tensor<2x2x16x16xf32>)
  %y2, %f2 = ssm.wkv7 %r, %w, %k, %v, %a, %b initial_state(%s0) {ssm.schedule = #ssm.schedule<chunk = 7>}
      : (tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x2x16x16xf32>) -> (tensor<2x70x2x16xf32>, tensor<2x2x16x16xf32>)
  %y3, %f3 = ssm.wkv7 %r, %w, %k, %v, %a, %b initial_state(%s0) {ssm.schedule = #ssm.schedule<chunk = 16>}
      : (tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x2x16x16xf32>) -> (tensor<2x70x2x16xf32>, tensor<2x2x16x16xf32>)
  %y4, %f4 = ssm.wkv7 %r, %w, %k, %v, %a, %b initial_state(%s0) {ssm.schedule = #ssm.schedule<chunk = 64>}
      : (tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x2x16x16xf32>) -> (tensor<2x70x2x16xf32>, tensor<2x2x16x16xf32>)
  %y5, %f5 = ssm.wkv7 %r, %w, %k, %v, %a, %b initial_state(%s0)
      : (tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x70x2x16xf32>, tensor<2x2x16x16xf32>) -> (tensor<2x70x2x16xf32>, tensor<2x2x16x16xf32>)
  return %y0, %f0, %y1, %f1, %y2, %f2, %y3, %f3, %y4, %f4, %y5, %f5 : tensor<2x70x2x16xf32>, tensor<2x2x16x16xf32>, tensor<2x70x2x16xf32>, tensor<2x2x16x16xf32>, tensor<2x70x2x16xf32>, tensor<2x2x16x16xf32>, tensor<2x70x2x16xf32>, tensor<2x2x16x16xf32>, tensor<2x70x2x16xf32>, tensor<2x2x16x16xf32>, tensor<2x70x2x16xf32>, tensor<2x2x16x16xf32>
}

// Token by token, chunks of 16 and 32 at N 64.
func.func @head64(%r: tensor<1x300x2x64xf32>, %w: tensor<1x300x2x64xf32>, %k: tensor<1x300x2x64xf32>, %v: tensor<1x300x2x64xf32>, %a: tensor<1x300x2x64xf32>, %b: tensor<1x300x2x64xf32>, %s0: tensor<1x2x64x64xf32>)
    -> (tensor<1x300x2x64xf32>, tensor<1x2x64x64xf32>, tensor<1x300x2x64xf32>, tensor<1x2x64x64xf32>, tensor<1x300x2x64xf32>, tensor<1x2x64x64xf32>) {
  %y0, %f0 = ssm.wkv7 %r, %w, %k, %v, %a, %b initial_state(%s0) {ssm.schedule = #ssm.schedule<chunk = 0>}
      : (tensor<1x300x2x64xf32>, tensor<1x300x2x64xf32>, tensor<1x300x2x64xf32>, tensor<1x300x2x64xf32>, tensor<1x300x2x64xf32>, tensor<1x300x2x64xf32>, tensor<1x2x64x64xf32>) -> (tensor<1x300x2x64xf32>, tensor<1x2x64x64xf32>)
  %y1, %f1 = ssm.wkv7 %r, %w, %k, %v, %a, %b initial_state(%s0) {ssm.schedule = #ssm.schedule<chunk = 16>}
      : (tensor<1x300x2x64xf32>, tensor<1x300x2x64xf32>, tensor<1x300x2x64xf32>, tensor<1x300x2x64xf32>, tensor<1x300x2x64xf32>, tensor<1x300x2x64xf32>, tensor<1x2x64x64xf32>) -> (tensor<1x300x2x64xf32>, tensor<1x2x64x64xf32>)
  %y2, %f2 = ssm.wkv7 %r, %w, %k, %v, %a, %b initial_state(%s0) {ssm.schedule = #ssm.schedule<chunk = 32>}
      : (tensor<1x300x2x64xf32>, tensor<1x300x2x64xf32>, tensor<1x300x2x64xf32>, tensor<1x300x2x64xf32>, tensor<1x300x2x64xf32>, tensor<1x300x2x64xf32>, tensor<1x2x64x64xf32>) -> (tensor<1x300x2x64xf32>, tensor<1x2x64x64xf32>)
  return %y0, %f0, %y1, %f1, %y2, %f2 : tensor<1x300x2x64xf32>, tensor<1x2x64x64xf32>, tensor<1x300x2x64xf32>, tensor<1x2x64x64xf32>, tensor<1x300x2x64xf32>, tensor<1x2x64x64xf32>
}

// Token by token, chunks of 16 and 64 over 4096 tokens.
func.func @long(%r: tensor<1x4096x2x16xf32>, %w: tensor<1x4096x2x16xf32>, %k: tensor<1x4096x2x16xf32>, %v: tensor<1x4096x2x16xf32>, %a: tensor<1x4096x2x16xf32>, %b: tensor<1x4096x2x16xf32>, %s0: tensor<1x2x16x16xf32>)
    -> (tensor<1x4096x2x16xf32>, tensor<1x2x16x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x2x16x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x2x16x16xf32>) {
  %y0, %f0 = ssm.wkv7 %r, %w, %k, %v, %a, %b initial_state(%s0) {ssm.schedule = #ssm.schedule<chunk = 0>}
      : (tensor<1x4096x2x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x2x16x16xf32>) -> (tensor<1x4096x2x16xf32>, tensor<1x2x16x16xf32>)
  %y1, %f1 = ssm.wkv7 %r, %w, %k, %v, %a, %b initial_state(%s0) {ssm.schedule = #ssm.schedule<chunk = 16>}
      : (tensor<1x4096x2x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x2x16x16xf32>) -> (tensor<1x4096x2x16xf32>, tensor<1x2x16x16xf32>)
  %y2, %f2 = ssm.wkv7 %r, %w, %k, %v, %a, %b initial_state(%s0) {ssm.schedule = #ssm.schedule<chunk = 64>}
      : (tensor<1x4096x2x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x2x16x16xf32>) -> (tensor<1x4096x2x16xf32>, tensor<1x2x16x16xf32>)
  return %y0, %f0, %y1, %f1, %y2, %f2 : tensor<1x4096x2x16xf32>, tensor<1x2x16x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x2x16x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x2x16x16xf32>
}
