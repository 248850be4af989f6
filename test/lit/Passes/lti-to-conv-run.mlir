// ssm-lti-to-conv preserves meaning, and the three forms agree: a selective
// scan with constant delta (a (dim) step through delta_bias and softplus,
// about 0.01), B and C, with D, for L in {1, 2, 1000, 16384}:
// * on the reference engine, the rewritten graphs (direct and fft) give the
//   scan's result (rtol 1e-5, atol 1e-7: both are f64 inside, the files f32);
// * compiled, the scan, direct and FFT forms each match the scan's reference
//   result within rtol 1e-4, atol 1e-5 (the FFT bound of ssm.lti_conv,
//   log2(n) 2^-24 ||u|| ||K||, is below 4e-6 here; the f32 scan and kernel
//   evaluation add relative errors of order 1e-6).
// REQUIRES: ssm-run
// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-opt %s -ssm-lti-to-conv=algorithm=direct -o %t/direct.mlir
// RUN: ssm-opt %s -ssm-lti-to-conv=algorithm=fft -o %t/fft.mlir
// RUN: not grep -q selective_scan %t/direct.mlir
// RUN: grep -c "ssm.lti_conv fft" %t/fft.mlir | FileCheck %s --check-prefix=COUNT
// COUNT: 4
// RUN: ssm-run %s --function lti1 --seed 1 --output-dir %t/lti1
// RUN: ssm-run %t/direct.mlir --function lti1 --seed 1 --expected %t/lti1/result0.npy --rtol 1e-5 --atol 1e-7 | FileCheck %s
// RUN: ssm-run %t/fft.mlir --function lti1 --seed 1 --expected %t/lti1/result0.npy --rtol 1e-5 --atol 1e-7 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %s --function lti1 --seed 1 --engine cpu --expected %t/lti1/result0.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/direct.mlir --function lti1 --seed 1 --engine cpu --expected %t/lti1/result0.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/fft.mlir --function lti1 --seed 1 --engine cpu --expected %t/lti1/result0.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// RUN: ssm-run %s --function lti2 --seed 2 --output-dir %t/lti2
// RUN: ssm-run %t/direct.mlir --function lti2 --seed 2 --expected %t/lti2/result0.npy --rtol 1e-5 --atol 1e-7 | FileCheck %s
// RUN: ssm-run %t/fft.mlir --function lti2 --seed 2 --expected %t/lti2/result0.npy --rtol 1e-5 --atol 1e-7 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %s --function lti2 --seed 2 --engine cpu --expected %t/lti2/result0.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/direct.mlir --function lti2 --seed 2 --engine cpu --expected %t/lti2/result0.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/fft.mlir --function lti2 --seed 2 --engine cpu --expected %t/lti2/result0.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// RUN: ssm-run %s --function lti1000 --seed 1000 --output-dir %t/lti1000
// RUN: ssm-run %t/direct.mlir --function lti1000 --seed 1000 --expected %t/lti1000/result0.npy --rtol 1e-5 --atol 1e-7 | FileCheck %s
// RUN: ssm-run %t/fft.mlir --function lti1000 --seed 1000 --expected %t/lti1000/result0.npy --rtol 1e-5 --atol 1e-7 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %s --function lti1000 --seed 1000 --engine cpu --expected %t/lti1000/result0.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/direct.mlir --function lti1000 --seed 1000 --engine cpu --expected %t/lti1000/result0.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/fft.mlir --function lti1000 --seed 1000 --engine cpu --expected %t/lti1000/result0.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// RUN: ssm-run %s --function lti16384 --seed 16384 --output-dir %t/lti16384
// RUN: ssm-run %t/direct.mlir --function lti16384 --seed 16384 --expected %t/lti16384/result0.npy --rtol 1e-5 --atol 1e-7 | FileCheck %s
// RUN: ssm-run %t/fft.mlir --function lti16384 --seed 16384 --expected %t/lti16384/result0.npy --rtol 1e-5 --atol 1e-7 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %s --function lti16384 --seed 16384 --engine cpu --expected %t/lti16384/result0.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/direct.mlir --function lti16384 --seed 16384 --engine cpu --expected %t/lti16384/result0.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/fft.mlir --function lti16384 --seed 16384 --engine cpu --expected %t/lti16384/result0.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s

// CHECK: result0 max_abs={{.*}} PASS

