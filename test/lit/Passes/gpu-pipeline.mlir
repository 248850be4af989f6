// The decisions ssm-compile makes for a GPU target, as ssm-opt shows them:
// fusion groups (ssm-fuse) and GPU schedules only (ssm-assign-schedules: the
// gpu_* fields, no CPU field), and no host time-chunk loop, for OpenCL and
// CUDA alike; ops that carry a schedule keep it; the GPU fields' ranges.
// RUN: ssm-opt %s -ssm-gpu-pipeline="target=host-opencl" | FileCheck %s
// RUN: ssm-opt %s -ssm-gpu-pipeline="target=x86-64-linux-cuda-cuda_capability_80" | FileCheck %s
// RUN: ssm-opt %s -ssm-assign-schedules="target=host-cuda" | FileCheck %s --check-prefix=ASSIGN
// RUN: not ssm-opt %s -ssm-gpu-pipeline="target=sparc-64-linux" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: rm -rf %t && mkdir -p %t
// RUN: sed 's/gpu_threads = 64/gpu_threads = 1025/' %s > %t/big.mlir
// RUN: not ssm-opt %t/big.mlir 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: sed 's/gpu_threads = 64/gpu_tile = 33/; s/#ssm.schedule<gpu_tile/#ssm.matmul<gpu_tile/' %s > %t/tile.mlir
// RUN: not ssm-opt %t/tile.mlir 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not ssm-compile %s --target host-opencl --autoschedule adams2019 -o %t/as 2>&1 | FileCheck %s --check-prefix=AUTO

// CHECK-LABEL: func.func @layer
// CHECK-NOT: ssm.time_chunk
// CHECK: linalg.matmul_transpose_b {{.*}}ssm.schedule = #ssm.matmul<algorithm = tiled, gpu_tile = 16>
// CHECK: math.exp {{.*}}ssm.schedule = #ssm.stage<compute = inline>
// CHECK: ssm.selective_scan {{.*}}ssm.schedule = #ssm.schedule<gpu_threads = 128>
// CHECK: arith.mulf {{.*}}ssm.schedule = #ssm.stage<compute = root, gpu_threads = 256>
// CHECK-LABEL: func.func @kept
// CHECK: ssm.schedule = #ssm.schedule<gpu_threads = 64>
// ASSIGN: ssm.schedule = #ssm.schedule<gpu_threads = 128>
// UNKNOWN: unknown target 'sparc-64-linux'
// RANGE: gpu_threads must be in 1..1024, got 1025
// TILE: gpu_tile must be in 1..32, got 33
// AUTO: --autoschedule adams2019 writes CPU schedules; for the GPU target 'host-opencl' use li2018 or the IR's GPU schedules
func.func @layer(%x: tensor<1x40x8xf32>, %w: tensor<8x8xf32>, %A: tensor<8x4xf32>,
                 %B: tensor<1x40x4xf32>, %C: tensor<1x40x4xf32>) -> (tensor<1x40x8xf32>, tensor<1x8x4xf32>) {
  %x2 = tensor.collapse_shape %x [[0, 1], [2]] : tensor<1x40x8xf32> into tensor<40x8xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<40x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<40x8xf32>) -> tensor<40x8xf32>
  %p = linalg.matmul_transpose_b ins(%x2, %w : tensor<40x8xf32>, tensor<8x8xf32>) outs(%f : tensor<40x8xf32>) -> tensor<40x8xf32>
  %dt2 = math.exp %p : tensor<40x8xf32>
  %dt = tensor.expand_shape %dt2 [[0, 1], [2]] output_shape [1, 40, 8] : tensor<40x8xf32> into tensor<1x40x8xf32>
  %y, %h = ssm.selective_scan time_major %x, %dt, %A, %B, %C
      : (tensor<1x40x8xf32>, tensor<1x40x8xf32>, tensor<8x4xf32>, tensor<1x40x4xf32>, tensor<1x40x4xf32>)
      -> (tensor<1x40x8xf32>, tensor<1x8x4xf32>)
  %y2 = arith.mulf %y, %y : tensor<1x40x8xf32>
  return %y2, %h : tensor<1x40x8xf32>, tensor<1x8x4xf32>
}

func.func @kept(%a: tensor<4x16xf32>, %b: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4xf32>) {
  %h, %last = ssm.affine_scan %a, %b along 1 {ssm.schedule = #ssm.schedule<gpu_threads = 64>} : (tensor<4x16xf32>, tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4xf32>)
  return %h, %last : tensor<4x16xf32>, tensor<4xf32>
}
