// One token through an (N, K) weight: the dot algorithm as a matvec; K = 300 (not a multiple of 16).
func.func @main(%x: tensor<1x300xf32>, %w: tensor<200x300xf32> {ssm.param = "w"}) -> tensor<1x200xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x200xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x200xf32>) -> tensor<1x200xf32>
  %y = linalg.matmul_transpose_b {ssm.schedule = @SCHED@} ins(%x, %w : tensor<1x300xf32>, tensor<200x300xf32>) outs(%f : tensor<1x200xf32>) -> tensor<1x200xf32>
  return %y : tensor<1x200xf32>
}
