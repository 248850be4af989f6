// RUN: ssm-opt %s -split-input-file -verify-diagnostics

// One case per diagnostic of the ssm dialect: the shape verifiers of
// dialect/SsmOps.cpp (each names the operand or result, its shape and the
// shape the other operands imply), a few ODS constraints, and parse errors
// for bad enum keywords.

//===----------------------------------------------------------------------===//
// ssm.discretize (ODS constraints)
//===----------------------------------------------------------------------===//

func.func @discretize_type_mismatch(%A: tensor<4x8xf32>, %B: tensor<4x8xf32>, %dt: tensor<4x9xf32>) {
  // expected-error @+1 {{'ssm.discretize' op failed to verify that all of {A, B, delta, Abar, Bbar} have same type}}
  %a, %b = "ssm.discretize"(%A, %B, %dt) {a_method = 0 : i32, b_method = 2 : i32} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x9xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
  return
}

// -----

func.func @discretize_f64(%A: tensor<4x8xf64>) {
  // expected-error @+1 {{'ssm.discretize' op operand #0 must be ranked tensor of 32-bit float values, but got 'tensor<4x8xf64>'}}
  %a, %b = ssm.discretize %A, %A, %A methods(zoh, euler) : tensor<4x8xf64>
  return
}

// -----

func.func @discretize_bad_method(%A: tensor<4x8xf32>) {
  // expected-error @+1 {{custom op 'ssm.discretize' expected string or keyword containing one of the following enum values for attribute 'a_method' [zoh, bilinear, euler]}}
  %a, %b = ssm.discretize %A, %A, %A methods(rk4, euler) : tensor<4x8xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// ssm.affine_scan
//===----------------------------------------------------------------------===//

func.func @affine_scan_dim_too_large(%a: tensor<4x16xf32>, %b: tensor<4x16xf32>) {
  // expected-error @+1 {{'ssm.affine_scan' op scan dimension 2 is out of range for operand 'b' of shape (4, 16)}}
  %h, %l = ssm.affine_scan %a, %b along 2 : (tensor<4x16xf32>, tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4xf32>)
  return
}

// -----

func.func @affine_scan_dim_negative(%a: tensor<4x16xf32>, %b: tensor<4x16xf32>) {
  // expected-error @+1 {{'ssm.affine_scan' op scan dimension -1 is out of range for operand 'b' of shape (4, 16)}}
  %h, %l = ssm.affine_scan %a, %b along -1 : (tensor<4x16xf32>, tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4xf32>)
  return
}

// -----

func.func @affine_scan_a_rank(%a: tensor<16xf32>, %b: tensor<4x16xf32>) {
  // expected-error @+1 {{'ssm.affine_scan' op operand 'a' has shape (16,) but must have the rank of 'b' (4, 16) (use size-1 dims to broadcast)}}
  %h, %l = ssm.affine_scan %a, %b along 1 : (tensor<16xf32>, tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4xf32>)
  return
}

// -----

func.func @affine_scan_a_not_broadcastable(%a: tensor<2x16xf32>, %b: tensor<4x16xf32>) {
  // expected-error @+1 {{'ssm.affine_scan' op operand 'a' has shape (2, 16) which does not broadcast to 'b' (4, 16) in dim 0}}
  %h, %l = ssm.affine_scan %a, %b along 1 : (tensor<2x16xf32>, tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4xf32>)
  return
}

// -----

func.func @affine_scan_h0(%a: tensor<4x16xf32>, %b: tensor<4x16xf32>, %h0: tensor<16xf32>) {
  // expected-error @+1 {{'ssm.affine_scan' op operand 'h0' has shape (16,) but must be the shape of 'b' without the scan dim = (4,)}}
  %h, %l = ssm.affine_scan %a, %b h0(%h0) along 1 : (tensor<4x16xf32>, tensor<4x16xf32>, tensor<16xf32>) -> (tensor<4x16xf32>, tensor<4xf32>)
  return
}

// -----

func.func @affine_scan_reset(%a: tensor<4x16xf32>, %b: tensor<4x16xf32>, %r: tensor<4x8xi1>) {
  // expected-error @+1 {{'ssm.affine_scan' op operand 'reset' has shape (4, 8) but must be the shape of 'b' = (4, 16)}}
  %h, %l = ssm.affine_scan %a, %b reset(%r) along 1 : (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x8xi1>) -> (tensor<4x16xf32>, tensor<4xf32>)
  return
}

// -----

func.func @affine_scan_reset_f32(%a: tensor<4x16xf32>, %b: tensor<4x16xf32>, %r: tensor<4x16xf32>) {
  // expected-error @+1 {{'ssm.affine_scan' op operand #2 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4x16xf32>'}}
  %h, %l = ssm.affine_scan %a, %b reset(%r) along 1 : (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4xf32>)
  return
}

// -----

func.func @affine_scan_result_h(%a: tensor<4x16xf32>, %b: tensor<4x16xf32>) {
  // expected-error @+1 {{'ssm.affine_scan' op result 'h' has shape (16, 4) but must be the shape of 'b' = (4, 16)}}
  %h, %l = ssm.affine_scan %a, %b along 1 : (tensor<4x16xf32>, tensor<4x16xf32>) -> (tensor<16x4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @affine_scan_result_h_last(%a: tensor<4x16xf32>, %b: tensor<4x16xf32>) {
  // expected-error @+1 {{'ssm.affine_scan' op result 'h_last' has shape (16,) but must be the shape of 'b' without the scan dim = (4,)}}
  %h, %l = ssm.affine_scan %a, %b along 1 : (tensor<4x16xf32>, tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<16xf32>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// ssm.selective_scan
//===----------------------------------------------------------------------===//

func.func @selective_scan_bad_layout(%u: tensor<1x8x40xf32>, %A: tensor<8x4xf32>, %B: tensor<1x4x40xf32>) {
  // expected-error @+1 {{custom op 'ssm.selective_scan' expected string or keyword containing one of the following enum values for attribute 'layout' [channel_major, time_major]}}
  %y, %h = ssm.selective_scan batch_major %u, %u, %A, %B, %B : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<8x4xf32>, tensor<1x4x40xf32>, tensor<1x4x40xf32>) -> (tensor<1x8x40xf32>, tensor<1x8x4xf32>)
  return
}

// -----

func.func @selective_scan_u_rank(%u: tensor<8x40xf32>, %A: tensor<8x4xf32>, %B: tensor<8x4xf32>) {
  // expected-error @+1 {{'ssm.selective_scan' op operand 'u' has shape (8, 40) but must be rank 3 (batch, dim, L)}}
  %y, %h = ssm.selective_scan channel_major %u, %u, %A, %B, %B : (tensor<8x40xf32>, tensor<8x40xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) -> (tensor<8x40xf32>, tensor<8x4xf32>)
  return
}

// -----

func.func @selective_scan_u_rank_time_major(%u: tensor<2x1x40x8xf32>, %A: tensor<8x4xf32>, %B: tensor<8x4xf32>) {
  // expected-error @+1 {{'ssm.selective_scan' op operand 'u' has shape (2, 1, 40, 8) but must be rank 3 (batch, L, dim)}}
  %y, %h = ssm.selective_scan time_major %u, %u, %A, %B, %B : (tensor<2x1x40x8xf32>, tensor<2x1x40x8xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) -> (tensor<2x1x40x8xf32>, tensor<2x8x4xf32>)
  return
}

// -----

func.func @selective_scan_delta(%u: tensor<1x8x40xf32>, %dt: tensor<1x40x8xf32>, %A: tensor<8x4xf32>, %B: tensor<8x4xf32>) {
  // expected-error @+1 {{'ssm.selective_scan' op operand 'delta' has shape (1, 40, 8) but must be the shape of 'u' (batch, dim, L) = (1, 8, 40)}}
  %y, %h = ssm.selective_scan channel_major %u, %dt, %A, %B, %B : (tensor<1x8x40xf32>, tensor<1x40x8xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) -> (tensor<1x8x40xf32>, tensor<1x8x4xf32>)
  return
}

// -----

func.func @selective_scan_A_rank(%u: tensor<1x8x40xf32>, %A: tensor<8xf32>, %B: tensor<8x4xf32>) {
  // expected-error @+1 {{'ssm.selective_scan' op operand 'A' has shape (8,) but must be rank 2 (dim, N)}}
  %y, %h = ssm.selective_scan channel_major %u, %u, %A, %B, %B : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<8xf32>, tensor<8x4xf32>, tensor<8x4xf32>) -> (tensor<1x8x40xf32>, tensor<1x8x4xf32>)
  return
}

// -----

func.func @selective_scan_A_dim(%u: tensor<1x8x40xf32>, %A: tensor<16x4xf32>, %B: tensor<8x4xf32>) {
  // expected-error @+1 {{'ssm.selective_scan' op operand 'A' has shape (16, 4) but must be (dim, N) = (8, 4)}}
  %y, %h = ssm.selective_scan channel_major %u, %u, %A, %B, %B : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<16x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) -> (tensor<1x8x40xf32>, tensor<1x8x4xf32>)
  return
}

// -----

func.func @selective_scan_A_time_major_dim(%u: tensor<1x40x8xf32>, %A: tensor<40x4xf32>, %B: tensor<8x4xf32>) {
  // expected-error @+1 {{'ssm.selective_scan' op operand 'A' has shape (40, 4) but must be (dim, N) = (8, 4)}}
  %y, %h = ssm.selective_scan time_major %u, %u, %A, %B, %B : (tensor<1x40x8xf32>, tensor<1x40x8xf32>, tensor<40x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) -> (tensor<1x40x8xf32>, tensor<1x8x4xf32>)
  return
}

// -----

func.func @selective_scan_B_constant(%u: tensor<1x8x40xf32>, %A: tensor<8x4xf32>, %B: tensor<8x3xf32>, %C: tensor<8x4xf32>) {
  // expected-error @+1 {{'ssm.selective_scan' op operand 'B' has shape (8, 3) but must be constant (dim, N) = (8, 4)}}
  %y, %h = ssm.selective_scan channel_major %u, %u, %A, %B, %C : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<8x4xf32>, tensor<8x3xf32>, tensor<8x4xf32>) -> (tensor<1x8x40xf32>, tensor<1x8x4xf32>)
  return
}

// -----

func.func @selective_scan_B_per_token(%u: tensor<1x8x40xf32>, %A: tensor<8x4xf32>, %B: tensor<1x40x4xf32>, %C: tensor<8x4xf32>) {
  // expected-error @+1 {{'ssm.selective_scan' op operand 'B' has shape (1, 40, 4) but must be (batch, N, L) = (1, 4, 40)}}
  %y, %h = ssm.selective_scan channel_major %u, %u, %A, %B, %C : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<8x4xf32>, tensor<1x40x4xf32>, tensor<8x4xf32>) -> (tensor<1x8x40xf32>, tensor<1x8x4xf32>)
  return
}

