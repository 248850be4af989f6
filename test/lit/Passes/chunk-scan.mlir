// ssm-chunk-scan preserves meaning: on the reference interpreter the chunked
// scan (chunk-local scans, carry scan, fix-up) gives the sequential scan's
// h and h_last within rtol 1e-5 / atol 1e-6 (f32 rounding of the regrouped
// sums) for chunk sizes 1, 7, 64, L-1, L and L+1 at L = 2049 and 1, 7, L,
// L+1 at L = 1, forwards and reversed, with h0; with per-step decays of
// exp(-10) (a log decay of -160 over a chunk of 16) every output is finite
// and equal to the sequential one; a reset at step 2 of unit steps gives
// [1, 2, 1, 2] for every chunk size.
// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-run %s --function long --seed 3 --output-dir %t/long
// RUN: ssm-run %s --function one --seed 3 --output-dir %t/one
// RUN: ssm-run %s --function rev --seed 3 --output-dir %t/rev
// RUN: ssm-run %s --function decay --seed 3 --output-dir %t/decay
// DEFINE: %{cmp} = --rtol 1e-5 --atol 1e-6 | FileCheck %s
// RUN: ssm-opt %s -ssm-chunk-scan=chunk=1 -o %t/c1.mlir
// RUN: ssm-run %t/c1.mlir --function long --seed 3 --expected %t/long/result0.npy --expected %t/long/result1.npy %{cmp}
// RUN: ssm-run %t/c1.mlir --function rev --seed 3 --expected %t/rev/result0.npy --expected %t/rev/result1.npy %{cmp}
// RUN: ssm-run %t/c1.mlir --function resets --print | FileCheck %s --check-prefix=RESET
// RUN: ssm-opt %s -ssm-chunk-scan=chunk=7 -o %t/c7.mlir
// RUN: ssm-run %t/c7.mlir --function long --seed 3 --expected %t/long/result0.npy --expected %t/long/result1.npy %{cmp}
// RUN: ssm-run %t/c7.mlir --function rev --seed 3 --expected %t/rev/result0.npy --expected %t/rev/result1.npy %{cmp}
// RUN: ssm-run %t/c7.mlir --function resets --print | FileCheck %s --check-prefix=RESET
// RUN: ssm-opt %s -ssm-chunk-scan=chunk=64 -o %t/c64.mlir
// RUN: ssm-run %t/c64.mlir --function long --seed 3 --expected %t/long/result0.npy --expected %t/long/result1.npy %{cmp}
// RUN: ssm-run %t/c64.mlir --function rev --seed 3 --expected %t/rev/result0.npy --expected %t/rev/result1.npy %{cmp}
// RUN: ssm-run %t/c64.mlir --function resets --print | FileCheck %s --check-prefix=RESET
// RUN: ssm-opt %s -ssm-chunk-scan=chunk=2048 -o %t/c2048.mlir
// RUN: ssm-run %t/c2048.mlir --function long --seed 3 --expected %t/long/result0.npy --expected %t/long/result1.npy %{cmp}
// RUN: ssm-run %t/c2048.mlir --function rev --seed 3 --expected %t/rev/result0.npy --expected %t/rev/result1.npy %{cmp}
// RUN: ssm-run %t/c2048.mlir --function resets --print | FileCheck %s --check-prefix=RESET
// RUN: ssm-opt %s -ssm-chunk-scan=chunk=2049 -o %t/c2049.mlir
// RUN: ssm-run %t/c2049.mlir --function long --seed 3 --expected %t/long/result0.npy --expected %t/long/result1.npy %{cmp}
// RUN: ssm-run %t/c2049.mlir --function rev --seed 3 --expected %t/rev/result0.npy --expected %t/rev/result1.npy %{cmp}
// RUN: ssm-run %t/c2049.mlir --function resets --print | FileCheck %s --check-prefix=RESET
// RUN: ssm-opt %s -ssm-chunk-scan=chunk=2050 -o %t/c2050.mlir
// RUN: ssm-run %t/c2050.mlir --function long --seed 3 --expected %t/long/result0.npy --expected %t/long/result1.npy %{cmp}
// RUN: ssm-run %t/c2050.mlir --function rev --seed 3 --expected %t/rev/result0.npy --expected %t/rev/result1.npy %{cmp}
// RUN: ssm-run %t/c2050.mlir --function resets --print | FileCheck %s --check-prefix=RESET
// RUN: ssm-opt %s -ssm-chunk-scan=chunk=1 -o %t/d1.mlir
// RUN: ssm-run %t/d1.mlir --function one --seed 3 --expected %t/one/result0.npy --expected %t/one/result1.npy %{cmp}
// RUN: ssm-opt %s -ssm-chunk-scan=chunk=7 -o %t/d7.mlir
// RUN: ssm-run %t/d7.mlir --function one --seed 3 --expected %t/one/result0.npy --expected %t/one/result1.npy %{cmp}
// RUN: ssm-opt %s -ssm-chunk-scan=chunk=2 -o %t/d2.mlir
// RUN: ssm-run %t/d2.mlir --function one --seed 3 --expected %t/one/result0.npy --expected %t/one/result1.npy %{cmp}
// RUN: ssm-opt %s -ssm-chunk-scan=chunk=16 -o %t/c16.mlir
// RUN: ssm-run %t/c16.mlir --function decay --seed 3 --expected %t/decay/result0.npy --expected %t/decay/result1.npy %{cmp}
// RUN: FileCheck %s --check-prefix=IR < %t/c7.mlir
// RUN: not ssm-opt %s -ssm-chunk-scan=chunk=0 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK: result0 max_abs={{.*}} PASS
// CHECK: result1 max_abs={{.*}} PASS
// RESET: 1, 2, 1, 2
// IR-LABEL: func.func @long
// IR-COUNT-3: ssm.affine_scan
// IR: linalg.generic
// IR: tensor.collapse_shape
// BAD: ssm-chunk-scan: chunk must be positive, got 0

