// RWKV-7 WKV with an initial state: 3 heads of 12 (not a multiple of the vector width), 2 batches, 37 tokens.
func.func @main(%r: tensor<2x37x3x12xf32>, %w0: tensor<2x37x3x12xf32>, %k: tensor<2x37x3x12xf32>,
                %v: tensor<2x37x3x12xf32>, %a0: tensor<2x37x3x12xf32>, %b0: tensor<2x37x3x12xf32>,
                %s0: tensor<2x3x12x12xf32>) -> (tensor<2x37x3x12xf32>, tensor<2x3x12x12xf32>) {
  %e = math.exp %w0 : tensor<2x37x3x12xf32>
  %w = arith.negf %e : tensor<2x37x3x12xf32>
  %scale = arith.constant dense<0.6> : tensor<2x37x3x12xf32>
  %a = arith.mulf %a0, %scale : tensor<2x37x3x12xf32>
  %b = arith.mulf %b0, %scale : tensor<2x37x3x12xf32>
  %y, %s1 = ssm.wkv7 %r, %w, %k, %v, %a, %b initial_state(%s0) {ssm.schedule = @SCHED@}
      : (tensor<2x37x3x12xf32>, tensor<2x37x3x12xf32>, tensor<2x37x3x12xf32>, tensor<2x37x3x12xf32>,
         tensor<2x37x3x12xf32>, tensor<2x37x3x12xf32>, tensor<2x3x12x12xf32>)
      -> (tensor<2x37x3x12xf32>, tensor<2x3x12x12xf32>)
  return %y, %s1 : tensor<2x37x3x12xf32>, tensor<2x3x12x12xf32>
}