// -----

func.func @selective_scan_B_per_token_time_major(%u: tensor<1x40x8xf32>, %A: tensor<8x4xf32>, %B: tensor<1x4x40xf32>, %C: tensor<8x4xf32>) {
  // expected-error @+1 {{'ssm.selective_scan' op operand 'B' has shape (1, 4, 40) but must be (batch, L, N) = (1, 40, 4)}}
  %y, %h = ssm.selective_scan time_major %u, %u, %A, %B, %C : (tensor<1x40x8xf32>, tensor<1x40x8xf32>, tensor<8x4xf32>, tensor<1x4x40xf32>, tensor<8x4xf32>) -> (tensor<1x40x8xf32>, tensor<1x8x4xf32>)
  return
}

// -----

func.func @selective_scan_B_grouped(%u: tensor<1x8x40xf32>, %A: tensor<8x4xf32>, %B: tensor<1x2x4x20xf32>, %C: tensor<8x4xf32>) {
  // expected-error @+1 {{'ssm.selective_scan' op operand 'B' has shape (1, 2, 4, 20) but must be (batch, G, N, L) = (1, 2, 4, 40)}}
  %y, %h = ssm.selective_scan channel_major %u, %u, %A, %B, %C : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<8x4xf32>, tensor<1x2x4x20xf32>, tensor<8x4xf32>) -> (tensor<1x8x40xf32>, tensor<1x8x4xf32>)
  return
}

// -----

