// Complex diagonal S4D kernel, ZOH, 6 channels x 8 modes, length 50.
func.func @main(%A: tensor<6x8x2xf32>, %B: tensor<6x8x2xf32>, %C: tensor<6x8x2xf32>, %dt0: tensor<6xf32>) -> tensor<6x50xf32> {
  %dt = math.exp %dt0 : tensor<6xf32>
  %k = ssm.lti_kernel zoh %A, %C, %dt B(%B) {ssm.schedule = @SCHED@}
      : (tensor<6x8x2xf32>, tensor<6x8x2xf32>, tensor<6x8x2xf32>, tensor<6xf32>) -> tensor<6x50xf32>
  return %k : tensor<6x50xf32>
}
