// The ssm passes on a graph with no ssm op (plain linalg): the schedules and
// fusion marks they attach are ssm attributes, and the passes did not
// declare the ssm dialect, so creating the first one faulted (SIGSEGV in
// StageScheduleAttr::get) in -ssm-fuse, -ssm-assign-schedules and both
// pipelines. Each pass now loads the dialect it writes.
// RUN: ssm-opt %s -ssm-fuse | FileCheck %s --check-prefix=FUSE
// RUN: ssm-opt %s -ssm-assign-schedules | FileCheck %s --check-prefix=ASSIGN
// RUN: ssm-opt %s -ssm-cpu-pipeline | FileCheck %s --check-prefix=ASSIGN
// RUN: ssm-opt %s -ssm-gpu-pipeline="target=host-opencl" | FileCheck %s --check-prefix=ASSIGN
// RUN: ssm-opt %s -ssm-chunk-time -ssm-chunk-scan -ssm-decompose -ssm-lti-to-conv | FileCheck %s --check-prefix=FUSE
// FUSE: func.func @main
// ASSIGN: linalg.matmul_transpose_b {{.*}}ssm.schedule = #ssm.matmul<
// ASSIGN: math.exp {{.*}}ssm.schedule = #ssm.stage<

func.func @main(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = linalg.matmul_transpose_b ins(%a, %b : tensor<4x8xf32>, tensor<16x8xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  %x = math.exp %r : tensor<4x16xf32>
  return %x : tensor<4x16xf32>
}
