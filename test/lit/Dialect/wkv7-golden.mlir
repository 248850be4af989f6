// ssm.wkv7 against stored data (golden-style): Inputs/wkv7_golden holds
// RWKV-7-like inputs (w = -exp(-0.5) sigmoid(.), kk L2-normalised per head,
// a = -kk, b = kk * iclr, a random initial state; (1, 33, 2, 16)) and the
// outputs of an independent float64 NumPy implementation of the reference
// code's matrix form (BlinkDL/RWKV-LM RWKV-v7/rwkv_v7_demo.py:
// state = state * w + state @ (a b^T) + v k^T; y = state @ r). Both engines
// meet rtol 1e-4 / atol 1e-5.
// REQUIRES: ssm-run
// RUN: ssm-run %s --input %S/Inputs/wkv7_golden/r.npy --input %S/Inputs/wkv7_golden/w.npy --input %S/Inputs/wkv7_golden/k.npy --input %S/Inputs/wkv7_golden/v.npy --input %S/Inputs/wkv7_golden/a.npy --input %S/Inputs/wkv7_golden/b.npy --input %S/Inputs/wkv7_golden/s0.npy --expected %S/Inputs/wkv7_golden/y.npy --expected %S/Inputs/wkv7_golden/final_state.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %s --engine cpu --input %S/Inputs/wkv7_golden/r.npy --input %S/Inputs/wkv7_golden/w.npy --input %S/Inputs/wkv7_golden/k.npy --input %S/Inputs/wkv7_golden/v.npy --input %S/Inputs/wkv7_golden/a.npy --input %S/Inputs/wkv7_golden/b.npy --input %S/Inputs/wkv7_golden/s0.npy --expected %S/Inputs/wkv7_golden/y.npy --expected %S/Inputs/wkv7_golden/final_state.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// CHECK: result0{{.*}} PASS
// CHECK: result1{{.*}} PASS

func.func @main(%r: tensor<1x33x2x16xf32>, %w: tensor<1x33x2x16xf32>, %k: tensor<1x33x2x16xf32>,
                %v: tensor<1x33x2x16xf32>, %a: tensor<1x33x2x16xf32>, %b: tensor<1x33x2x16xf32>,
                %s0: tensor<1x2x16x16xf32>) -> (tensor<1x33x2x16xf32>, tensor<1x2x16x16xf32>) {
  %y, %s1 = ssm.wkv7 %r, %w, %k, %v, %a, %b initial_state(%s0)
      : (tensor<1x33x2x16xf32>, tensor<1x33x2x16xf32>, tensor<1x33x2x16xf32>, tensor<1x33x2x16xf32>,
         tensor<1x33x2x16xf32>, tensor<1x33x2x16xf32>, tensor<1x2x16x16xf32>)
      -> (tensor<1x33x2x16xf32>, tensor<1x2x16x16xf32>)
  return %y, %s1 : tensor<1x33x2x16xf32>, tensor<1x2x16x16xf32>
}
