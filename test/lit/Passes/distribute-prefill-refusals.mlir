// ssm-distribute-prefill refuses what it cannot summarise, naming the op,
// before it changes anything: the gated delta rule (Gated DeltaNet; no tiny
// pure-GDN model in ../shared, and the Qwen3.5 hybrids are refused for their
// attention first: distribute-prefill.mlir).
// RUN: not ssm-opt --ssm-distribute-prefill %s 2>&1 | FileCheck %s

// CHECK: error: ssm-distribute-prefill: the gated delta rule is not supported yet: its slice summary (a d_k x d_k transition product per head, as for ssm.wkv7) is not built
func.func private @block_sequence(%h: tensor<4x16xf32>, %s0: tensor<1x2x8x8xf32>,
                                  %q: tensor<1x4x2x8xf32>, %g: tensor<1x4x2xf32>)
    -> (tensor<4x16xf32>, tensor<1x2x8x8xf32>) {
  %o, %s1 = ssm.gated_delta_rule %q, %q, %q, %g, %g initial_state(%s0) {scale = 0.125 : f64}
      : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2xf32>,
         tensor<1x4x2xf32>, tensor<1x2x8x8xf32>) -> (tensor<1x4x2x8xf32>, tensor<1x2x8x8xf32>)
  return %h, %s1 : tensor<4x16xf32>, tensor<1x2x8x8xf32>
}
