// 32 rows through a (24, 300) weight in the dot form with K in cache blocks
// (tile_k): whole register tiles and task blocks (blocking needs them), and
// K = 300 leaves a partial last block and a tail that is not a whole vector.
func.func @main(%x: tensor<32x300xf32>, %w: tensor<24x300xf32> {ssm.param = "w"}) -> tensor<32x24xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x24xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x24xf32>) -> tensor<32x24xf32>
  %y = linalg.matmul_transpose_b {ssm.schedule = @SCHED@} ins(%x, %w : tensor<32x300xf32>, tensor<24x300xf32>) outs(%f : tensor<32x24xf32>) -> tensor<32x24xf32>
  return %y : tensor<32x24xf32>
}
