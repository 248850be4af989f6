// RUN: ssm-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: ssm-opt %s -split-input-file -verify-diagnostics --mlir-print-op-generic | ssm-opt -split-input-file | FileCheck %s

// ssm.wkv7 (RWKV-7's generalised delta rule): round trip of its forms (with
// and without the initial state, a symbolic length) and the verifier's
// messages, which name the operand and the shape it must have.

// CHECK-LABEL: func.func @wkv7_state(
func.func @wkv7_state(%x: tensor<1x16x2x32xf32>, %s: tensor<1x2x32x32xf32>)
    -> (tensor<1x16x2x32xf32>, tensor<1x2x32x32xf32>) {
  // CHECK: ssm.wkv7 %arg0, %arg0, %arg0, %arg0, %arg0, %arg0 initial_state(%arg1) : (tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32>, tensor<1x2x32x32xf32>) -> (tensor<1x16x2x32xf32>, tensor<1x2x32x32xf32>)
  %y, %s1 = ssm.wkv7 %x, %x, %x, %x, %x, %x initial_state(%s)
      : (tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32>,
         tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32>, tensor<1x2x32x32xf32>)
      -> (tensor<1x16x2x32xf32>, tensor<1x2x32x32xf32>)
  return %y, %s1 : tensor<1x16x2x32xf32>, tensor<1x2x32x32xf32>
}

// -----

// CHECK-LABEL: func.func @wkv7_dynamic(
func.func @wkv7_dynamic(%x: tensor<2x?x1x4xf32>) -> tensor<2x1x4x4xf32> {
  // CHECK: ssm.wkv7 %arg0, %arg0, %arg0, %arg0, %arg0, %arg0 : (
  %y, %s = ssm.wkv7 %x, %x, %x, %x, %x, %x
      : (tensor<2x?x1x4xf32>, tensor<2x?x1x4xf32>, tensor<2x?x1x4xf32>, tensor<2x?x1x4xf32>,
         tensor<2x?x1x4xf32>, tensor<2x?x1x4xf32>) -> (tensor<2x?x1x4xf32>, tensor<2x1x4x4xf32>)
  return %s : tensor<2x1x4x4xf32>
}

// -----

func.func @wkv7_rank(%x: tensor<16x64xf32>) {
  // expected-error @+1 {{'ssm.wkv7' op operand 'r' has shape (16, 64) but must be rank 4 (batch, L, H, N)}}
  %y, %s = ssm.wkv7 %x, %x, %x, %x, %x, %x
      : (tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>,
         tensor<16x64xf32>, tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<1x1x64x64xf32>)
  return
}

// -----

func.func @wkv7_b_shape(%x: tensor<1x3x2x4xf32>, %b: tensor<1x3x2x5xf32>) {
  // expected-error @+1 {{'ssm.wkv7' op operand 'b' has shape (1, 3, 2, 5) but must be the shape of 'r' (batch, L, H, N) = (1, 3, 2, 4)}}
  %y, %s = ssm.wkv7 %x, %x, %x, %x, %x, %b
      : (tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>,
         tensor<1x3x2x4xf32>, tensor<1x3x2x5xf32>) -> (tensor<1x3x2x4xf32>, tensor<1x2x4x4xf32>)
  return
}

// -----

func.func @wkv7_state_shape(%x: tensor<1x3x2x4xf32>, %s0: tensor<1x2x4x3xf32>) {
  // expected-error @+1 {{'ssm.wkv7' op operand 'initial_state' has shape (1, 2, 4, 3) but must be (batch, H, N, N) = (1, 2, 4, 4)}}
  %y, %s = ssm.wkv7 %x, %x, %x, %x, %x, %x initial_state(%s0)
      : (tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>,
         tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>, tensor<1x2x4x3xf32>) -> (tensor<1x3x2x4xf32>, tensor<1x2x4x4xf32>)
  return
}

// -----

func.func @wkv7_result_shape(%x: tensor<1x3x2x4xf32>) {
  // expected-error @+1 {{'ssm.wkv7' op result 'final_state' has shape (2, 4, 4) but must be (batch, H, N, N) = (1, 2, 4, 4)}}
  %y, %s = ssm.wkv7 %x, %x, %x, %x, %x, %x
      : (tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>,
         tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>) -> (tensor<1x3x2x4xf32>, tensor<2x4x4xf32>)
  return
}

// -----

func.func @wkv7_f64(%x: tensor<1x3x2x4xf64>) {
  // expected-error @+1 {{'ssm.wkv7' op operand #0 must be ranked tensor of 32-bit float values, but got 'tensor<1x3x2x4xf64>'}}
  %y, %s = ssm.wkv7 %x, %x, %x, %x, %x, %x
      : (tensor<1x3x2x4xf64>, tensor<1x3x2x4xf64>, tensor<1x3x2x4xf64>, tensor<1x3x2x4xf64>,
         tensor<1x3x2x4xf64>, tensor<1x3x2x4xf64>) -> (tensor<1x3x2x4xf32>, tensor<1x2x4x4xf32>)
  return
}
