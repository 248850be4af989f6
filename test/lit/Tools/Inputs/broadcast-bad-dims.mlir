// Input of parser-crashes.mlir (upstream MLIR 19 parser or verifier faults).
func.func @f(%a: tensor<3xf32>) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %t = linalg.broadcast ins(%a : tensor<3xf32>) outs(%e : tensor<2x3xf32>) dimensions = [x]
  return %t : tensor<2x3xf32>
}
