// ssm.gated_delta_rule runs on the reference interpreter and as a compiled CPU
// kernel, and the two agree: a scalar gate with an initial state, 2 streams,
// 37 tokens, 2 key heads of Dk 12 serving 4 value heads of Dv 10 (not a
// multiple of the vector width); a gate per key channel without an initial
// state, Hk = Hv = 3, Dk 16, Dv 8, 23 tokens; one token (a decode step) from
// a state at Dk = Dv = 32 with 2 value heads per key head and 3 streams; and
// the chunked form forced where it pads: one token in a chunk of 64, 63
// tokens in chunks of 16 (scalar gate) and in one chunk of 64 (per channel).
// g = -exp(x) <= 0, beta = x + 0.5 in (0, 1); the keys are scaled so that
// beta ||k||^2 stays below 2 (the rule diverges past it in every implementation).
// REQUIRES: ssm-run
// RUN: env SSM_CACHE_DIR=%cache ssm-run %s --seed 5 --engine cpu --check --rtol 1e-4 --atol 1e-5 | FileCheck %s
// RUN: ssm-run %s --seed 5 | FileCheck %s --check-prefix=REF
// The default chunk (ssm-assign-schedules) on a CPU: 0 (token by token) for
// these 37, 23 and 1 tokens (the chunked form from 64 tokens: lit
// Passes/gated-delta-rule-default-chunk); a GPU
// target gets only its thread count, the chunk left to the GPU default (64,
// 16 with a gate per key channel, 0 below 8 tokens). The ops written with a
// schedule keep theirs.
// RUN: ssm-opt %s --ssm-assign-schedules=target=x86-64-linux-avx2 | FileCheck %s --check-prefix=SCHED
// RUN: ssm-opt %s --ssm-assign-schedules=target=host-opencl | FileCheck %s --check-prefix=GPU
// SCHED-COUNT-3: ssm.gated_delta_rule {{.*}}#ssm.schedule<vector_width = 8, parallel = true, chunk = 0>
// SCHED: ssm.gated_delta_rule {{.*}}#ssm.schedule<chunk = 64>
// SCHED: ssm.gated_delta_rule {{.*}}#ssm.schedule<chunk = 16>
// SCHED: ssm.gated_delta_rule {{.*}}#ssm.schedule<chunk = 64>
// GPU-COUNT-3: ssm.gated_delta_rule {{.*}}#ssm.schedule<gpu_threads = 128>
// GPU: ssm.gated_delta_rule {{.*}}#ssm.schedule<chunk = 64>

// CHECK: result0_vs_reference {{.*}} PASS
// CHECK: result1_vs_reference {{.*}} PASS
// CHECK: result2_vs_reference {{.*}} PASS
// CHECK: result3_vs_reference {{.*}} PASS
// CHECK: result4_vs_reference {{.*}} PASS
// CHECK: result5_vs_reference {{.*}} PASS
// CHECK: result6_vs_reference {{.*}} PASS
// CHECK: result7_vs_reference {{.*}} PASS
// CHECK: result8_vs_reference {{.*}} PASS
// CHECK: result9_vs_reference {{.*}} PASS
// CHECK: result10_vs_reference {{.*}} PASS
// CHECK: result11_vs_reference {{.*}} PASS
// REF-COUNT-12: result{{[0-9]+}}

