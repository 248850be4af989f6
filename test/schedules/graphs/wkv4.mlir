// RWKV-4 WKV with state, 20 channels, 17 tokens.
func.func @main(%w0: tensor<20xf32> {ssm.param = "w"}, %u: tensor<20xf32> {ssm.param = "u"},
                %k: tensor<2x17x20xf32>, %v: tensor<2x17x20xf32>,
                %aa: tensor<2x20xf32>, %bb0: tensor<2x20xf32>, %pp: tensor<2x20xf32>)
    -> (tensor<2x17x20xf32>, tensor<2x20xf32>, tensor<2x20xf32>, tensor<2x20xf32>) {
  %w = math.exp %w0 : tensor<20xf32>
  %wn = arith.negf %w : tensor<20xf32>
  %bb = math.exp %bb0 : tensor<2x20xf32>
  %wkv, %aa1, %bb1, %pp1 = ssm.wkv4 %wn, %u, %k, %v state(%aa, %bb, %pp) {ssm.schedule = @SCHED@}
      : (tensor<20xf32>, tensor<20xf32>, tensor<2x17x20xf32>, tensor<2x17x20xf32>,
         tensor<2x20xf32>, tensor<2x20xf32>, tensor<2x20xf32>)
      -> (tensor<2x17x20xf32>, tensor<2x20xf32>, tensor<2x20xf32>, tensor<2x20xf32>)
  return %wkv, %aa1, %bb1, %pp1 : tensor<2x17x20xf32>, tensor<2x20xf32>, tensor<2x20xf32>, tensor<2x20xf32>
}
