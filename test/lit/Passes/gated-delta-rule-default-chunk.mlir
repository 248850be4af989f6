// The chunk ssm-assign-schedules gives ssm.gated_delta_rule by default
// (dialect/ScheduleDefaults.h defaultDeltaRuleChunk). On a CPU, the chunked form
// (chunk 16) from 64 tokens with a scalar gate, from 2048 with a gate per
// key channel (where bench/delta_rule_bench.py measured it faster than the
// token-by-token form), token by token below and for a dynamic length
// (decode steps); on a GPU, 64 (16 per channel) from 8 tokens.
// RUN: ssm-opt %s --ssm-assign-schedules=target=x86-64-linux-avx2 | FileCheck %s --check-prefix=CPU
// RUN: ssm-opt %s --ssm-assign-schedules=target=host-opencl | FileCheck %s --check-prefix=GPU
// CPU-LABEL: func.func @scalar
// CPU: ssm.gated_delta_rule {{.*}}chunk = 0>
// CPU: ssm.gated_delta_rule {{.*}}chunk = 16>
// CPU: ssm.gated_delta_rule {{.*}}chunk = 0>
// CPU-LABEL: func.func @per_channel
// CPU: ssm.gated_delta_rule {{.*}}chunk = 0>
// CPU: ssm.gated_delta_rule {{.*}}chunk = 16>
// GPU-LABEL: func.func @scalar
// GPU: ssm.gated_delta_rule {{.*}}#ssm.schedule<gpu_threads = {{[0-9]+}}>
// GPU-LABEL: func.func @per_channel

func.func @scalar(%q63: tensor<1x63x2x8xf32>, %v63: tensor<1x63x2x8xf32>, %g63: tensor<1x63x2xf32>,
                  %q64: tensor<1x64x2x8xf32>, %v64: tensor<1x64x2x8xf32>, %g64: tensor<1x64x2xf32>,
                  %qd: tensor<1x?x2x8xf32>, %vd: tensor<1x?x2x8xf32>, %gd: tensor<1x?x2xf32>)
    -> (tensor<1x63x2x8xf32>, tensor<1x64x2x8xf32>, tensor<1x?x2x8xf32>) {
  %o1, %s1 = ssm.gated_delta_rule %q63, %q63, %v63, %g63, %g63 {scale = 0.35 : f64}
      : (tensor<1x63x2x8xf32>, tensor<1x63x2x8xf32>, tensor<1x63x2x8xf32>, tensor<1x63x2xf32>,
         tensor<1x63x2xf32>) -> (tensor<1x63x2x8xf32>, tensor<1x2x8x8xf32>)
  %o2, %s2 = ssm.gated_delta_rule %q64, %q64, %v64, %g64, %g64 {scale = 0.35 : f64}
      : (tensor<1x64x2x8xf32>, tensor<1x64x2x8xf32>, tensor<1x64x2x8xf32>, tensor<1x64x2xf32>,
         tensor<1x64x2xf32>) -> (tensor<1x64x2x8xf32>, tensor<1x2x8x8xf32>)
  %o3, %s3 = ssm.gated_delta_rule %qd, %qd, %vd, %gd, %gd {scale = 0.35 : f64}
      : (tensor<1x?x2x8xf32>, tensor<1x?x2x8xf32>, tensor<1x?x2x8xf32>, tensor<1x?x2xf32>,
         tensor<1x?x2xf32>) -> (tensor<1x?x2x8xf32>, tensor<1x2x8x8xf32>)
  return %o1, %o2, %o3 : tensor<1x63x2x8xf32>, tensor<1x64x2x8xf32>, tensor<1x?x2x8xf32>
}

func.func @per_channel(%q: tensor<1x2047x2x8xf32>, %g: tensor<1x2047x2x8xf32>, %b: tensor<1x2047x2xf32>,
                       %q2: tensor<1x2048x2x8xf32>, %g2: tensor<1x2048x2x8xf32>, %b2: tensor<1x2048x2xf32>)
    -> (tensor<1x2047x2x8xf32>, tensor<1x2048x2x8xf32>) {
  %o1, %s1 = ssm.gated_delta_rule %q, %q, %q, %g, %b {scale = 0.35 : f64}
      : (tensor<1x2047x2x8xf32>, tensor<1x2047x2x8xf32>, tensor<1x2047x2x8xf32>, tensor<1x2047x2x8xf32>,
         tensor<1x2047x2xf32>) -> (tensor<1x2047x2x8xf32>, tensor<1x2x8x8xf32>)
  %o2, %s2 = ssm.gated_delta_rule %q2, %q2, %q2, %g2, %b2 {scale = 0.35 : f64}
      : (tensor<1x2048x2x8xf32>, tensor<1x2048x2x8xf32>, tensor<1x2048x2x8xf32>, tensor<1x2048x2x8xf32>,
         tensor<1x2048x2xf32>) -> (tensor<1x2048x2x8xf32>, tensor<1x2x8x8xf32>)
  return %o1, %o2 : tensor<1x2047x2x8xf32>, tensor<1x2048x2x8xf32>
}