func.func @lti1(%u: tensor<1x4x1xf32>, %Alog: tensor<4x8xf32>, %B: tensor<4x8xf32>, %C: tensor<4x8xf32>,
                 %dt0: tensor<4xf32>, %D: tensor<4xf32>) -> tensor<1x4x1xf32> {
  %e = math.exp %Alog : tensor<4x8xf32>
  %A = arith.negf %e : tensor<4x8xf32>
  %bias = arith.constant dense<-4.6> : tensor<4xf32>
  %init = tensor.empty() : tensor<1x4x1xf32>
  %dt = linalg.broadcast ins(%dt0 : tensor<4xf32>) outs(%init : tensor<1x4x1xf32>) dimensions = [0, 2]
  %y, %h = ssm.selective_scan channel_major %u, %dt, %A, %B, %C D(%D) delta_bias(%bias) {delta_softplus}
      : (tensor<1x4x1xf32>, tensor<1x4x1xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<1x4x1xf32>, tensor<1x4x8xf32>)
  return %y : tensor<1x4x1xf32>
}

func.func @lti2(%u: tensor<1x4x2xf32>, %Alog: tensor<4x8xf32>, %B: tensor<4x8xf32>, %C: tensor<4x8xf32>,
                 %dt0: tensor<4xf32>, %D: tensor<4xf32>) -> tensor<1x4x2xf32> {
  %e = math.exp %Alog : tensor<4x8xf32>
  %A = arith.negf %e : tensor<4x8xf32>
  %bias = arith.constant dense<-4.6> : tensor<4xf32>
  %init = tensor.empty() : tensor<1x4x2xf32>
  %dt = linalg.broadcast ins(%dt0 : tensor<4xf32>) outs(%init : tensor<1x4x2xf32>) dimensions = [0, 2]
  %y, %h = ssm.selective_scan channel_major %u, %dt, %A, %B, %C D(%D) delta_bias(%bias) {delta_softplus}
      : (tensor<1x4x2xf32>, tensor<1x4x2xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<1x4x2xf32>, tensor<1x4x8xf32>)
  return %y : tensor<1x4x2xf32>
}

func.func @lti1000(%u: tensor<1x4x1000xf32>, %Alog: tensor<4x8xf32>, %B: tensor<4x8xf32>, %C: tensor<4x8xf32>,
                 %dt0: tensor<4xf32>, %D: tensor<4xf32>) -> tensor<1x4x1000xf32> {
  %e = math.exp %Alog : tensor<4x8xf32>
  %A = arith.negf %e : tensor<4x8xf32>
  %bias = arith.constant dense<-4.6> : tensor<4xf32>
  %init = tensor.empty() : tensor<1x4x1000xf32>
  %dt = linalg.broadcast ins(%dt0 : tensor<4xf32>) outs(%init : tensor<1x4x1000xf32>) dimensions = [0, 2]
  %y, %h = ssm.selective_scan channel_major %u, %dt, %A, %B, %C D(%D) delta_bias(%bias) {delta_softplus}
      : (tensor<1x4x1000xf32>, tensor<1x4x1000xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<1x4x1000xf32>, tensor<1x4x8xf32>)
  return %y : tensor<1x4x1000xf32>
}

func.func @lti16384(%u: tensor<1x4x16384xf32>, %Alog: tensor<4x8xf32>, %B: tensor<4x8xf32>, %C: tensor<4x8xf32>,
                 %dt0: tensor<4xf32>, %D: tensor<4xf32>) -> tensor<1x4x16384xf32> {
  %e = math.exp %Alog : tensor<4x8xf32>
  %A = arith.negf %e : tensor<4x8xf32>
  %bias = arith.constant dense<-4.6> : tensor<4xf32>
  %init = tensor.empty() : tensor<1x4x16384xf32>
  %dt = linalg.broadcast ins(%dt0 : tensor<4xf32>) outs(%init : tensor<1x4x16384xf32>) dimensions = [0, 2]
  %y, %h = ssm.selective_scan channel_major %u, %dt, %A, %B, %C D(%D) delta_bias(%bias) {delta_softplus}
      : (tensor<1x4x16384xf32>, tensor<1x4x16384xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<1x4x16384xf32>, tensor<1x4x8xf32>)
  return %y : tensor<1x4x16384xf32>
}

