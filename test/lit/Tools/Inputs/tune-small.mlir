// A small graph for ssm-tune's tests: a Mamba-1 scan (24 channels, not a
// multiple of 16, 40 steps) and two identical nn.Linear matmuls (one kernel).
func.func @main(%u: tensor<1x40x24xf32>, %dt: tensor<1x40x24xf32>, %A0: tensor<24x4xf32> {ssm.param = "A"},
                %B: tensor<1x40x4xf32>, %C: tensor<1x40x4xf32>, %D: tensor<24xf32> {ssm.param = "D"},
                %w: tensor<24x24xf32> {ssm.param = "w"}) -> (tensor<1x40x24xf32>, tensor<40x24xf32>) {
  %Ae = math.exp %A0 : tensor<24x4xf32>
  %A = arith.negf %Ae : tensor<24x4xf32>
  %y, %h = ssm.selective_scan time_major %u, %dt, %A, %B, %C D(%D) {delta_softplus}
      : (tensor<1x40x24xf32>, tensor<1x40x24xf32>, tensor<24x4xf32>, tensor<1x40x4xf32>, tensor<1x40x4xf32>,
         tensor<24xf32>) -> (tensor<1x40x24xf32>, tensor<1x24x4xf32>)
  %y2 = tensor.collapse_shape %y [[0, 1], [2]] : tensor<1x40x24xf32> into tensor<40x24xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<40x24xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<40x24xf32>) -> tensor<40x24xf32>
  %m1 = linalg.matmul_transpose_b ins(%y2, %w : tensor<40x24xf32>, tensor<24x24xf32>) outs(%f : tensor<40x24xf32>) -> tensor<40x24xf32>
  %m2 = linalg.matmul_transpose_b ins(%m1, %w : tensor<40x24xf32>, tensor<24x24xf32>) outs(%f : tensor<40x24xf32>) -> tensor<40x24xf32>
  return %y, %m2 : tensor<1x40x24xf32>, tensor<40x24xf32>
}
