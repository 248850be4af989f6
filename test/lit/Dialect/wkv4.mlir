// RUN: ssm-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: ssm-opt %s -split-input-file -verify-diagnostics --mlir-print-op-generic | ssm-opt -split-input-file | FileCheck %s

// ssm.wkv4 (RWKV-4 WKV): round trip of its forms (with and without the
// state operands, dynamic sizes) and one case per verifier diagnostic.

// CHECK-LABEL: func.func @wkv4_state(
func.func @wkv4_state(%w: tensor<64xf32>, %u: tensor<64xf32>, %k: tensor<1x16x64xf32>,
                      %v: tensor<1x16x64xf32>, %aa: tensor<1x64xf32>, %bb: tensor<1x64xf32>,
                      %pp: tensor<1x64xf32>) -> tensor<1x16x64xf32> {
  // CHECK: ssm.wkv4 %arg0, %arg1, %arg2, %arg3 state(%arg4, %arg5, %arg6) : (tensor<64xf32>, tensor<64xf32>, tensor<1x16x64xf32>, tensor<1x16x64xf32>, tensor<1x64xf32>, tensor<1x64xf32>, tensor<1x64xf32>) -> (tensor<1x16x64xf32>, tensor<1x64xf32>, tensor<1x64xf32>, tensor<1x64xf32>)
  %wkv, %aa1, %bb1, %pp1 = ssm.wkv4 %w, %u, %k, %v state(%aa, %bb, %pp)
      : (tensor<64xf32>, tensor<64xf32>, tensor<1x16x64xf32>, tensor<1x16x64xf32>,
         tensor<1x64xf32>, tensor<1x64xf32>, tensor<1x64xf32>)
      -> (tensor<1x16x64xf32>, tensor<1x64xf32>, tensor<1x64xf32>, tensor<1x64xf32>)
  return %wkv : tensor<1x16x64xf32>
}

// -----

// CHECK-LABEL: func.func @wkv4_no_state(
func.func @wkv4_no_state(%w: tensor<8xf32>, %u: tensor<8xf32>, %k: tensor<2x3x8xf32>,
                         %v: tensor<2x3x8xf32>) -> tensor<2x8xf32> {
  // CHECK: ssm.wkv4 %arg0, %arg1, %arg2, %arg3 : (tensor<8xf32>, tensor<8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> (tensor<2x3x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>)
  %wkv, %aa, %bb, %pp = ssm.wkv4 %w, %u, %k, %v
      : (tensor<8xf32>, tensor<8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>)
      -> (tensor<2x3x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>)
  return %pp : tensor<2x8xf32>
}

// -----

// CHECK-LABEL: func.func @wkv4_dynamic(
func.func @wkv4_dynamic(%w: tensor<8xf32>, %u: tensor<8xf32>, %k: tensor<1x?x8xf32>,
                        %v: tensor<1x?x8xf32>) -> tensor<1x?x8xf32> {
  // CHECK: ssm.wkv4 %arg0, %arg1, %arg2, %arg3 : (tensor<8xf32>, tensor<8xf32>, tensor<1x?x8xf32>, tensor<1x?x8xf32>) -> (tensor<1x?x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>)
  %wkv, %aa, %bb, %pp = ssm.wkv4 %w, %u, %k, %v
      : (tensor<8xf32>, tensor<8xf32>, tensor<1x?x8xf32>, tensor<1x?x8xf32>)
      -> (tensor<1x?x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>)
  return %wkv : tensor<1x?x8xf32>
}

// -----

func.func @wkv4_k_rank(%w: tensor<8xf32>, %k: tensor<3x8xf32>) {
  // expected-error @+1 {{'ssm.wkv4' op operand 'k' has shape (3, 8) but must be rank 3 (batch, L, C)}}
  %wkv, %aa, %bb, %pp = ssm.wkv4 %w, %w, %k, %k
      : (tensor<8xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<3x8xf32>)
      -> (tensor<3x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>)
  return
}

