// ssm.wkv4 runs on the reference interpreter and as a compiled CPU kernel,
// and the two agree: with the state operands and without (rwkv.cpp's
// initial state), at large exponents (k scaled to about +-60, far past
// where an unstabilised exp(k) would lose every digit in f32 sums), and with
// a channel count that is not a multiple of the vector width.
// REQUIRES: ssm-run
// RUN: env SSM_CACHE_DIR=%cache ssm-run %s --seed 5 --engine cpu --check --rtol 1e-4 --atol 1e-5 | FileCheck %s
// RUN: ssm-run %s --seed 5 | FileCheck %s --check-prefix=REF

// CHECK: result0_vs_reference {{.*}} PASS
// CHECK: result1_vs_reference {{.*}} PASS
// CHECK: result2_vs_reference {{.*}} PASS
// CHECK: result3_vs_reference {{.*}} PASS
// CHECK: result4_vs_reference {{.*}} PASS
// CHECK: result5_vs_reference {{.*}} PASS
// REF-COUNT-6: result{{[0-5]}}

func.func @main(%w0: tensor<20xf32> {ssm.param = "w"}, %u: tensor<20xf32> {ssm.param = "u"},
                %k0: tensor<2x37x20xf32>, %v: tensor<2x37x20xf32>,
                %aa: tensor<2x20xf32>, %bb0: tensor<2x20xf32>, %pp: tensor<2x20xf32>)
    -> (tensor<2x37x20xf32>, tensor<2x20xf32>, tensor<2x20xf32>, tensor<2x20xf32>,
        tensor<2x37x20xf32>, tensor<2x20xf32>) {
  // w = -exp(w0) < 0 (rwkv.cpp's time_decay), bb > 0, k large.
  %w = math.exp %w0 : tensor<20xf32>
  %wn = arith.negf %w : tensor<20xf32>
  %bb = math.exp %bb0 : tensor<2x20xf32>
  %scale = arith.constant dense<120.0> : tensor<2x37x20xf32>
  %k = arith.mulf %k0, %scale : tensor<2x37x20xf32>
  %wkv, %aa1, %bb1, %pp1 = ssm.wkv4 %wn, %u, %k, %v state(%aa, %bb, %pp)
      : (tensor<20xf32>, tensor<20xf32>, tensor<2x37x20xf32>, tensor<2x37x20xf32>,
         tensor<2x20xf32>, tensor<2x20xf32>, tensor<2x20xf32>)
      -> (tensor<2x37x20xf32>, tensor<2x20xf32>, tensor<2x20xf32>, tensor<2x20xf32>)
  %wkv0, %aa0, %bb2, %pp0 = ssm.wkv4 %wn, %u, %k0, %v
      : (tensor<20xf32>, tensor<20xf32>, tensor<2x37x20xf32>, tensor<2x37x20xf32>)
      -> (tensor<2x37x20xf32>, tensor<2x20xf32>, tensor<2x20xf32>, tensor<2x20xf32>)
  return %wkv, %aa1, %bb1, %pp1, %wkv0, %bb2
      : tensor<2x37x20xf32>, tensor<2x20xf32>, tensor<2x20xf32>, tensor<2x20xf32>,
        tensor<2x37x20xf32>, tensor<2x20xf32>
}
