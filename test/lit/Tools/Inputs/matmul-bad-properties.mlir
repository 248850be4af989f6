// Input of parser-crashes.mlir (upstream MLIR 19 parser or verifier faults).
func.func @f(%a: tensor<1x1xf32>, %b: tensor<1x1xf32>, %c: tensor<1x1xf32>) -> tensor<1x1xf32> {
  %r = linalg.matmul_transpose_b<1.0> ins(%a, %b : tensor<1x1xf32>, tensor<1x1xf32>) outs(%c : tensor<1x1xf32>) -> tensor<1x1xf32>
  return %r : tensor<1x1xf32>
}
