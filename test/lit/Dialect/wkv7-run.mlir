// ssm.wkv7 runs on the reference interpreter and as a compiled CPU kernel,
// and the two agree: with an initial state, 3 heads of 12 (not a multiple of
// the vector width) and 2 batches over 37 tokens, and without one at the
// head size of the tiny RWKV-7 (64). The decay is log-space (w = -exp(w0) <
// 0) and a, b are scaled so that the state stays bounded.
// REQUIRES: ssm-run
// RUN: env SSM_CACHE_DIR=%cache ssm-run %s --seed 3 --engine cpu --check --rtol 1e-4 --atol 1e-5 | FileCheck %s
// RUN: ssm-run %s --seed 3 | FileCheck %s --check-prefix=REF

// CHECK: result0_vs_reference {{.*}} PASS
// CHECK: result1_vs_reference {{.*}} PASS
// CHECK: result2_vs_reference {{.*}} PASS
// CHECK: result3_vs_reference {{.*}} PASS
// REF-COUNT-4: result{{[0-3]}}

func.func @main(%r: tensor<2x37x3x12xf32>, %w0: tensor<2x37x3x12xf32>, %k: tensor<2x37x3x12xf32>,
                %v: tensor<2x37x3x12xf32>, %a0: tensor<2x37x3x12xf32>, %b0: tensor<2x37x3x12xf32>,
                %s0: tensor<2x3x12x12xf32>, %x: tensor<1x5x1x64xf32>)
    -> (tensor<2x37x3x12xf32>, tensor<2x3x12x12xf32>, tensor<1x5x1x64xf32>, tensor<1x1x64x64xf32>) {
  %e = math.exp %w0 : tensor<2x37x3x12xf32>
  %w = arith.negf %e : tensor<2x37x3x12xf32>
  %scale = arith.constant dense<0.6> : tensor<2x37x3x12xf32>
  %a = arith.mulf %a0, %scale : tensor<2x37x3x12xf32>
  %b = arith.mulf %b0, %scale : tensor<2x37x3x12xf32>
  %y, %s1 = ssm.wkv7 %r, %w, %k, %v, %a, %b initial_state(%s0)
      : (tensor<2x37x3x12xf32>, tensor<2x37x3x12xf32>, tensor<2x37x3x12xf32>, tensor<2x37x3x12xf32>,
         tensor<2x37x3x12xf32>, tensor<2x37x3x12xf32>, tensor<2x3x12x12xf32>)
      -> (tensor<2x37x3x12xf32>, tensor<2x3x12x12xf32>)
  %x8 = arith.constant dense<0.125> : tensor<1x5x1x64xf32>
  %xs = arith.mulf %x, %x8 : tensor<1x5x1x64xf32>
  %y2, %s2 = ssm.wkv7 %x, %xs, %x, %x, %xs, %xs
      : (tensor<1x5x1x64xf32>, tensor<1x5x1x64xf32>, tensor<1x5x1x64xf32>, tensor<1x5x1x64xf32>,
         tensor<1x5x1x64xf32>, tensor<1x5x1x64xf32>) -> (tensor<1x5x1x64xf32>, tensor<1x1x64x64xf32>)
  return %y, %s1, %y2, %s2
      : tensor<2x37x3x12xf32>, tensor<2x3x12x12xf32>, tensor<1x5x1x64xf32>, tensor<1x1x64x64xf32>
}
