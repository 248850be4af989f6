// RUN: ssm-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: ssm-opt %s -split-input-file -verify-diagnostics --mlir-print-op-generic | ssm-opt -split-input-file | FileCheck %s
// RUN: ssm-opt %s -split-input-file -verify-diagnostics -ssm-cpu-pipeline=target=x86-64-linux-avx2 | FileCheck %s --check-prefix=SCHED

// ssm.dequantize (a weight in 16-bit or block-scaled int8 storage read as
// f32): round trip of its forms, the verifier's messages naming the operand,
// and no schedule of its own (it is read inside its users' loops).

// CHECK-LABEL: func.func @widen(
// SCHED-LABEL: func.func @widen(
func.func @widen(%w: tensor<64x96xf16>, %b: tensor<8x32xbf16>) -> (tensor<64x96xf32>, tensor<8x32xf32>) {
  // CHECK: ssm.dequantize %arg0 : (tensor<64x96xf16>) -> tensor<64x96xf32>
  // CHECK: ssm.dequantize %arg1 : (tensor<8x32xbf16>) -> tensor<8x32xf32>
  // SCHED: ssm.dequantize %arg0 : (tensor<64x96xf16>) -> tensor<64x96xf32>
  // SCHED-NOT: ssm.schedule
  %0 = ssm.dequantize %w : (tensor<64x96xf16>) -> tensor<64x96xf32>
  %1 = ssm.dequantize %b : (tensor<8x32xbf16>) -> tensor<8x32xf32>
  return %0, %1 : tensor<64x96xf32>, tensor<8x32xf32>
}

// -----

// CHECK-LABEL: func.func @q8(
func.func @q8(%q: tensor<64x96xi8>, %s: tensor<64x3xf16>, %q2: tensor<4x33xi8>, %s2: tensor<4x3xf32>)
    -> (tensor<64x96xf32>, tensor<4x33xf32>) {
  // CHECK: ssm.dequantize %arg0, %arg1 : (tensor<64x96xi8>, tensor<64x3xf16>) -> tensor<64x96xf32>
  %0 = ssm.dequantize %q, %s : (tensor<64x96xi8>, tensor<64x3xf16>) -> tensor<64x96xf32>
  // A partial last block, blocks of 16, f32 scales.
  // CHECK: ssm.dequantize %arg2, %arg3 {block_size = 16 : i64} : (tensor<4x33xi8>, tensor<4x3xf32>) -> tensor<4x33xf32>
  %1 = ssm.dequantize %q2, %s2 {block_size = 16} : (tensor<4x33xi8>, tensor<4x3xf32>) -> tensor<4x33xf32>
  return %0, %1 : tensor<64x96xf32>, tensor<4x33xf32>
}

// -----

// Blocks with an offset (ggml's Q4_K / Q5_K: w = q * scale - min).
// CHECK-LABEL: func.func @q8min(
func.func @q8min(%q: tensor<64x96xi8>, %s: tensor<64x3xf32>, %m: tensor<64x3xf32>) -> tensor<64x96xf32> {
  // CHECK: ssm.dequantize %arg0, %arg1 min %arg2 : (tensor<64x96xi8>, tensor<64x3xf32>, tensor<64x3xf32>) -> tensor<64x96xf32>
  %0 = ssm.dequantize %q, %s min %m : (tensor<64x96xi8>, tensor<64x3xf32>, tensor<64x3xf32>) -> tensor<64x96xf32>
  return %0 : tensor<64x96xf32>
}

// -----

func.func @bad_min(%q: tensor<64x96xi8>, %s: tensor<64x3xf32>, %m: tensor<64x6xf32>) -> tensor<64x96xf32> {
  // expected-error @+1 {{operand 'min' has shape (64, 6) but must be the shape of 'scale' (one min per block of block_size) = (64, 3)}}
  %0 = ssm.dequantize %q, %s min %m : (tensor<64x96xi8>, tensor<64x3xf32>, tensor<64x6xf32>) -> tensor<64x96xf32>
  return %0 : tensor<64x96xf32>
}

// -----

func.func @min_no_scale(%q: tensor<64x96xi8>, %m: tensor<64x3xf32>) -> tensor<64x96xf32> {
  // expected-error @+1 {{an i8 'input' needs a 'scale' operand (one per block of 32 along the last dim); 'min' alone is not enough}}
  %0 = ssm.dequantize %q min %m : (tensor<64x96xi8>, tensor<64x3xf32>) -> tensor<64x96xf32>
  return %0 : tensor<64x96xf32>
}

// -----

func.func @min_on_f16(%w: tensor<64x96xf16>, %m: tensor<64x3xf32>) -> tensor<64x96xf32> {
  // expected-error @+1 {{'min' needs an i8 'input' with a 'scale' (w = q * scale - min)}}
  %0 = ssm.dequantize %w min %m : (tensor<64x96xf16>, tensor<64x3xf32>) -> tensor<64x96xf32>
  return %0 : tensor<64x96xf32>
}

// -----

func.func @no_scale(%q: tensor<64x96xi8>) -> tensor<64x96xf32> {
  // expected-error @+1 {{an i8 'input' needs a 'scale' operand (one per block of 32 along the last dim)}}
  %0 = ssm.dequantize %q : (tensor<64x96xi8>) -> tensor<64x96xf32>
  return %0 : tensor<64x96xf32>
}

// -----

func.func @bad_scale(%q: tensor<64x96xi8>, %s: tensor<64x4xf16>) -> tensor<64x96xf32> {
  // expected-error @+1 {{operand 'scale' has shape (64, 4) but must be the shape of 'input' with its last dim in blocks of block_size = (64, 3)}}
  %0 = ssm.dequantize %q, %s : (tensor<64x96xi8>, tensor<64x4xf16>) -> tensor<64x96xf32>
  return %0 : tensor<64x96xf32>
}

// -----

func.func @scale_on_f16(%w: tensor<64x96xf16>, %s: tensor<64x3xf16>) -> tensor<64x96xf32> {
  // expected-error @+1 {{'scale' applies to an i8 'input' only; a 'f16' 'input' is widened without one}}
  %0 = ssm.dequantize %w, %s : (tensor<64x96xf16>, tensor<64x3xf16>) -> tensor<64x96xf32>
  return %0 : tensor<64x96xf32>
}

// -----

func.func @bad_result(%w: tensor<64x96xf16>) -> tensor<96x64xf32> {
  // expected-error @+1 {{result 'result' has shape (96, 64) but must be the shape of 'input' = (64, 96)}}
  %0 = ssm.dequantize %w : (tensor<64x96xf16>) -> tensor<96x64xf32>
  return %0 : tensor<96x64xf32>
}

// -----

func.func @scheduled(%w: tensor<64x96xf16>) -> tensor<64x96xf32> {
  // expected-error @+1 {{schedule field 'vector_width' does not apply to 'ssm.dequantize'}}
  %0 = ssm.dequantize %w {ssm.schedule = #ssm.schedule<vector_width = 8>} : (tensor<64x96xf16>) -> tensor<64x96xf32>
  return %0 : tensor<64x96xf32>
}
