// The two large projections of a mamba-130m layer on 512 tokens (M = 512):
// in_proj (768 -> 3072) and out_proj (1536 -> 768), nn.Linear layout, as
// examples/mamba1_block_130m.mlir computes them
// (`ssm-tune bench/tune/mamba130m_matmuls_m512.mlir`).
func.func @main(%x: tensor<512x768xf32>, %in_proj: tensor<3072x768xf32> {ssm.param = "mixer.in_proj.weight"},
                %y: tensor<512x1536xf32>, %out_proj: tensor<768x1536xf32> {ssm.param = "mixer.out_proj.weight"})
    -> (tensor<512x3072xf32>, tensor<512x768xf32>) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<512x3072xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<512x3072xf32>) -> tensor<512x3072xf32>
  %xz = linalg.matmul_transpose_b ins(%x, %in_proj : tensor<512x768xf32>, tensor<3072x768xf32>)
                                  outs(%f1 : tensor<512x3072xf32>) -> tensor<512x3072xf32>
  %e2 = tensor.empty() : tensor<512x768xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<512x768xf32>) -> tensor<512x768xf32>
  %out = linalg.matmul_transpose_b ins(%y, %out_proj : tensor<512x1536xf32>, tensor<768x1536xf32>)
                                   outs(%f2 : tensor<512x768xf32>) -> tensor<512x768xf32>
  return %xz, %out : tensor<512x3072xf32>, tensor<512x768xf32>
}
