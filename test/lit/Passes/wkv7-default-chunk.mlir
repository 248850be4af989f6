// The chunk ssm-assign-schedules gives ssm.wkv7 by default
// (dialect/ScheduleDefaults.h defaultWkv7Chunk). On a CPU, the chunked WY
// form (chunk 16) from 64 tokens (where bench/delta_rule_bench.py --op wkv7
// measured it faster than the token-by-token form at RWKV-7 0.1B's shape),
// token by token below and for a dynamic length (decode steps); on a GPU
// target only the thread count (the chunk left to the GPU default, 0). An op
// written with a schedule keeps its chunk.
// RUN: ssm-opt %s --ssm-assign-schedules=target=x86-64-linux-avx2 | FileCheck %s --check-prefix=CPU
// RUN: ssm-opt %s --ssm-assign-schedules=target=host-opencl | FileCheck %s --check-prefix=GPU
// CPU: ssm.wkv7 {{.*}}chunk = 0>
// CPU: ssm.wkv7 {{.*}}chunk = 16>
// CPU: ssm.wkv7 {{.*}}chunk = 16>
// CPU: ssm.wkv7 {{.*}}chunk = 0>
// CPU: ssm.wkv7 {{.*}}#ssm.schedule<chunk = 32>
// GPU-COUNT-4: ssm.wkv7 {{.*}}#ssm.schedule<gpu_threads = {{[0-9]+}}>
// GPU: ssm.wkv7 {{.*}}#ssm.schedule<chunk = 32>

func.func @main(%r63: tensor<1x63x2x16xf32>, %r64: tensor<1x64x2x16xf32>,
                %r4k: tensor<1x4096x2x16xf32>, %rd: tensor<1x?x2x16xf32>)
    -> (tensor<1x63x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x?x2x16xf32>,
        tensor<1x64x2x16xf32>) {
  %y63, %s63 = ssm.wkv7 %r63, %r63, %r63, %r63, %r63, %r63
      : (tensor<1x63x2x16xf32>, tensor<1x63x2x16xf32>, tensor<1x63x2x16xf32>, tensor<1x63x2x16xf32>, tensor<1x63x2x16xf32>, tensor<1x63x2x16xf32>) -> (tensor<1x63x2x16xf32>, tensor<1x2x16x16xf32>)
  %y64, %s64 = ssm.wkv7 %r64, %r64, %r64, %r64, %r64, %r64
      : (tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>) -> (tensor<1x64x2x16xf32>, tensor<1x2x16x16xf32>)
  %y4k, %s4k = ssm.wkv7 %r4k, %r4k, %r4k, %r4k, %r4k, %r4k
      : (tensor<1x4096x2x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x4096x2x16xf32>) -> (tensor<1x4096x2x16xf32>, tensor<1x2x16x16xf32>)
  %yd, %sd = ssm.wkv7 %rd, %rd, %rd, %rd, %rd, %rd
      : (tensor<1x?x2x16xf32>, tensor<1x?x2x16xf32>, tensor<1x?x2x16xf32>, tensor<1x?x2x16xf32>, tensor<1x?x2x16xf32>, tensor<1x?x2x16xf32>) -> (tensor<1x?x2x16xf32>, tensor<1x2x16x16xf32>)
  %yw, %sw = ssm.wkv7 %r64, %r64, %r64, %r64, %r64, %r64 {ssm.schedule = #ssm.schedule<chunk = 32>}
      : (tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>) -> (tensor<1x64x2x16xf32>, tensor<1x2x16x16xf32>)
  return %y63, %y64, %y4k, %yd, %yw
      : tensor<1x63x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x4096x2x16xf32>, tensor<1x?x2x16xf32>,
        tensor<1x64x2x16xf32>
}
