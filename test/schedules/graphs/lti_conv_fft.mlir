// FFT causal convolution with D, 6 channels, 70 steps, 40 taps.
func.func @main(%u: tensor<2x6x70xf32>, %K: tensor<6x40xf32>, %D: tensor<6xf32>) -> tensor<2x6x70xf32> {
  %y = ssm.lti_conv fft %u, %K D(%D) {ssm.schedule = @SCHED@}
      : (tensor<2x6x70xf32>, tensor<6x40xf32>, tensor<6xf32>) -> tensor<2x6x70xf32>
  return %y : tensor<2x6x70xf32>
}
