// Gated delta rule: 2 streams, 37 tokens (not a multiple of any chunk), 2 key
// heads of Dk 12 serving 4 value heads of Dv 10 (not a multiple of the vector
// width), a scalar log decay g = -exp(g0) per value head with an initial
// state; and a gate per key channel (KDA) without one. beta in (0, 1).
func.func @main(%q: tensor<2x37x2x12xf32>, %k: tensor<2x37x2x12xf32>, %v: tensor<2x37x4x10xf32>,
                %g0: tensor<2x37x4xf32>, %b0: tensor<2x37x4xf32>, %s0: tensor<2x4x12x10xf32>,
                %gc0: tensor<2x37x4x12xf32>)
    -> (tensor<2x37x4x10xf32>, tensor<2x4x12x10xf32>, tensor<2x37x4x10xf32>, tensor<2x4x12x10xf32>) {
  %e = math.exp %g0 : tensor<2x37x4xf32>
  %g = arith.negf %e : tensor<2x37x4xf32>
  %half = arith.constant dense<0.5> : tensor<2x37x4xf32>
  %beta = arith.addf %b0, %half : tensor<2x37x4xf32>
  %o, %s1 = ssm.gated_delta_rule %q, %k, %v, %g, %beta initial_state(%s0) {scale = 0.29 : f64, ssm.schedule = @SCHED@}
      : (tensor<2x37x2x12xf32>, tensor<2x37x2x12xf32>, tensor<2x37x4x10xf32>, tensor<2x37x4xf32>,
         tensor<2x37x4xf32>, tensor<2x4x12x10xf32>) -> (tensor<2x37x4x10xf32>, tensor<2x4x12x10xf32>)
  %ec = math.exp %gc0 : tensor<2x37x4x12xf32>
  %gc = arith.negf %ec : tensor<2x37x4x12xf32>
  %o2, %s2 = ssm.gated_delta_rule %q, %k, %v, %gc, %beta {scale = 0.29 : f64, ssm.schedule = @SCHED@}
      : (tensor<2x37x2x12xf32>, tensor<2x37x2x12xf32>, tensor<2x37x4x10xf32>, tensor<2x37x4x12xf32>,
         tensor<2x37x4xf32>) -> (tensor<2x37x4x10xf32>, tensor<2x4x12x10xf32>)
  return %o, %s1, %o2, %s2
      : tensor<2x37x4x10xf32>, tensor<2x4x12x10xf32>, tensor<2x37x4x10xf32>, tensor<2x4x12x10xf32>
}