func.func @selective_scan_B_groups(%u: tensor<1x8x40xf32>, %A: tensor<8x4xf32>, %B: tensor<1x3x4x40xf32>, %C: tensor<8x4xf32>) {
  // expected-error @+1 {{'ssm.selective_scan' op operand 'B' has 3 groups, which does not divide dim = 8}}
  %y, %h = ssm.selective_scan channel_major %u, %u, %A, %B, %C : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<8x4xf32>, tensor<1x3x4x40xf32>, tensor<8x4xf32>) -> (tensor<1x8x40xf32>, tensor<1x8x4xf32>)
  return
}

// -----

func.func @selective_scan_B_zero_groups(%u: tensor<1x40x8xf32>, %A: tensor<8x4xf32>, %B: tensor<1x40x0x4xf32>, %C: tensor<8x4xf32>) {
  // expected-error @+1 {{'ssm.selective_scan' op operand 'B' has 0 groups, which does not divide dim = 8}}
  %y, %h = ssm.selective_scan time_major %u, %u, %A, %B, %C : (tensor<1x40x8xf32>, tensor<1x40x8xf32>, tensor<8x4xf32>, tensor<1x40x0x4xf32>, tensor<8x4xf32>) -> (tensor<1x40x8xf32>, tensor<1x8x4xf32>)
  return
}

// -----

func.func @selective_scan_B_rank(%u: tensor<1x8x40xf32>, %A: tensor<8x4xf32>, %B: tensor<1x1x2x4x40xf32>, %C: tensor<8x4xf32>) {
  // expected-error @+1 {{'ssm.selective_scan' op operand 'B' has shape (1, 1, 2, 4, 40) but must be (dim, N), (batch, N, L) or (batch, G, N, L)}}
  %y, %h = ssm.selective_scan channel_major %u, %u, %A, %B, %C : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<8x4xf32>, tensor<1x1x2x4x40xf32>, tensor<8x4xf32>) -> (tensor<1x8x40xf32>, tensor<1x8x4xf32>)
  return
}

// -----

func.func @selective_scan_C_rank_time_major(%u: tensor<1x40x8xf32>, %A: tensor<8x4xf32>, %B: tensor<8x4xf32>, %C: tensor<4xf32>) {
  // expected-error @+1 {{'ssm.selective_scan' op operand 'C' has shape (4,) but must be (dim, N), (batch, L, N) or (batch, L, G, N)}}
  %y, %h = ssm.selective_scan time_major %u, %u, %A, %B, %C : (tensor<1x40x8xf32>, tensor<1x40x8xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<4xf32>) -> (tensor<1x40x8xf32>, tensor<1x8x4xf32>)
  return
}

// -----

func.func @selective_scan_C_grouped_time_major(%u: tensor<1x40x8xf32>, %A: tensor<8x4xf32>, %B: tensor<8x4xf32>, %C: tensor<1x40x2x2xf32>) {
  // expected-error @+1 {{'ssm.selective_scan' op operand 'C' has shape (1, 40, 2, 2) but must be (batch, L, G, N) = (1, 40, 2, 4)}}
  %y, %h = ssm.selective_scan time_major %u, %u, %A, %B, %C : (tensor<1x40x8xf32>, tensor<1x40x8xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<1x40x2x2xf32>) -> (tensor<1x40x8xf32>, tensor<1x8x4xf32>)
  return
}

// -----

func.func @selective_scan_D(%u: tensor<1x8x40xf32>, %A: tensor<8x4xf32>, %B: tensor<8x4xf32>, %D: tensor<4xf32>) {
  // expected-error @+1 {{'ssm.selective_scan' op operand 'D' has shape (4,) but must be (dim) = (8,)}}
  %y, %h = ssm.selective_scan channel_major %u, %u, %A, %B, %B D(%D) : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<4xf32>) -> (tensor<1x8x40xf32>, tensor<1x8x4xf32>)
  return
}

// -----

func.func @selective_scan_z(%u: tensor<1x8x40xf32>, %A: tensor<8x4xf32>, %B: tensor<8x4xf32>, %z: tensor<1x8x39xf32>) {
  // expected-error @+1 {{'ssm.selective_scan' op operand 'z' has shape (1, 8, 39) but must be the shape of 'u' (batch, dim, L) = (1, 8, 40)}}
  %y, %h = ssm.selective_scan channel_major %u, %u, %A, %B, %B z(%z) : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<1x8x39xf32>) -> (tensor<1x8x40xf32>, tensor<1x8x4xf32>)
  return
}

// -----

func.func @selective_scan_delta_bias(%u: tensor<1x40x8xf32>, %A: tensor<8x4xf32>, %B: tensor<8x4xf32>, %bias: tensor<1x8xf32>) {
  // expected-error @+1 {{'ssm.selective_scan' op operand 'delta_bias' has shape (1, 8) but must be (dim) = (8,)}}
  %y, %h = ssm.selective_scan time_major %u, %u, %A, %B, %B delta_bias(%bias) {delta_softplus} : (tensor<1x40x8xf32>, tensor<1x40x8xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<1x8xf32>) -> (tensor<1x40x8xf32>, tensor<1x8x4xf32>)
  return
}

// -----

func.func @selective_scan_h0(%u: tensor<1x8x40xf32>, %A: tensor<8x4xf32>, %B: tensor<8x4xf32>, %h0: tensor<1x4x8xf32>) {
  // expected-error @+1 {{'ssm.selective_scan' op operand 'h0' has shape (1, 4, 8) but must be (batch, dim, N) = (1, 8, 4)}}
  %y, %h = ssm.selective_scan channel_major %u, %u, %A, %B, %B h0(%h0) : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<1x4x8xf32>) -> (tensor<1x8x40xf32>, tensor<1x8x4xf32>)
  return
}

// -----

func.func @selective_scan_result_y(%u: tensor<1x40x8xf32>, %A: tensor<8x4xf32>, %B: tensor<8x4xf32>) {
  // expected-error @+1 {{'ssm.selective_scan' op result 'y' has shape (1, 8, 40) but must be the shape of 'u' (batch, L, dim) = (1, 40, 8)}}
  %y, %h = ssm.selective_scan time_major %u, %u, %A, %B, %B : (tensor<1x40x8xf32>, tensor<1x40x8xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) -> (tensor<1x8x40xf32>, tensor<1x8x4xf32>)
  return
}

// -----

