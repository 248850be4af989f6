// -ssm-decompose leaves a selective_scan of length 0 as it is: its
// affine_scan would not verify (a scan needs at least one step), and both
// engines run the selective_scan at L = 0 (empty y, zero final state).
// RUN: ssm-opt %s -ssm-decompose | FileCheck %s
// CHECK: ssm.selective_scan
// CHECK-NOT: ssm.affine_scan
// RUN: ssm-run %s --seed 1 | FileCheck %s --check-prefix=EXEC
// RUN: rm -f %t.mlir && ssm-opt %s -ssm-decompose -o %t.mlir && ssm-run %t.mlir --seed 1 | FileCheck %s --check-prefix=EXEC
// EXEC-DAG: result0 shape=(1, 0, 8)
// EXEC-DAG: result1 shape=(1, 8, 4) mean=0.000000e+00 mean_abs=0.000000e+00 min=0.000000e+00 max=0.000000e+00

func.func @main(%u: tensor<1x0x8xf32>, %dt: tensor<1x0x8xf32>, %A: tensor<8x4xf32>, %B: tensor<1x0x4xf32>, %C: tensor<1x0x4xf32>) -> (tensor<1x0x8xf32>, tensor<1x8x4xf32>) {
  %y, %h = ssm.selective_scan time_major %u, %dt, %A, %B, %C {delta_softplus}
      : (tensor<1x0x8xf32>, tensor<1x0x8xf32>, tensor<8x4xf32>, tensor<1x0x4xf32>, tensor<1x0x4xf32>) -> (tensor<1x0x8xf32>, tensor<1x8x4xf32>)
  return %y, %h : tensor<1x0x8xf32>, tensor<1x8x4xf32>
}
