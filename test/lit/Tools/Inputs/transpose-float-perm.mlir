// Input of parser-crashes.mlir (upstream MLIR 19 parser or verifier faults).
func.func @f(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1.5, 0]
  return %t : tensor<3x2xf32>
}