func.func @selective_scan_result_h_last(%u: tensor<1x8x40xf32>, %A: tensor<8x4xf32>, %B: tensor<8x4xf32>) {
  // expected-error @+1 {{'ssm.selective_scan' op result 'h_last' has shape (1, 8, 40, 4) but must be (batch, dim, N) = (1, 8, 4)}}
  %y, %h = ssm.selective_scan channel_major %u, %u, %A, %B, %B : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) -> (tensor<1x8x40xf32>, tensor<1x8x40x4xf32>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// ssm.selective_update
//===----------------------------------------------------------------------===//

func.func @selective_update_state_rank(%s: tensor<8x4xf32>, %x: tensor<8xf32>, %A: tensor<8x4xf32>, %B: tensor<4xf32>) {
  // expected-error @+1 {{'ssm.selective_update' op operand 'state' has shape (8, 4) but must be (batch, dim, N) or, with heads, (batch, H, P, N)}}
  %y, %n = ssm.selective_update %s, %x, %x, %A, %B, %B : (tensor<8x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<8xf32>, tensor<8x4xf32>)
  return
}

// -----

func.func @selective_update_x(%s: tensor<2x8x4xf32>, %x: tensor<2x4xf32>, %dt: tensor<2x8xf32>, %A: tensor<8x4xf32>, %B: tensor<2x4xf32>) {
  // expected-error @+1 {{'ssm.selective_update' op operand 'x' has shape (2, 4) but must be (batch, dim) = (2, 8)}}
  %y, %n = ssm.selective_update %s, %x, %dt, %A, %B, %B : (tensor<2x8x4xf32>, tensor<2x4xf32>, tensor<2x8xf32>, tensor<8x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> (tensor<2x8xf32>, tensor<2x8x4xf32>)
  return
}

// -----

func.func @selective_update_dt_heads(%s: tensor<2x4x16x8xf32>, %x: tensor<2x4x16xf32>, %dt: tensor<2x4xf32>, %A: tensor<4x16x8xf32>, %B: tensor<2x2x8xf32>) {
  // expected-error @+1 {{'ssm.selective_update' op operand 'dt' has shape (2, 4) but must be (batch, H, P) = (2, 4, 16)}}
  %y, %n = ssm.selective_update %s, %x, %dt, %A, %B, %B : (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4xf32>, tensor<4x16x8xf32>, tensor<2x2x8xf32>, tensor<2x2x8xf32>) -> (tensor<2x4x16xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

func.func @selective_update_A(%s: tensor<2x8x4xf32>, %x: tensor<2x8xf32>, %A: tensor<8x2xf32>, %B: tensor<2x4xf32>) {
  // expected-error @+1 {{'ssm.selective_update' op operand 'A' has shape (8, 2) but must be (dim, N) = (8, 4)}}
  %y, %n = ssm.selective_update %s, %x, %x, %A, %B, %B : (tensor<2x8x4xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<8x2xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> (tensor<2x8xf32>, tensor<2x8x4xf32>)
  return
}

// -----

func.func @selective_update_A_heads(%s: tensor<2x4x16x8xf32>, %x: tensor<2x4x16xf32>, %A: tensor<4x8xf32>, %B: tensor<2x2x8xf32>) {
  // expected-error @+1 {{'ssm.selective_update' op operand 'A' has shape (4, 8) but must be (H, P, N) = (4, 16, 8)}}
  %y, %n = ssm.selective_update %s, %x, %x, %A, %B, %B : (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<4x8xf32>, tensor<2x2x8xf32>, tensor<2x2x8xf32>) -> (tensor<2x4x16xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

func.func @selective_update_B(%s: tensor<2x8x4xf32>, %x: tensor<2x8xf32>, %A: tensor<8x4xf32>, %B: tensor<1x4xf32>, %C: tensor<2x4xf32>) {
  // expected-error @+1 {{'ssm.selective_update' op operand 'B' has shape (1, 4) but must be (batch, N) = (2, 4)}}
  %y, %n = ssm.selective_update %s, %x, %x, %A, %B, %C : (tensor<2x8x4xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<8x4xf32>, tensor<1x4xf32>, tensor<2x4xf32>) -> (tensor<2x8xf32>, tensor<2x8x4xf32>)
  return
}

// -----

func.func @selective_update_C_heads_rank(%s: tensor<2x4x16x8xf32>, %x: tensor<2x4x16xf32>, %A: tensor<4x16x8xf32>, %B: tensor<2x2x8xf32>, %C: tensor<2x8xf32>) {
  // expected-error @+1 {{'ssm.selective_update' op operand 'C' has shape (2, 8) but must be rank 3 (batch, G, N)}}
  %y, %n = ssm.selective_update %s, %x, %x, %A, %B, %C : (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<4x16x8xf32>, tensor<2x2x8xf32>, tensor<2x8xf32>) -> (tensor<2x4x16xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

func.func @selective_update_B_heads_shape(%s: tensor<2x4x16x8xf32>, %x: tensor<2x4x16xf32>, %A: tensor<4x16x8xf32>, %B: tensor<2x2x4xf32>, %C: tensor<2x2x8xf32>) {
  // expected-error @+1 {{'ssm.selective_update' op operand 'B' has shape (2, 2, 4) but must be (batch, G, N) = (2, 2, 8)}}
  %y, %n = ssm.selective_update %s, %x, %x, %A, %B, %C : (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<4x16x8xf32>, tensor<2x2x4xf32>, tensor<2x2x8xf32>) -> (tensor<2x4x16xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

func.func @selective_update_groups(%s: tensor<2x4x16x8xf32>, %x: tensor<2x4x16xf32>, %A: tensor<4x16x8xf32>, %B: tensor<2x3x8xf32>) {
  // expected-error @+1 {{'ssm.selective_update' op operand 'B' has 3 groups, which does not divide heads = 4}}
  %y, %n = ssm.selective_update %s, %x, %x, %A, %B, %B : (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<4x16x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> (tensor<2x4x16xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

func.func @selective_update_D(%s: tensor<2x8x4xf32>, %x: tensor<2x8xf32>, %A: tensor<8x4xf32>, %B: tensor<2x4xf32>, %D: tensor<2x8xf32>) {
  // expected-error @+1 {{'ssm.selective_update' op operand 'D' has shape (2, 8) but must be (dim) = (8,)}}
  %y, %n = ssm.selective_update %s, %x, %x, %A, %B, %B D(%D) : (tensor<2x8x4xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<8x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8x4xf32>)
  return
}

// -----

func.func @selective_update_z_heads(%s: tensor<2x4x16x8xf32>, %x: tensor<2x4x16xf32>, %A: tensor<4x16x8xf32>, %B: tensor<2x2x8xf32>, %z: tensor<2x64xf32>) {
  // expected-error @+1 {{'ssm.selective_update' op operand 'z' has shape (2, 64) but must be (batch, H, P) = (2, 4, 16)}}
  %y, %n = ssm.selective_update %s, %x, %x, %A, %B, %B z(%z) : (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<4x16x8xf32>, tensor<2x2x8xf32>, tensor<2x2x8xf32>, tensor<2x64xf32>) -> (tensor<2x4x16xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

func.func @selective_update_dt_bias_heads(%s: tensor<2x4x16x8xf32>, %x: tensor<2x4x16xf32>, %A: tensor<4x16x8xf32>, %B: tensor<2x2x8xf32>, %bias: tensor<4xf32>) {
  // expected-error @+1 {{'ssm.selective_update' op operand 'dt_bias' has shape (4,) but must be (H, P) = (4, 16)}}
  %y, %n = ssm.selective_update %s, %x, %x, %A, %B, %B dt_bias(%bias) {dt_softplus} : (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<4x16x8xf32>, tensor<2x2x8xf32>, tensor<2x2x8xf32>, tensor<4xf32>) -> (tensor<2x4x16xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

func.func @selective_update_result_y(%s: tensor<2x8x4xf32>, %x: tensor<2x8xf32>, %A: tensor<8x4xf32>, %B: tensor<2x4xf32>) {
  // expected-error @+1 {{'ssm.selective_update' op result 'y' has shape (2, 8, 4) but must be (batch, dim) = (2, 8)}}
  %y, %n = ssm.selective_update %s, %x, %x, %A, %B, %B : (tensor<2x8x4xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<8x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> (tensor<2x8x4xf32>, tensor<2x8x4xf32>)
  return
}

// -----

func.func @selective_update_result_new_state(%s: tensor<2x8x4xf32>, %x: tensor<2x8xf32>, %A: tensor<8x4xf32>, %B: tensor<2x4xf32>) {
  // expected-error @+1 {{'ssm.selective_update' op result 'new_state' has shape (2, 4, 8) but must be the shape of 'state' = (2, 8, 4)}}
  %y, %n = ssm.selective_update %s, %x, %x, %A, %B, %B : (tensor<2x8x4xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<8x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> (tensor<2x8xf32>, tensor<2x4x8xf32>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// ssm.lti_kernel
//===----------------------------------------------------------------------===//

func.func @lti_kernel_A_rank(%A: tensor<8xf32>, %C: tensor<8x16xf32>, %dt: tensor<8xf32>) {
  // expected-error @+1 {{'ssm.lti_kernel' op operand 'A' has shape (8,) but must be (H, N) real or (H, N, 2) complex}}
  %k = ssm.lti_kernel zoh %A, %C, %dt : (tensor<8xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<8x64xf32>
  return
}

// -----

func.func @lti_kernel_A_complex_last_dim(%A: tensor<8x16x3xf32>, %C: tensor<8x16x3xf32>, %dt: tensor<8xf32>) {
  // expected-error @+1 {{'ssm.lti_kernel' op operand 'A' has shape (8, 16, 3) but a complex A must be (H, N, 2) holding (real, imaginary) pairs}}
  %k = ssm.lti_kernel zoh %A, %C, %dt : (tensor<8x16x3xf32>, tensor<8x16x3xf32>, tensor<8xf32>) -> tensor<8x64xf32>
  return
}

// -----

func.func @lti_kernel_complex_B_real_A(%A: tensor<8x16xf32>, %B: tensor<8x16x2xf32>, %C: tensor<8x16xf32>, %dt: tensor<8xf32>) {
  // expected-error @+1 {{'ssm.lti_kernel' op operand 'B' has complex shape (8, 16, 2) but 'A' (8, 16) is real}}
  %k = ssm.lti_kernel zoh %A, %C, %dt B(%B) : (tensor<8x16xf32>, tensor<8x16x2xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<8x64xf32>
  return
}

// -----

func.func @lti_kernel_complex_C_real_A(%A: tensor<8x16xf32>, %C: tensor<8x16x2xf32>, %dt: tensor<8xf32>) {
  // expected-error @+1 {{'ssm.lti_kernel' op operand 'C' has complex shape (8, 16, 2) but 'A' (8, 16) is real}}
  %k = ssm.lti_kernel bilinear %A, %C, %dt : (tensor<8x16xf32>, tensor<8x16x2xf32>, tensor<8xf32>) -> tensor<8x64xf32>
  return
}

// -----

func.func @lti_kernel_B_complex_shape(%A: tensor<8x16x2xf32>, %B: tensor<8x8x2xf32>, %C: tensor<8x16x2xf32>, %dt: tensor<8xf32>) {
  // expected-error @+1 {{'ssm.lti_kernel' op operand 'B' has shape (8, 8, 2) but must be complex (H, N, 2) = (8, 16, 2)}}
  %k = ssm.lti_kernel zoh %A, %C, %dt B(%B) : (tensor<8x16x2xf32>, tensor<8x8x2xf32>, tensor<8x16x2xf32>, tensor<8xf32>) -> tensor<8x64xf32>
  return
}

// -----

func.func @lti_kernel_C_real_shape(%A: tensor<8x16xf32>, %C: tensor<4x16xf32>, %dt: tensor<8xf32>) {
  // expected-error @+1 {{'ssm.lti_kernel' op operand 'C' has shape (4, 16) but must be (H, N) = (8, 16)}}
  %k = ssm.lti_kernel zoh %A, %C, %dt : (tensor<8x16xf32>, tensor<4x16xf32>, tensor<8xf32>) -> tensor<8x64xf32>
  return
}

// -----

func.func @lti_kernel_C_rank(%A: tensor<8x16xf32>, %C: tensor<8x16x2x1xf32>, %dt: tensor<8xf32>) {
  // expected-error @+1 {{'ssm.lti_kernel' op operand 'C' has shape (8, 16, 2, 1) but must be (H, N) = (8, 16)}}
  %k = ssm.lti_kernel zoh %A, %C, %dt : (tensor<8x16xf32>, tensor<8x16x2x1xf32>, tensor<8xf32>) -> tensor<8x64xf32>
  return
}

// -----

func.func @lti_kernel_delta(%A: tensor<8x16xf32>, %C: tensor<8x16xf32>, %dt: tensor<8x16xf32>) {
  // expected-error @+1 {{'ssm.lti_kernel' op operand 'delta' has shape (8, 16) but must be (H) = (8,)}}
  %k = ssm.lti_kernel zoh %A, %C, %dt : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x64xf32>
  return
}

// -----

func.func @lti_kernel_K_rank(%A: tensor<8x16xf32>, %C: tensor<8x16xf32>, %dt: tensor<8xf32>) {
  // expected-error @+1 {{'ssm.lti_kernel' op result 'K' has shape (64,) but must be (H, length)}}
  %k = ssm.lti_kernel zoh %A, %C, %dt : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<64xf32>
  return
}

// -----

func.func @lti_kernel_K_shape(%A: tensor<8x16xf32>, %C: tensor<8x16xf32>, %dt: tensor<8xf32>) {
  // expected-error @+1 {{'ssm.lti_kernel' op result 'K' has shape (4, 64) but must be (H, length) = (8, 64)}}
  %k = ssm.lti_kernel zoh %A, %C, %dt : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<4x64xf32>
  return
}

// -----

func.func @lti_kernel_bad_method(%A: tensor<8x16xf32>, %C: tensor<8x16xf32>, %dt: tensor<8xf32>) {
  // expected-error @+1 {{custom op 'ssm.lti_kernel' expected string or keyword containing one of the following enum values for attribute 'discretization' [zoh, bilinear, euler]}}
  %k = ssm.lti_kernel foh %A, %C, %dt : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<8x64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// ssm.lti_conv
//===----------------------------------------------------------------------===//

func.func @lti_conv_u_rank(%u: tensor<8x64xf32>, %K: tensor<8x64xf32>) {
  // expected-error @+1 {{'ssm.lti_conv' op operand 'u' has shape (8, 64) but must be rank 3 (batch, H, L)}}
  %y = ssm.lti_conv direct %u, %K : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
  return
}

// -----

func.func @lti_conv_K_rank(%u: tensor<2x8x64xf32>, %K: tensor<64xf32>) {
  // expected-error @+1 {{'ssm.lti_conv' op operand 'K' has shape (64,) but must be rank 2 (H, Lk)}}
  %y = ssm.lti_conv fft %u, %K : (tensor<2x8x64xf32>, tensor<64xf32>) -> tensor<2x8x64xf32>
  return
}

// -----

func.func @lti_conv_K_channels(%u: tensor<2x8x64xf32>, %K: tensor<4x64xf32>) {
  // expected-error @+1 {{'ssm.lti_conv' op operand 'K' has shape (4, 64) but must be (H, Lk) = (8, 64)}}
  %y = ssm.lti_conv scan %u, %K : (tensor<2x8x64xf32>, tensor<4x64xf32>) -> tensor<2x8x64xf32>
  return
}

// -----

func.func @lti_conv_D(%u: tensor<2x8x64xf32>, %K: tensor<8x64xf32>, %D: tensor<64xf32>) {
  // expected-error @+1 {{'ssm.lti_conv' op operand 'D' has shape (64,) but must be (H) = (8,)}}
  %y = ssm.lti_conv direct %u, %K D(%D) : (tensor<2x8x64xf32>, tensor<8x64xf32>, tensor<64xf32>) -> tensor<2x8x64xf32>
  return
}

// -----

func.func @lti_conv_result(%u: tensor<2x8x64xf32>, %K: tensor<8x64xf32>) {
  // expected-error @+1 {{'ssm.lti_conv' op result 'y' has shape (2, 8, 128) but must be the shape of 'u' (batch, H, L) = (2, 8, 64)}}
  %y = ssm.lti_conv direct %u, %K : (tensor<2x8x64xf32>, tensor<8x64xf32>) -> tensor<2x8x128xf32>
  return
}

// -----

func.func @lti_conv_bad_algorithm(%u: tensor<2x8x64xf32>, %K: tensor<8x64xf32>) {
  // expected-error @+1 {{custom op 'ssm.lti_conv' expected string or keyword containing one of the following enum values for attribute 'algorithm' [direct, fft, scan]}}
  %y = ssm.lti_conv winograd %u, %K : (tensor<2x8x64xf32>, tensor<8x64xf32>) -> tensor<2x8x64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// ssm.causal_conv1d
//===----------------------------------------------------------------------===//

func.func @causal_conv1d_x_rank(%x: tensor<8x40xf32>, %w: tensor<8x4xf32>) {
  // expected-error @+1 {{'ssm.causal_conv1d' op operand 'x' has shape (8, 40) but must be rank 3 (batch, dim, L)}}
  %o, %f = ssm.causal_conv1d silu %x, %w : (tensor<8x40xf32>, tensor<8x4xf32>) -> (tensor<8x40xf32>, tensor<8x3xf32>)
  return
}

// -----

func.func @causal_conv1d_weight_rank(%x: tensor<2x8x40xf32>, %w: tensor<8x1x4xf32>) {
  // expected-error @+1 {{'ssm.causal_conv1d' op operand 'weight' has shape (8, 1, 4) but must be rank 2 (dim, width)}}
  %o, %f = ssm.causal_conv1d silu %x, %w : (tensor<2x8x40xf32>, tensor<8x1x4xf32>) -> (tensor<2x8x40xf32>, tensor<2x8x3xf32>)
  return
}

// -----

func.func @causal_conv1d_width_1(%x: tensor<2x8x40xf32>, %w: tensor<8x1xf32>) {
  // expected-error @+1 {{'ssm.causal_conv1d' op operand 'weight' has shape (8, 1): width 1 is outside 2..4}}
  %o, %f = ssm.causal_conv1d identity %x, %w : (tensor<2x8x40xf32>, tensor<8x1xf32>) -> (tensor<2x8x40xf32>, tensor<2x8x0xf32>)
  return
}

// -----

func.func @causal_conv1d_width_5(%x: tensor<2x8x40xf32>, %w: tensor<8x5xf32>) {
  // expected-error @+1 {{'ssm.causal_conv1d' op operand 'weight' has shape (8, 5): width 5 is outside 2..4}}
  %o, %f = ssm.causal_conv1d silu %x, %w : (tensor<2x8x40xf32>, tensor<8x5xf32>) -> (tensor<2x8x40xf32>, tensor<2x8x4xf32>)
  return
}

// -----

func.func @causal_conv1d_weight_dim(%x: tensor<2x8x40xf32>, %w: tensor<16x4xf32>) {
  // expected-error @+1 {{'ssm.causal_conv1d' op operand 'weight' has shape (16, 4) but must be (dim, width) = (8, 4)}}
  %o, %f = ssm.causal_conv1d silu %x, %w : (tensor<2x8x40xf32>, tensor<16x4xf32>) -> (tensor<2x8x40xf32>, tensor<2x8x3xf32>)
  return
}

// -----

func.func @causal_conv1d_bias(%x: tensor<2x8x40xf32>, %w: tensor<8x4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'ssm.causal_conv1d' op operand 'bias' has shape (4,) but must be (dim) = (8,)}}
  %o, %f = ssm.causal_conv1d silu %x, %w bias(%b) : (tensor<2x8x40xf32>, tensor<8x4xf32>, tensor<4xf32>) -> (tensor<2x8x40xf32>, tensor<2x8x3xf32>)
  return
}

// -----

func.func @causal_conv1d_initial_states(%x: tensor<2x8x40xf32>, %w: tensor<8x4xf32>, %s: tensor<2x8x4xf32>) {
  // expected-error @+1 {{'ssm.causal_conv1d' op operand 'initial_states' has shape (2, 8, 4) but must be (batch, dim, width-1) = (2, 8, 3)}}
  %o, %f = ssm.causal_conv1d silu %x, %w initial_states(%s) : (tensor<2x8x40xf32>, tensor<8x4xf32>, tensor<2x8x4xf32>) -> (tensor<2x8x40xf32>, tensor<2x8x3xf32>)
  return
}

// -----

func.func @causal_conv1d_result_out(%x: tensor<2x8x40xf32>, %w: tensor<8x4xf32>) {
  // expected-error @+1 {{'ssm.causal_conv1d' op result 'out' has shape (2, 8, 37) but must be the shape of 'x' (batch, dim, L) = (2, 8, 40)}}
  %o, %f = ssm.causal_conv1d silu %x, %w : (tensor<2x8x40xf32>, tensor<8x4xf32>) -> (tensor<2x8x37xf32>, tensor<2x8x3xf32>)
  return
}

// -----

func.func @causal_conv1d_result_final_states(%x: tensor<2x8x40xf32>, %w: tensor<8x3xf32>) {
  // expected-error @+1 {{'ssm.causal_conv1d' op result 'final_states' has shape (2, 8, 3) but must be (batch, dim, width-1) = (2, 8, 2)}}
  %o, %f = ssm.causal_conv1d silu %x, %w : (tensor<2x8x40xf32>, tensor<8x3xf32>) -> (tensor<2x8x40xf32>, tensor<2x8x3xf32>)
  return
}

// -----

func.func @causal_conv1d_bad_activation(%x: tensor<2x8x40xf32>, %w: tensor<8x4xf32>) {
  // expected-error @+1 {{custom op 'ssm.causal_conv1d' expected string or keyword containing one of the following enum values for attribute 'activation' [identity, silu]}}
  %o, %f = ssm.causal_conv1d gelu %x, %w : (tensor<2x8x40xf32>, tensor<8x4xf32>) -> (tensor<2x8x40xf32>, tensor<2x8x3xf32>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// ssm.ssd_scan
//===----------------------------------------------------------------------===//

func.func @ssd_scan_X_rank(%X: tensor<64x4x16xf32>, %A: tensor<2x64x4xf32>, %B: tensor<2x64x2x8xf32>) {
  // expected-error @+1 {{'ssm.ssd_scan' op operand 'X' has shape (64, 4, 16) but must be rank 4 (batch, L, H, P)}}
  %y, %s = ssm.ssd_scan %X, %A, %B, %B : (tensor<64x4x16xf32>, tensor<2x64x4xf32>, tensor<2x64x2x8xf32>, tensor<2x64x2x8xf32>) -> (tensor<64x4x16xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

func.func @ssd_scan_B_rank(%X: tensor<2x64x4x16xf32>, %A: tensor<2x64x4xf32>, %B: tensor<2x64x8xf32>) {
  // expected-error @+1 {{'ssm.ssd_scan' op operand 'B' has shape (2, 64, 8) but must be rank 4 (batch, L, G, N)}}
  %y, %s = ssm.ssd_scan %X, %A, %B, %B : (tensor<2x64x4x16xf32>, tensor<2x64x4xf32>, tensor<2x64x8xf32>, tensor<2x64x8xf32>) -> (tensor<2x64x4x16xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

func.func @ssd_scan_B_length(%X: tensor<2x64x4x16xf32>, %A: tensor<2x64x4xf32>, %B: tensor<2x32x2x8xf32>) {
  // expected-error @+1 {{'ssm.ssd_scan' op operand 'B' has shape (2, 32, 2, 8) but must be (batch, L, G, N) = (2, 64, 2, 8)}}
  %y, %s = ssm.ssd_scan %X, %A, %B, %B : (tensor<2x64x4x16xf32>, tensor<2x64x4xf32>, tensor<2x32x2x8xf32>, tensor<2x32x2x8xf32>) -> (tensor<2x64x4x16xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

func.func @ssd_scan_groups(%X: tensor<2x64x4x16xf32>, %A: tensor<2x64x4xf32>, %B: tensor<2x64x3x8xf32>) {
  // expected-error @+1 {{'ssm.ssd_scan' op operand 'B' has 3 groups, which does not divide heads = 4}}
  %y, %s = ssm.ssd_scan %X, %A, %B, %B : (tensor<2x64x4x16xf32>, tensor<2x64x4xf32>, tensor<2x64x3x8xf32>, tensor<2x64x3x8xf32>) -> (tensor<2x64x4x16xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

func.func @ssd_scan_C(%X: tensor<2x64x4x16xf32>, %A: tensor<2x64x4xf32>, %B: tensor<2x64x2x8xf32>, %C: tensor<2x64x1x8xf32>) {
  // expected-error @+1 {{'ssm.ssd_scan' op operand 'C' has shape (2, 64, 1, 8) but must be (batch, L, G, N), the shape of 'B' = (2, 64, 2, 8)}}
  %y, %s = ssm.ssd_scan %X, %A, %B, %C : (tensor<2x64x4x16xf32>, tensor<2x64x4xf32>, tensor<2x64x2x8xf32>, tensor<2x64x1x8xf32>) -> (tensor<2x64x4x16xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

func.func @ssd_scan_A_rank(%X: tensor<2x64x4x16xf32>, %A: tensor<2x64xf32>, %B: tensor<2x64x2x8xf32>) {
  // expected-error @+1 {{'ssm.ssd_scan' op operand 'A' has shape (2, 64) but must be (batch, L, H) or (batch, L, H, N)}}
  %y, %s = ssm.ssd_scan %X, %A, %B, %B : (tensor<2x64x4x16xf32>, tensor<2x64xf32>, tensor<2x64x2x8xf32>, tensor<2x64x2x8xf32>) -> (tensor<2x64x4x16xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

func.func @ssd_scan_A_rank3_shape(%X: tensor<2x64x4x16xf32>, %A: tensor<2x64x2xf32>, %B: tensor<2x64x2x8xf32>) {
  // expected-error @+1 {{'ssm.ssd_scan' op operand 'A' has shape (2, 64, 2) but must be (batch, L, H) = (2, 64, 4)}}
  %y, %s = ssm.ssd_scan %X, %A, %B, %B : (tensor<2x64x4x16xf32>, tensor<2x64x2xf32>, tensor<2x64x2x8xf32>, tensor<2x64x2x8xf32>) -> (tensor<2x64x4x16xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

func.func @ssd_scan_A_rank4_shape(%X: tensor<2x64x4x16xf32>, %A: tensor<2x64x4x16xf32>, %B: tensor<2x64x2x8xf32>) {
  // expected-error @+1 {{'ssm.ssd_scan' op operand 'A' has shape (2, 64, 4, 16) but must be (batch, L, H, N) = (2, 64, 4, 8)}}
  %y, %s = ssm.ssd_scan %X, %A, %B, %B : (tensor<2x64x4x16xf32>, tensor<2x64x4x16xf32>, tensor<2x64x2x8xf32>, tensor<2x64x2x8xf32>) -> (tensor<2x64x4x16xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

func.func @ssd_scan_initial_state(%X: tensor<2x64x4x16xf32>, %A: tensor<2x64x4xf32>, %B: tensor<2x64x2x8xf32>, %S: tensor<2x4x8x16xf32>) {
  // expected-error @+1 {{'ssm.ssd_scan' op operand 'initial_state' has shape (2, 4, 8, 16) but must be (batch, H, P, N) = (2, 4, 16, 8)}}
  %y, %s = ssm.ssd_scan %X, %A, %B, %B initial_state(%S) : (tensor<2x64x4x16xf32>, tensor<2x64x4xf32>, tensor<2x64x2x8xf32>, tensor<2x64x2x8xf32>, tensor<2x4x8x16xf32>) -> (tensor<2x64x4x16xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

func.func @ssd_scan_bonus(%X: tensor<2x64x4x16xf32>, %A: tensor<2x64x4x8xf32>, %B: tensor<2x64x2x8xf32>, %u: tensor<4x16xf32>) {
  // expected-error @+1 {{'ssm.ssd_scan' op operand 'bonus' has shape (4, 16) but must be (H, N) = (4, 8)}}
  %y, %s = ssm.ssd_scan %X, %A, %B, %B bonus(%u) : (tensor<2x64x4x16xf32>, tensor<2x64x4x8xf32>, tensor<2x64x2x8xf32>, tensor<2x64x2x8xf32>, tensor<4x16xf32>) -> (tensor<2x64x4x16xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

func.func @ssd_scan_chunk_size_zero(%X: tensor<2x64x4x16xf32>, %A: tensor<2x64x4xf32>, %B: tensor<2x64x2x8xf32>) {
  // expected-error @+1 {{'ssm.ssd_scan' op chunk_size must be positive, got 0}}
  %y, %s = ssm.ssd_scan %X, %A, %B, %B {chunk_size = 0 : i64} : (tensor<2x64x4x16xf32>, tensor<2x64x4xf32>, tensor<2x64x2x8xf32>, tensor<2x64x2x8xf32>) -> (tensor<2x64x4x16xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

func.func @ssd_scan_result_Y(%X: tensor<2x64x4x16xf32>, %A: tensor<2x64x4xf32>, %B: tensor<2x64x2x8xf32>) {
  // expected-error @+1 {{'ssm.ssd_scan' op result 'Y' has shape (2, 64, 64) but must be the shape of 'X' (batch, L, H, P) = (2, 64, 4, 16)}}
  %y, %s = ssm.ssd_scan %X, %A, %B, %B : (tensor<2x64x4x16xf32>, tensor<2x64x4xf32>, tensor<2x64x2x8xf32>, tensor<2x64x2x8xf32>) -> (tensor<2x64x64xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

func.func @ssd_scan_result_final_state(%X: tensor<2x64x4x16xf32>, %A: tensor<2x64x4xf32>, %B: tensor<2x64x2x8xf32>) {
  // expected-error @+1 {{'ssm.ssd_scan' op result 'final_state' has shape (2, 2, 16, 8) but must be (batch, H, P, N) = (2, 4, 16, 8)}}
  %y, %s = ssm.ssd_scan %X, %A, %B, %B : (tensor<2x64x4x16xf32>, tensor<2x64x4xf32>, tensor<2x64x2x8xf32>, tensor<2x64x2x8xf32>) -> (tensor<2x64x4x16xf32>, tensor<2x2x16x8xf32>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// Unknown ops
//===----------------------------------------------------------------------===//

func.func @unknown_custom_op(%a: tensor<4xf32>) {
  // expected-error @+1 {{custom op 'ssm.frobnicate' is unknown}}
  %0 = ssm.frobnicate %a : tensor<4xf32>
  return
}

// -----

func.func @unknown_generic_op(%a: tensor<4xf32>) {
  // expected-error @+1 {{unregistered operation 'ssm.frobnicate' found in dialect ('ssm') that does not allow unknown operations}}
  %0 = "ssm.frobnicate"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @lti_kernel_dynamic_length(%A: tensor<8x4xf32>, %C: tensor<8x4xf32>, %dt: tensor<8xf32>) {
  // expected-error @+1 {{'ssm.lti_kernel' op result 'K' has shape (8, ?) but must be (H, length) with a static length}}
  %K = ssm.lti_kernel zoh %A, %C, %dt : (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<8x?xf32>
  return
}
