// Matmuls with an empty result (M = 0 or N = 0) compile and run on the cpu
// engine as on the reference: the default schedule of a dot-form matmul
// clamped its tile counts into [1, 0] and divided by 0 (SIGFPE in
// ssm-assign-schedules, so ssm-run --engine cpu printed ssm-compile's crash
// and exited 2). K = 0 gives zeros. Empty results print 0 for min and max
// (they printed INF and -INF).
// RUN: sed -e 's/@m0/@main/' %s > %t.m0.mlir
// RUN: sed -e 's/@n0/@main/' %s > %t.n0.mlir
// RUN: sed -e 's/@k0/@main/' %s > %t.k0.mlir
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t.m0.mlir --seed 1 --engine cpu | FileCheck %s --check-prefix=M0
// RUN: ssm-run %t.m0.mlir --seed 1 | FileCheck %s --check-prefix=M0
// M0: result0 shape=(0, 8) mean=0.000000e+00 mean_abs=0.000000e+00 min=0.000000e+00 max=0.000000e+00
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t.n0.mlir --seed 1 --engine cpu | FileCheck %s --check-prefix=N0
// N0: result0 shape=(4, 0) mean=0.000000e+00
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t.k0.mlir --seed 1 --engine cpu --check | FileCheck %s --check-prefix=K0
// K0: result0 shape=(4, 8) mean=0.000000e+00 mean_abs=0.000000e+00 min=0.000000e+00 max=0.000000e+00
// K0: result0_vs_reference {{.*}} PASS
// RUN: ssm-opt %s -ssm-assign-schedules | FileCheck %s --check-prefix=SCHED
// SCHED-COUNT-3: linalg.matmul_transpose_b {{.*}}ssm.schedule

func.func @m0(%a: tensor<0x8xf32>, %b: tensor<8x8xf32>) -> tensor<0x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<0x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<0x8xf32>) -> tensor<0x8xf32>
  %r = linalg.matmul_transpose_b ins(%a, %b : tensor<0x8xf32>, tensor<8x8xf32>) outs(%f : tensor<0x8xf32>) -> tensor<0x8xf32>
  return %r : tensor<0x8xf32>
}

func.func @n0(%a: tensor<4x8xf32>, %b: tensor<0x8xf32>) -> tensor<4x0xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x0xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x0xf32>) -> tensor<4x0xf32>
  %r = linalg.matmul_transpose_b ins(%a, %b : tensor<4x8xf32>, tensor<0x8xf32>) outs(%f : tensor<4x0xf32>) -> tensor<4x0xf32>
  return %r : tensor<4x0xf32>
}

func.func @k0(%a: tensor<4x0xf32>, %b: tensor<8x0xf32>) -> tensor<4x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = linalg.matmul_transpose_b ins(%a, %b : tensor<4x0xf32>, tensor<8x0xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
