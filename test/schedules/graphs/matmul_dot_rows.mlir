// 37 rows through a (50, 300) weight in the dot form: register tiles of rows x
// weight rows with tails on both (37, 50) and K = 300 (not a multiple of 16).
func.func @main(%x: tensor<37x300xf32>, %w: tensor<50x300xf32> {ssm.param = "w"}) -> tensor<37x50xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<37x50xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<37x50xf32>) -> tensor<37x50xf32>
  %y = linalg.matmul_transpose_b {ssm.schedule = @SCHED@} ins(%x, %w : tensor<37x300xf32>, tensor<50x300xf32>) outs(%f : tensor<37x50xf32>) -> tensor<37x50xf32>
  return %y : tensor<37x50xf32>
}
