// Rotary embedding, NeoX pairing on 24 of 40 channels: 2 streams at positions
// 7 and 4093, 19 tokens, 3 heads.
func.func @main(%x: tensor<2x19x3x40xf32>) -> tensor<2x19x3x40xf32> {
  %pos = arith.constant dense<[7, 4093]> : tensor<2xi32>
  %y = ssm.rope neox %x, %pos {theta = 1.0e6 : f64, rotary_dim = 24 : i64, ssm.schedule = @SCHED@}
      : (tensor<2x19x3x40xf32>, tensor<2xi32>) -> tensor<2x19x3x40xf32>
  return %y : tensor<2x19x3x40xf32>
}
