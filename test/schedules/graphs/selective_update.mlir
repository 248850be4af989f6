// One decode step with heads and groups.
func.func @main(%state: tensor<2x4x32x16xf32>, %x: tensor<2x4x32xf32>, %dt: tensor<2x4x32xf32>,
                %A0: tensor<4x32x16xf32> {ssm.param = "A"}, %B: tensor<2x2x16xf32>, %C: tensor<2x2x16xf32>,
                %D: tensor<4x32xf32> {ssm.param = "D"}, %z: tensor<2x4x32xf32>, %bias: tensor<4x32xf32> {ssm.param = "bias"})
    -> (tensor<2x4x32xf32>, tensor<2x4x32x16xf32>) {
  %A = arith.negf %A0 : tensor<4x32x16xf32>
  %y, %s = ssm.selective_update %state, %x, %dt, %A, %B, %C D(%D) z(%z) dt_bias(%bias) {dt_softplus, ssm.schedule = @SCHED@}
      : (tensor<2x4x32x16xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<4x32x16xf32>, tensor<2x2x16xf32>, tensor<2x2x16xf32>,
         tensor<4x32xf32>, tensor<2x4x32xf32>, tensor<4x32xf32>) -> (tensor<2x4x32xf32>, tensor<2x4x32x16xf32>)
  return %y, %s : tensor<2x4x32xf32>, tensor<2x4x32x16xf32>
}
