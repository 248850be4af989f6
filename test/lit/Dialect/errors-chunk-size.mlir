// RUN: ssm-opt %s -split-input-file -verify-diagnostics
//
// A negative chunk_size must be rejected like 0 (errors.mlir): chunk_size is an
// I64Attr, whose getter returns uint64_t, so the verifier must read it signed.

func.func @ssd_scan_chunk_size_negative(%X: tensor<2x64x4x16xf32>, %A: tensor<2x64x4xf32>, %B: tensor<2x64x2x8xf32>) {
  // expected-error @+1 {{'ssm.ssd_scan' op chunk_size must be positive, got -16}}
  %y, %s = ssm.ssd_scan %X, %A, %B, %B {chunk_size = -16 : i64} : (tensor<2x64x4x16xf32>, tensor<2x64x4xf32>, tensor<2x64x2x8xf32>, tensor<2x64x2x8xf32>) -> (tensor<2x64x4x16xf32>, tensor<2x4x16x8xf32>)
  return
}
