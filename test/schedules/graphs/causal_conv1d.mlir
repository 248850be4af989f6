// Width 4 with bias, initial states and silu; 20 channels, 37 steps.
func.func @main(%x: tensor<2x20x37xf32>, %w: tensor<20x4xf32> {ssm.param = "w"}, %bias: tensor<20xf32> {ssm.param = "bias"},
                %init: tensor<2x20x3xf32>) -> (tensor<2x20x37xf32>, tensor<2x20x3xf32>) {
  %o, %f = ssm.causal_conv1d silu %x, %w bias(%bias) initial_states(%init) {ssm.schedule = @SCHED@}
      : (tensor<2x20x37xf32>, tensor<20x4xf32>, tensor<20xf32>, tensor<2x20x3xf32>) -> (tensor<2x20x37xf32>, tensor<2x20x3xf32>)
  return %o, %f : tensor<2x20x37xf32>, tensor<2x20x3xf32>
}
