// RUN: ssm-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: ssm-opt %s -split-input-file -verify-diagnostics --mlir-print-op-generic | ssm-opt -split-input-file | FileCheck %s
// RUN: ssm-opt %s -split-input-file -verify-diagnostics -ssm-cpu-pipeline=target=x86-64-linux-avx2 | FileCheck %s --check-prefix=SCHED

// ssm.quantize_activations (activation rows rounded as ggml's CPU matmuls
// quantise them): round trip of its formats, the verifier's messages, and
// no #ssm.schedule of its own (codegen makes elementwise stages of it).

// CHECK-LABEL: func.func @formats(
// SCHED-LABEL: func.func @formats(
func.func @formats(%x: tensor<4x512xf32>, %y: tensor<3x7xf32>)
    -> (tensor<4x512xf32>, tensor<4x512xf32>, tensor<4x512xf32>, tensor<3x7xf32>, tensor<3x7xf32>) {
  // CHECK: ssm.quantize_activations %arg0 {format = "q8_0"} : tensor<4x512xf32>
  // CHECK: ssm.quantize_activations %arg0 {format = "q8_1"} : tensor<4x512xf32>
  // CHECK: ssm.quantize_activations %arg0 {format = "q8_K"} : tensor<4x512xf32>
  // CHECK: ssm.quantize_activations %arg1 {format = "f16"} : tensor<3x7xf32>
  // CHECK: ssm.quantize_activations %arg1 {format = "bf16"} : tensor<3x7xf32>
  // SCHED: ssm.quantize_activations %arg0 {format = "q8_0"} : tensor<4x512xf32>
  // SCHED-NOT: ssm.schedule
  %0 = ssm.quantize_activations %x {format = "q8_0"} : tensor<4x512xf32>
  %1 = ssm.quantize_activations %x {format = "q8_1"} : tensor<4x512xf32>
  %2 = ssm.quantize_activations %x {format = "q8_K"} : tensor<4x512xf32>
  %3 = ssm.quantize_activations %y {format = "f16"} : tensor<3x7xf32>
  %4 = ssm.quantize_activations %y {format = "bf16"} : tensor<3x7xf32>
  return %0, %1, %2, %3, %4 : tensor<4x512xf32>, tensor<4x512xf32>, tensor<4x512xf32>, tensor<3x7xf32>, tensor<3x7xf32>
}

// -----

func.func @unknown_format(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  // expected-error @+1 {{'format' is 'q4_0' but must be one of q8_0, q8_1, q8_K, f16, bf16}}
  %0 = ssm.quantize_activations %x {format = "q4_0"} : tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

func.func @partial_block(%x: tensor<4x48xf32>) -> tensor<4x48xf32> {
  // expected-error @+1 {{'input' has a last dim of 48, not a multiple of 32 (the blocks of q8_0)}}
  %0 = ssm.quantize_activations %x {format = "q8_0"} : tensor<4x48xf32>
  return %0 : tensor<4x48xf32>
}

// -----

func.func @partial_superblock(%x: tensor<2x384xf32>) -> tensor<2x384xf32> {
  // expected-error @+1 {{'input' has a last dim of 384, not a multiple of 256 (the blocks of q8_K)}}
  %0 = ssm.quantize_activations %x {format = "q8_K"} : tensor<2x384xf32>
  return %0 : tensor<2x384xf32>
}

// -----

func.func @scalar(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'input' must have rank 1 or more (rows along its last dim), got a rank-0 tensor}}
  %0 = ssm.quantize_activations %x {format = "f16"} : tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @scheduled(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  // expected-error @+1 {{schedule field 'vector_width' does not apply to 'ssm.quantize_activations'}}
  %0 = ssm.quantize_activations %x {format = "q8_0", ssm.schedule = #ssm.schedule<vector_width = 8>} : tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}