// -----

func.func @wkv4_v_shape(%w: tensor<8xf32>, %k: tensor<1x3x8xf32>, %v: tensor<1x4x8xf32>) {
  // expected-error @+1 {{'ssm.wkv4' op operand 'v' has shape (1, 4, 8) but must be the shape of 'k' (batch, L, C) = (1, 3, 8)}}
  %wkv, %aa, %bb, %pp = ssm.wkv4 %w, %w, %k, %v
      : (tensor<8xf32>, tensor<8xf32>, tensor<1x3x8xf32>, tensor<1x4x8xf32>)
      -> (tensor<1x3x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>)
  return
}

// -----

func.func @wkv4_w_shape(%w: tensor<7xf32>, %u: tensor<8xf32>, %k: tensor<1x3x8xf32>) {
  // expected-error @+1 {{'ssm.wkv4' op operand 'w' has shape (7,) but must be (C) = (8,)}}
  %wkv, %aa, %bb, %pp = ssm.wkv4 %w, %u, %k, %k
      : (tensor<7xf32>, tensor<8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32>)
      -> (tensor<1x3x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>)
  return
}

// -----

func.func @wkv4_u_shape(%w: tensor<8xf32>, %u: tensor<1x8xf32>, %k: tensor<1x3x8xf32>) {
  // expected-error @+1 {{'ssm.wkv4' op operand 'u' has shape (1, 8) but must be (C) = (8,)}}
  %wkv, %aa, %bb, %pp = ssm.wkv4 %w, %u, %k, %k
      : (tensor<8xf32>, tensor<1x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32>)
      -> (tensor<1x3x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>)
  return
}

// -----

func.func @wkv4_partial_state(%w: tensor<8xf32>, %k: tensor<1x3x8xf32>, %s: tensor<1x8xf32>) {
  // expected-error @+1 {{'ssm.wkv4' op takes the state operands 'aa', 'bb' and 'pp' together: 1 of 3 given}}
  %wkv, %aa, %bb, %pp = "ssm.wkv4"(%w, %w, %k, %k, %s) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0>}
      : (tensor<8xf32>, tensor<8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x8xf32>)
      -> (tensor<1x3x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>)
  return
}

// -----

func.func @wkv4_state_shape(%w: tensor<8xf32>, %k: tensor<1x3x8xf32>, %s: tensor<1x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'ssm.wkv4' op operand 'bb' has shape (8,) but must be (batch, C) = (1, 8)}}
  %wkv, %aa, %bb, %pp = ssm.wkv4 %w, %w, %k, %k state(%s, %b, %s)
      : (tensor<8xf32>, tensor<8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x8xf32>, tensor<8xf32>, tensor<1x8xf32>)
      -> (tensor<1x3x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>)
  return
}

// -----

func.func @wkv4_result_shape(%w: tensor<8xf32>, %k: tensor<1x3x8xf32>) {
  // expected-error @+1 {{'ssm.wkv4' op result 'pp_out' has shape (8,) but must be (batch, C) = (1, 8)}}
  %wkv, %aa, %bb, %pp = ssm.wkv4 %w, %w, %k, %k
      : (tensor<8xf32>, tensor<8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32>)
      -> (tensor<1x3x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<8xf32>)
  return
}

// -----

func.func @wkv4_f64(%w: tensor<8xf64>, %k: tensor<1x3x8xf32>) {
  // expected-error @+1 {{'ssm.wkv4' op operand #0 must be ranked tensor of 32-bit float values, but got 'tensor<8xf64>'}}
  %wkv, %aa, %bb, %pp = ssm.wkv4 %w, %w, %k, %k
      : (tensor<8xf64>, tensor<8xf64>, tensor<1x3x8xf32>, tensor<1x3x8xf32>)
      -> (tensor<1x3x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>)
  return
}
