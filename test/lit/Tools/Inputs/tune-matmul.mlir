// One kernel for ssm-tune's database tests: an nn.Linear matmul, M = 40.
func.func @main(%x: tensor<40x52xf32>, %w: tensor<70x52xf32> {ssm.param = "w"}) -> tensor<40x70xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<40x70xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<40x70xf32>) -> tensor<40x70xf32>
  %y = linalg.matmul_transpose_b ins(%x, %w : tensor<40x52xf32>, tensor<70x52xf32>) outs(%f : tensor<40x70xf32>) -> tensor<40x70xf32>
  return %y : tensor<40x70xf32>
}
