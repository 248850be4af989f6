// The Mamba-1 selective scan of mamba-130m (d_inner 1536, d_state 16) on 512
// tokens, time-major, with D, silu(z) and the dt bias + softplus, as
// examples/mamba1_block_130m.mlir runs it: the scan kernel of the tuning
// issue's measurements (`ssm-tune bench/tune/mamba130m_scan.mlir`).
func.func @main(%u: tensor<1x512x1536xf32>, %dt: tensor<1x512x1536xf32>,
                %A_log: tensor<1536x16xf32> {ssm.param = "mixer.A_log"},
                %B: tensor<1x512x16xf32>, %C: tensor<1x512x16xf32>,
                %D: tensor<1536xf32> {ssm.param = "mixer.D"}, %z: tensor<1x512x1536xf32>,
                %dt_bias: tensor<1536xf32> {ssm.param = "mixer.dt_proj.bias"})
    -> (tensor<1x512x1536xf32>, tensor<1x1536x16xf32>) {
  %expA = math.exp %A_log : tensor<1536x16xf32>
  %A = arith.negf %expA : tensor<1536x16xf32>
  %y, %h = ssm.selective_scan time_major %u, %dt, %A, %B, %C D(%D) z(%z) delta_bias(%dt_bias) {delta_softplus}
      : (tensor<1x512x1536xf32>, tensor<1x512x1536xf32>, tensor<1536x16xf32>, tensor<1x512x16xf32>, tensor<1x512x16xf32>,
         tensor<1536xf32>, tensor<1x512x1536xf32>, tensor<1536xf32>) -> (tensor<1x512x1536xf32>, tensor<1x1536x16xf32>)
  return %y, %h : tensor<1x512x1536xf32>, tensor<1x1536x16xf32>
}