func.func @main(%q: tensor<2x37x2x12xf32>, %k: tensor<2x37x2x12xf32>, %v: tensor<2x37x4x10xf32>,
                %g0: tensor<2x37x4xf32>, %b0: tensor<2x37x4xf32>, %s0: tensor<2x4x12x10xf32>,
                %q2: tensor<1x23x3x16xf32>, %k2: tensor<1x23x3x16xf32>, %v2: tensor<1x23x3x8xf32>,
                %g2: tensor<1x23x3x16xf32>, %b2: tensor<1x23x3xf32>,
                %q3: tensor<3x1x1x32xf32>, %k3: tensor<3x1x1x32xf32>, %v3: tensor<3x1x2x32xf32>,
                %g3: tensor<3x1x2xf32>, %b3: tensor<3x1x2xf32>, %s3: tensor<3x2x32x32xf32>,
                %q4: tensor<1x63x2x12xf32>, %v4: tensor<1x63x4x10xf32>, %g4: tensor<1x63x4x12xf32>,
                %b4: tensor<1x63x4xf32>, %s4i: tensor<1x4x12x10xf32>)
    -> (tensor<2x37x4x10xf32>, tensor<2x4x12x10xf32>, tensor<1x23x3x8xf32>, tensor<1x3x16x8xf32>,
        tensor<3x1x2x32xf32>, tensor<3x2x32x32xf32>, tensor<3x1x2x32xf32>, tensor<3x2x32x32xf32>,
        tensor<1x63x4x10xf32>, tensor<1x4x12x10xf32>, tensor<1x63x4x10xf32>, tensor<1x4x12x10xf32>) {
  %e = math.exp %g0 : tensor<2x37x4xf32>
  %g = arith.negf %e : tensor<2x37x4xf32>
  %half = arith.constant dense<0.5> : tensor<2x37x4xf32>
  %beta = arith.addf %b0, %half : tensor<2x37x4xf32>
  %o, %s1 = ssm.gated_delta_rule %q, %k, %v, %g, %beta initial_state(%s0) {scale = 0.29 : f64}
      : (tensor<2x37x2x12xf32>, tensor<2x37x2x12xf32>, tensor<2x37x4x10xf32>, tensor<2x37x4xf32>,
         tensor<2x37x4xf32>, tensor<2x4x12x10xf32>) -> (tensor<2x37x4x10xf32>, tensor<2x4x12x10xf32>)

  %e2 = math.exp %g2 : tensor<1x23x3x16xf32>
  %gc = arith.negf %e2 : tensor<1x23x3x16xf32>
  %half2 = arith.constant dense<0.5> : tensor<1x23x3xf32>
  %beta2 = arith.addf %b2, %half2 : tensor<1x23x3xf32>
  %o2, %s2 = ssm.gated_delta_rule %q2, %k2, %v2, %gc, %beta2 {scale = 0.25 : f64}
      : (tensor<1x23x3x16xf32>, tensor<1x23x3x16xf32>, tensor<1x23x3x8xf32>, tensor<1x23x3x16xf32>,
         tensor<1x23x3xf32>) -> (tensor<1x23x3x8xf32>, tensor<1x3x16x8xf32>)

  %e3 = math.exp %g3 : tensor<3x1x2xf32>
  %g3n = arith.negf %e3 : tensor<3x1x2xf32>
  %half3 = arith.constant dense<0.5> : tensor<3x1x2xf32>
  %beta3 = arith.addf %b3, %half3 : tensor<3x1x2xf32>
  %kscale = arith.constant dense<0.5> : tensor<3x1x1x32xf32>
  %k3s = arith.mulf %k3, %kscale : tensor<3x1x1x32xf32>
  %o3, %s4 = ssm.gated_delta_rule %q3, %k3s, %v3, %g3n, %beta3 initial_state(%s3) {scale = 0.176 : f64}
      : (tensor<3x1x1x32xf32>, tensor<3x1x1x32xf32>, tensor<3x1x2x32xf32>, tensor<3x1x2xf32>,
         tensor<3x1x2xf32>, tensor<3x2x32x32xf32>) -> (tensor<3x1x2x32xf32>, tensor<3x2x32x32xf32>)
  %o5, %s5 = ssm.gated_delta_rule %q3, %k3s, %v3, %g3n, %beta3 initial_state(%s3) {scale = 0.176 : f64, ssm.schedule = #ssm.schedule<chunk = 64>}
      : (tensor<3x1x1x32xf32>, tensor<3x1x1x32xf32>, tensor<3x1x2x32xf32>, tensor<3x1x2xf32>,
         tensor<3x1x2xf32>, tensor<3x2x32x32xf32>) -> (tensor<3x1x2x32xf32>, tensor<3x2x32x32xf32>)

  %half4 = arith.constant dense<0.5> : tensor<1x63x4xf32>
  %beta4 = arith.addf %b4, %half4 : tensor<1x63x4xf32>
  %e4 = math.exp %g4 : tensor<1x63x4x12xf32>
  %g4c = arith.negf %e4 : tensor<1x63x4x12xf32>
  %g4s = tensor.extract_slice %g4c[0, 0, 0, 0] [1, 63, 4, 1] [1, 1, 1, 1]
      : tensor<1x63x4x12xf32> to tensor<1x63x4xf32>
  %o6, %s6 = ssm.gated_delta_rule %q4, %q4, %v4, %g4s, %beta4 initial_state(%s4i) {scale = 0.29 : f64, ssm.schedule = #ssm.schedule<chunk = 16>}
      : (tensor<1x63x2x12xf32>, tensor<1x63x2x12xf32>, tensor<1x63x4x10xf32>, tensor<1x63x4xf32>,
         tensor<1x63x4xf32>, tensor<1x4x12x10xf32>) -> (tensor<1x63x4x10xf32>, tensor<1x4x12x10xf32>)
  %o7, %s7 = ssm.gated_delta_rule %q4, %q4, %v4, %g4c, %beta4 initial_state(%s4i) {scale = 0.29 : f64, ssm.schedule = #ssm.schedule<chunk = 64>}
      : (tensor<1x63x2x12xf32>, tensor<1x63x2x12xf32>, tensor<1x63x4x10xf32>, tensor<1x63x4x12xf32>,
         tensor<1x63x4xf32>, tensor<1x4x12x10xf32>) -> (tensor<1x63x4x10xf32>, tensor<1x4x12x10xf32>)
  return %o, %s1, %o2, %s2, %o3, %s4, %o5, %s5, %o6, %s6, %o7, %s7
      : tensor<2x37x4x10xf32>, tensor<2x4x12x10xf32>, tensor<1x23x3x8xf32>, tensor<1x3x16x8xf32>,
        tensor<3x1x2x32xf32>, tensor<3x2x32x32xf32>, tensor<3x1x2x32xf32>, tensor<3x2x32x32xf32>,
        tensor<1x63x4x10xf32>, tensor<1x4x12x10xf32>, tensor<1x63x4x10xf32>, tensor<1x4x12x10xf32>
}
