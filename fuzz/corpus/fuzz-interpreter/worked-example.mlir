// DESIGN.md section 1's worked example: Abar = 0.8, Bbar = 1, C = 1, u = (1, 0, 2)
// gives h = y = (1, 0.8, 2.64) and K = (1, 0.8, 0.64), through affine_scan and
// through lti_kernel (euler, Delta 1, A -0.2, B 1) + lti_conv.
// RUN: ssm-run %s --function affine --print | FileCheck %s --check-prefix=SCAN
// RUN: ssm-run %s --function lti --print | FileCheck %s --check-prefix=LTI
// RUN: ssm-run %s --function zoh --print | FileCheck %s --check-prefix=ZOH

// SCAN: result0 = [1, 0.8, 2.64]
// SCAN: result1 = [2.64]
func.func @affine() -> (tensor<3xf32>, tensor<f32>) {
  %a = arith.constant dense<0.8> : tensor<3xf32>
  %u = arith.constant dense<[1.0, 0.0, 2.0]> : tensor<3xf32>
  %h, %last = ssm.affine_scan %a, %u along 0 : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>)
  return %h, %last : tensor<3xf32>, tensor<f32>
}

// LTI: result0 = [1, 0.8, 0.64]
// LTI: result1 = [1, 0.8, 2.64]
func.func @lti() -> (tensor<1x3xf32>, tensor<1x1x3xf32>) {
  %A = arith.constant dense<-0.2> : tensor<1x1xf32>
  %C = arith.constant dense<1.0> : tensor<1x1xf32>
  %dt = arith.constant dense<1.0> : tensor<1xf32>
  %u = arith.constant dense<[[[1.0, 0.0, 2.0]]]> : tensor<1x1x3xf32>
  %K = ssm.lti_kernel euler %A, %C, %dt : (tensor<1x1xf32>, tensor<1x1xf32>, tensor<1xf32>) -> tensor<1x3xf32>
  %y = ssm.lti_conv direct %u, %K : (tensor<1x1x3xf32>, tensor<1x3xf32>) -> tensor<1x1x3xf32>
  return %K, %y : tensor<1x3xf32>, tensor<1x1x3xf32>
}

// ZOH with the same A and Delta: Abar = exp(-0.2) = 0.8187308, Bbar = (Abar - 1) / A = 0.9063462.
// ZOH: result0 = [0.8187308]
// ZOH: result1 = [0.9063462]
func.func @zoh() -> (tensor<1xf32>, tensor<1xf32>) {
  %A = arith.constant dense<-0.2> : tensor<1xf32>
  %B = arith.constant dense<1.0> : tensor<1xf32>
  %dt = arith.constant dense<1.0> : tensor<1xf32>
  %abar, %bbar = ssm.discretize %A, %B, %dt methods(zoh, zoh) : tensor<1xf32>
  return %abar, %bbar : tensor<1xf32>, tensor<1xf32>
}
