// A bank of selective state space filters for 16 sensor channels (N = 4 states each):
// one call takes 16 readings per channel and the state h the last call left, and returns
// the filtered outputs and the new state. However long the stream, the state is 16 x 4.
func.func @chunk(%h0: tensor<1x16x4xf32> {ssm.state = "h"}, %u: tensor<1x16x16xf32> {ssm.name = "readings"},
    %delta: tensor<1x16x16xf32> {ssm.name = "delta"}, %A: tensor<16x4xf32> {ssm.param = "A"},
    %B: tensor<1x16x4xf32> {ssm.name = "B"}, %C: tensor<1x16x4xf32> {ssm.name = "C"},
    %D: tensor<16xf32> {ssm.param = "D"})
    -> (tensor<1x16x16xf32> {ssm.name = "y"}, tensor<1x16x4xf32> {ssm.state = "h"}) {
  %y, %h = ssm.selective_scan time_major %u, %delta, %A, %B, %C D(%D) h0(%h0) {delta_softplus}
      : (tensor<1x16x16xf32>, tensor<1x16x16xf32>, tensor<16x4xf32>, tensor<1x16x4xf32>,
         tensor<1x16x4xf32>, tensor<16xf32>, tensor<1x16x4xf32>) -> (tensor<1x16x16xf32>, tensor<1x16x4xf32>)
  return %y, %h : tensor<1x16x16xf32>, tensor<1x16x4xf32>
}
