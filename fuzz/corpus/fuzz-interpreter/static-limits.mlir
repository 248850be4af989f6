// Static slices outside their tensor and tensors too large to hold: MLIR 19's
// verifiers accept them, so the tools check them after parsing
// (frontend/StaticLimits.h) and exit 1 with the op's location, before
// anything is allocated. Before: exit 0 with garbage (the interpreter read
// and wrote out of bounds), SIGSEGV at stride 2^31, std::length_error or
// "LLVM ERROR: out of memory" aborts, and a 2^64-element shape whose product
// wrapped to 0 ran with exit 0.

// DEFINE: %{run} = sh -c 'ssm-run %S/Inputs/$0 --seed 0; echo "exit=$?"'
// DEFINE: %{opt} = sh -c 'ssm-opt %S/Inputs/$0; echo "exit=$?"'

// RUN: %{run} slice-offset.mlir 2>&1 | FileCheck %s --check-prefix=OFFSET
// RUN: %{opt} slice-offset.mlir 2>&1 | FileCheck %s --check-prefix=OFFSET
// OFFSET: slice-offset.mlir:3:8: error: the slice of dim 0 (offset 3, size 2, stride 1) reaches index 4, outside the source of size 4
// OFFSET: exit=1

// RUN: %{run} slice-stride.mlir 2>&1 | FileCheck %s --check-prefix=STRIDE
// STRIDE: slice-stride.mlir:3:8: error: the slice of dim 0 (offset 0, size 2, stride 2147483648) reaches index 2147483648, outside the source of size 4
// STRIDE: exit=1

// RUN: %{run} insert-offset.mlir 2>&1 | FileCheck %s --check-prefix=INSERT
// RUN: sh -c 'ssm-run %S/Inputs/insert-offset.mlir --seed 0 --engine cpu; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=INSERT
// INSERT: insert-offset.mlir:3:8: error: the slice of dim 1 (offset 6, size 4, stride 1) reaches index 9, outside the destination of size 8
// INSERT: exit=1

// RUN: %{run} huge-i64.mlir 2>&1 | FileCheck %s --check-prefix=I64
// RUN: %{opt} huge-i64.mlir 2>&1 | FileCheck %s --check-prefix=I64
// I64: huge-i64.mlir:2:1: error: tensor<9223372036854775807xf32> has 9223372036854775807 elements; the most a tensor may have is 2147483647 (2^31 - 1)
// I64: exit=1

// RUN: %{run} huge-3d.mlir 2>&1 | FileCheck %s --check-prefix=HUGE3D
// RUN: sh -c 'ssm-run %S/Inputs/huge-3d.mlir --seed 0 --engine cpu; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=HUGE3D
// HUGE3D: huge-3d.mlir:2:1: error: tensor<1x2147483647x8xf32> has 17179869176 elements
// HUGE3D: exit=1

// RUN: %{run} huge-overflow.mlir 2>&1 | FileCheck %s --check-prefix=WRAP
// WRAP: huge-overflow.mlir:2:1: error: tensor<4294967296x4294967296xf32> has more elements than int64 can count
// WRAP: exit=1

// RUN: %{run} huge-result.mlir 2>&1 | FileCheck %s --check-prefix=RESULT
// RESULT: huge-result.mlir:3:8: error: tensor<65536x65536xf32> has 4294967296 elements
// RESULT: exit=1

// In-bounds slices, up to the last element, run.
// RUN: ssm-run %s --seed 0 --print | FileCheck %s --check-prefix=OK
// OK: result0 shape=(2, 2)
func.func @main(%a: tensor<4x8xf32>) -> tensor<2x2xf32> {
  %s = tensor.extract_slice %a[1, 3] [2, 2] [2, 4] : tensor<4x8xf32> to tensor<2x2xf32>
  return %s : tensor<2x2xf32>
}