func.func @long(%a: tensor<2x2049x3xf32>, %b: tensor<2x2049x3xf32>, %h0: tensor<2x3xf32>) -> (tensor<2x2049x3xf32>, tensor<2x3xf32>) {
  %h, %last = ssm.affine_scan %a, %b h0(%h0) along 1 : (tensor<2x2049x3xf32>, tensor<2x2049x3xf32>, tensor<2x3xf32>) -> (tensor<2x2049x3xf32>, tensor<2x3xf32>)
  return %h, %last : tensor<2x2049x3xf32>, tensor<2x3xf32>
}

func.func @rev(%a: tensor<3x2049xf32>, %b: tensor<3x2049xf32>, %h0: tensor<3xf32>) -> (tensor<3x2049xf32>, tensor<3xf32>) {
  %h, %last = ssm.affine_scan %a, %b h0(%h0) along 1 reverse : (tensor<3x2049xf32>, tensor<3x2049xf32>, tensor<3xf32>) -> (tensor<3x2049xf32>, tensor<3xf32>)
  return %h, %last : tensor<3x2049xf32>, tensor<3xf32>
}

func.func @one(%a: tensor<4x1xf32>, %b: tensor<4x1xf32>) -> (tensor<4x1xf32>, tensor<4xf32>) {
  %h, %last = ssm.affine_scan %a, %b along 1 : (tensor<4x1xf32>, tensor<4x1xf32>) -> (tensor<4x1xf32>, tensor<4xf32>)
  return %h, %last : tensor<4x1xf32>, tensor<4xf32>
}

// a = exp(-10) at every step (broadcast over the channels).
func.func @decay(%b: tensor<64x5xf32>) -> (tensor<64x5xf32>, tensor<5xf32>) {
  %a = arith.constant dense<4.5399929762484854e-05> : tensor<64x1xf32>
  %h, %last = ssm.affine_scan %a, %b along 0 : (tensor<64x1xf32>, tensor<64x5xf32>) -> (tensor<64x5xf32>, tensor<5xf32>)
  return %h, %last : tensor<64x5xf32>, tensor<5xf32>
}

// seq_idx = [0, 0, 1, 1]: a reset where the second sequence starts.
func.func @resets() -> (tensor<4xf32>, tensor<f32>) {
  %a = arith.constant dense<1.0> : tensor<4xf32>
  %b = arith.constant dense<1.0> : tensor<4xf32>
  %r = arith.constant dense<[false, false, true, false]> : tensor<4xi1>
  %h, %last = ssm.affine_scan %a, %b reset(%r) along 0 : (tensor<4xf32>, tensor<4xf32>, tensor<4xi1>) -> (tensor<4xf32>, tensor<f32>)
  return %h, %last : tensor<4xf32>, tensor<f32>
}
