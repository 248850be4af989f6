// A Mamba-1 selective scan over 16 steps (16 channels, N = 4), compiled at build time
// by ssm_add_library into the static library `scan` (function scan_scan).
func.func @scan(%u: tensor<1x16x16xf32> {ssm.name = "u"}, %delta: tensor<1x16x16xf32> {ssm.name = "delta"}, %A: tensor<16x4xf32> {ssm.param = "A"},
    %B: tensor<1x16x4xf32> {ssm.name = "B"}, %C: tensor<1x16x4xf32> {ssm.name = "C"}, %D: tensor<16xf32> {ssm.param = "D"})
    -> (tensor<1x16x16xf32> {ssm.name = "y"}, tensor<1x16x4xf32> {ssm.name = "h_last"}) {
  %y, %h = ssm.selective_scan time_major %u, %delta, %A, %B, %C D(%D) {delta_softplus}
      : (tensor<1x16x16xf32>, tensor<1x16x16xf32>, tensor<16x4xf32>, tensor<1x16x4xf32>, tensor<1x16x4xf32>, tensor<16xf32>) -> (tensor<1x16x16xf32>, tensor<1x16x4xf32>)
  return %y, %h : tensor<1x16x16xf32>, tensor<1x16x4xf32>
}
