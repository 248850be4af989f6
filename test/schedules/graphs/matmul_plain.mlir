// Plain matmul (B is (K, N)), M = 36.
func.func @main(%x: tensor<36x52xf32>, %w: tensor<52x70xf32> {ssm.param = "w"}) -> tensor<36x70xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<36x70xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<36x70xf32>) -> tensor<36x70xf32>
  %y = linalg.matmul {ssm.schedule = @SCHED@} ins(%x, %w : tensor<36x52xf32>, tensor<52x70xf32>) outs(%f : tensor<36x70xf32>) -> tensor<36x70xf32>
  return %y : tensor<36x70xf32>
}
