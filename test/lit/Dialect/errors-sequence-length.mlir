// RUN: ssm-opt %s -split-input-file -verify-diagnostics

// A scan of length 0 is a verifier error for affine_scan, wkv4 and wkv7:
// before, it verified, the reference returned the initial state, and the
// cpu engine failed with Halide error -7 (affine_scan, wkv7, after a screen
// of assertion warnings) or returned a zero state (wkv4, exit 0).

func.func @affine_scan_l0(%a: tensor<4x0xf32>, %b: tensor<4x0xf32>, %h0: tensor<4xf32>) {
  // expected-error @+1 {{'ssm.affine_scan' op the sequence length (dim 1 of 'b') is 0; a scan needs at least one step}}
  %h, %l = ssm.affine_scan %a, %b h0(%h0) along 1 : (tensor<4x0xf32>, tensor<4x0xf32>, tensor<4xf32>) -> (tensor<4x0xf32>, tensor<4xf32>)
  return
}

// -----

func.func @wkv4_l0(%w: tensor<8xf32>, %k: tensor<1x0x8xf32>) {
  // expected-error @+1 {{'ssm.wkv4' op the sequence length (dim 1 of 'k') is 0; a scan needs at least one step}}
  %wkv, %aa, %bb, %pp = ssm.wkv4 %w, %w, %k, %k : (tensor<8xf32>, tensor<8xf32>, tensor<1x0x8xf32>, tensor<1x0x8xf32>) -> (tensor<1x0x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>)
  return
}

// -----

func.func @wkv7_l0(%r: tensor<1x0x2x4xf32>, %s0: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{'ssm.wkv7' op the sequence length (dim 1 of 'r') is 0; a scan needs at least one step}}
  %y, %s = ssm.wkv7 %r, %r, %r, %r, %r, %r initial_state(%s0) : (tensor<1x0x2x4xf32>, tensor<1x0x2x4xf32>, tensor<1x0x2x4xf32>, tensor<1x0x2x4xf32>, tensor<1x0x2x4xf32>, tensor<1x0x2x4xf32>, tensor<1x2x4x4xf32>) -> (tensor<1x0x2x4xf32>, tensor<1x2x4x4xf32>)
  return
}

// -----

// Length 1 and a dynamic length still verify.
func.func @affine_scan_l1(%a: tensor<4x1xf32>, %b: tensor<4x1xf32>, %ad: tensor<4x?xf32>) {
  %h, %l = ssm.affine_scan %a, %b along 1 : (tensor<4x1xf32>, tensor<4x1xf32>) -> (tensor<4x1xf32>, tensor<4xf32>)
  %hd, %ld = ssm.affine_scan %ad, %ad along 1 : (tensor<4x?xf32>, tensor<4x?xf32>) -> (tensor<4x?xf32>, tensor<4xf32>)
  return
}
