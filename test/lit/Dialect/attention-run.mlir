// ssm.attention and ssm.rope run on the reference interpreter and as
// compiled CPU kernels, and the two agree: 2 streams at positions 3 and 11
// of a 16-row cache (the second call ends on the last row), 4 query heads
// on 2 KV heads (GQA), D 12 and Dv 8 (not multiples of the vector width),
// with and without a sliding window of 4; RoPE in both pairings, the neox
// one on half the channels (partial rotary).
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

func.func @main(%q0: tensor<2x5x4x12xf32>, %k0: tensor<2x5x2x12xf32>, %v: tensor<2x5x2x8xf32>,
                %kc: tensor<2x16x2x12xf32>, %vc: tensor<2x16x2x8xf32>)
    -> (tensor<2x5x4x8xf32>, tensor<2x16x2x12xf32>, tensor<2x16x2x8xf32>, tensor<2x5x4x8xf32>,
        tensor<2x5x4x12xf32>, tensor<2x5x2x12xf32>) {
  %pos = arith.constant dense<[3, 11]> : tensor<2xi32>
  %q = ssm.rope neox %q0, %pos {theta = 10000.0 : f64, rotary_dim = 6 : i64}
      : (tensor<2x5x4x12xf32>, tensor<2xi32>) -> tensor<2x5x4x12xf32>
  %k = ssm.rope normal %k0, %pos {theta = 500.0 : f64, rotary_dim = 12 : i64}
      : (tensor<2x5x2x12xf32>, tensor<2xi32>) -> tensor<2x5x2x12xf32>
  %o, %kc1, %vc1 = ssm.attention %q, %k, %v, %kc, %vc, %pos {scale = 0.3 : f64}
      : (tensor<2x5x4x12xf32>, tensor<2x5x2x12xf32>, tensor<2x5x2x8xf32>,
         tensor<2x16x2x12xf32>, tensor<2x16x2x8xf32>, tensor<2xi32>)
      -> (tensor<2x5x4x8xf32>, tensor<2x16x2x12xf32>, tensor<2x16x2x8xf32>)
  %ow, %kc2, %vc2 = ssm.attention %q, %k, %v, %kc, %vc, %pos {scale = 0.3 : f64, window = 4 : i64}
      : (tensor<2x5x4x12xf32>, tensor<2x5x2x12xf32>, tensor<2x5x2x8xf32>,
         tensor<2x16x2x12xf32>, tensor<2x16x2x8xf32>, tensor<2xi32>)
      -> (tensor<2x5x4x8xf32>, tensor<2x16x2x12xf32>, tensor<2x16x2x8xf32>)
  return %o, %kc1, %vc1, %ow, %q, %k : tensor<2x5x4x8xf32>, tensor<2x16x2x12xf32>, tensor<2x16x2x8xf32>,
      tensor<2x5x4x8xf32>, tensor<2x5x4x12xf32>, tensor<2x5x2x12xf32>
}
