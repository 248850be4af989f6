// Mamba-1 scan, time-major, per-token B/C, every optional operand; dim 24 (not a multiple of 16).
func.func @main(%u: tensor<1x40x24xf32>, %dt: tensor<1x40x24xf32>, %A0: tensor<24x4xf32> {ssm.param = "A"},
                %B: tensor<1x40x4xf32>, %C: tensor<1x40x4xf32>, %D: tensor<24xf32> {ssm.param = "D"},
                %z: tensor<1x40x24xf32>, %bias: tensor<24xf32> {ssm.param = "bias"}, %h0: tensor<1x24x4xf32>)
    -> (tensor<1x40x24xf32>, tensor<1x24x4xf32>) {
  %A = arith.negf %A0 : tensor<24x4xf32>
  %y, %h = ssm.selective_scan time_major %u, %dt, %A, %B, %C D(%D) z(%z) delta_bias(%bias) h0(%h0) {delta_softplus, ssm.schedule = @SCHED@}
      : (tensor<1x40x24xf32>, tensor<1x40x24xf32>, tensor<24x4xf32>, tensor<1x40x4xf32>, tensor<1x40x4xf32>,
         tensor<24xf32>, tensor<1x40x24xf32>, tensor<24xf32>, tensor<1x24x4xf32>) -> (tensor<1x40x24xf32>, tensor<1x24x4xf32>)
  return %y, %h : tensor<1x40x24xf32>, tensor<1x24x4xf32>
}
