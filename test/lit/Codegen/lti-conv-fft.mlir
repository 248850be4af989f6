// ssm.lti_conv compiled with algorithm = fft and = direct against the reference
// interpreter's direct f64 sum, for L in {1, 2, 1000, 16384} (3 channels, D,
// 2 batches below 16384). Seeded data: u, K, D uniform(-0.5, 0.5).
// Tolerance: the FFT bound of codegen/kernels/LtiConvFftKernel.h,
// |err| <= log2(n) 2^-24 ||u||_2 ||K||_2 with n = 2^ceil(log2 2L) and
// ||u||_2 ||K||_2 ~ L / 12 for this data (x 1.2 for the spread of the seeded
// norms), plus 2^-23 max|D u| = 3e-8 for the skip term: atol =
// 3.6e-8 (L 1), 5.4e-8 (L 2), 6.6e-5 (L 1000), 1.5e-3 (L 16384), rtol 0.
// The direct f32 sum meets the same bound here (its error grows like
// sqrt(L) eps ||u|| ||K|| for random data).
// REQUIRES: ssm-run
// RUN: env SSM_CACHE_DIR=%cache ssm-run %s --function l1 --seed 1 --engine cpu --check --rtol 0 --atol 3.6e-8 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %s --function l2 --seed 2 --engine cpu --check --rtol 0 --atol 5.4e-8 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %s --function l1000 --seed 1000 --engine cpu --check --rtol 0 --atol 6.6e-5 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %s --function l16384 --seed 16384 --engine cpu --check --rtol 0 --atol 1.5e-3 | FileCheck %s

// CHECK: result0_vs_reference {{.*}} PASS
// CHECK: result1_vs_reference {{.*}} PASS

func.func @l1(%u: tensor<2x3x1xf32>, %K: tensor<3x1xf32>, %D: tensor<3xf32>) -> (tensor<2x3x1xf32>, tensor<2x3x1xf32>) {
  %fft = ssm.lti_conv fft %u, %K D(%D) : (tensor<2x3x1xf32>, tensor<3x1xf32>, tensor<3xf32>) -> tensor<2x3x1xf32>
  %direct = ssm.lti_conv direct %u, %K D(%D) : (tensor<2x3x1xf32>, tensor<3x1xf32>, tensor<3xf32>) -> tensor<2x3x1xf32>
  return %fft, %direct : tensor<2x3x1xf32>, tensor<2x3x1xf32>
}

func.func @l2(%u: tensor<2x3x2xf32>, %K: tensor<3x2xf32>, %D: tensor<3xf32>) -> (tensor<2x3x2xf32>, tensor<2x3x2xf32>) {
  %fft = ssm.lti_conv fft %u, %K D(%D) : (tensor<2x3x2xf32>, tensor<3x2xf32>, tensor<3xf32>) -> tensor<2x3x2xf32>
  %direct = ssm.lti_conv direct %u, %K D(%D) : (tensor<2x3x2xf32>, tensor<3x2xf32>, tensor<3xf32>) -> tensor<2x3x2xf32>
  return %fft, %direct : tensor<2x3x2xf32>, tensor<2x3x2xf32>
}

func.func @l1000(%u: tensor<2x3x1000xf32>, %K: tensor<3x1000xf32>, %D: tensor<3xf32>) -> (tensor<2x3x1000xf32>, tensor<2x3x1000xf32>) {
  %fft = ssm.lti_conv fft %u, %K D(%D) : (tensor<2x3x1000xf32>, tensor<3x1000xf32>, tensor<3xf32>) -> tensor<2x3x1000xf32>
  %direct = ssm.lti_conv direct %u, %K D(%D) : (tensor<2x3x1000xf32>, tensor<3x1000xf32>, tensor<3xf32>) -> tensor<2x3x1000xf32>
  return %fft, %direct : tensor<2x3x1000xf32>, tensor<2x3x1000xf32>
}

func.func @l16384(%u: tensor<1x3x16384xf32>, %K: tensor<3x16384xf32>, %D: tensor<3xf32>) -> (tensor<1x3x16384xf32>, tensor<1x3x16384xf32>) {
  %fft = ssm.lti_conv fft %u, %K D(%D) : (tensor<1x3x16384xf32>, tensor<3x16384xf32>, tensor<3xf32>) -> tensor<1x3x16384xf32>
  %direct = ssm.lti_conv direct %u, %K D(%D) : (tensor<1x3x16384xf32>, tensor<3x16384xf32>, tensor<3xf32>) -> tensor<1x3x16384xf32>
  return %fft, %direct : tensor<1x3x16384xf32>, tensor<1x3x16384xf32>
}
