// RUN: ssm-opt %s -split-input-file -verify-diagnostics

// A state size N (d_state) of 0 is a verifier error for every op with a
// state: before, it verified, and the cpu engine printed Halide assertion
// warnings and failed with error -7 while the reference engine exited 0.

func.func @selective_scan_n0(%u: tensor<1x8x40xf32>, %A: tensor<8x0xf32>, %B: tensor<1x0x40xf32>) {
  // expected-error @+1 {{'ssm.selective_scan' op the state size N (d_state, read from 'A') is 0; it must be at least 1}}
  %y, %h = ssm.selective_scan channel_major %u, %u, %A, %B, %B
      : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<8x0xf32>, tensor<1x0x40xf32>, tensor<1x0x40xf32>) -> (tensor<1x8x40xf32>, tensor<1x8x0xf32>)
  return
}

// -----

func.func @selective_update_n0(%s: tensor<2x8x0xf32>, %x: tensor<2x8xf32>, %A: tensor<8x0xf32>, %B: tensor<2x0xf32>) {
  // expected-error @+1 {{'ssm.selective_update' op the state size N (d_state, read from 'state') is 0; it must be at least 1}}
  %y, %n = ssm.selective_update %s, %x, %x, %A, %B, %B
      : (tensor<2x8x0xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<8x0xf32>, tensor<2x0xf32>, tensor<2x0xf32>) -> (tensor<2x8xf32>, tensor<2x8x0xf32>)
  return
}

// -----

func.func @lti_kernel_n0(%A: tensor<8x0xf32>, %dt: tensor<8xf32>) {
  // expected-error @+1 {{'ssm.lti_kernel' op the state size N (d_state, read from 'A') is 0; it must be at least 1}}
  %k = ssm.lti_kernel zoh %A, %A, %dt : (tensor<8x0xf32>, tensor<8x0xf32>, tensor<8xf32>) -> tensor<8x64xf32>
  return
}

// -----

func.func @ssd_scan_n0(%X: tensor<2x64x4x16xf32>, %A: tensor<2x64x4xf32>, %B: tensor<2x64x2x0xf32>) {
  // expected-error @+1 {{'ssm.ssd_scan' op the state size N (d_state, read from 'B') is 0; it must be at least 1}}
  %y, %s = ssm.ssd_scan %X, %A, %B, %B : (tensor<2x64x4x16xf32>, tensor<2x64x4xf32>, tensor<2x64x2x0xf32>, tensor<2x64x2x0xf32>) -> (tensor<2x64x4x16xf32>, tensor<2x4x16x0xf32>)
  return
}
