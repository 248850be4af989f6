// 32 rows through a (24, 324) weight in the dot form with K in cache blocks
// (tile_k): whole register tiles, task blocks and K blocks (blocking needs them);
// K = 324 is 40 vectors of 8 (5 blocks of 64 elements) and a 4-element tail.
func.func @main(%x: tensor<32x324xf32>, %w: tensor<24x324xf32> {ssm.param = "w"}) -> tensor<32x24xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x24xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x24xf32>) -> tensor<32x24xf32>
  %y = linalg.matmul_transpose_b {ssm.schedule = @SCHED@} ins(%x, %w : tensor<32x324xf32>, tensor<24x324xf32>) outs(%f : tensor<32x24xf32>) -> tensor<32x24xf32>
  return %y : tensor<32x24xf32>
}
