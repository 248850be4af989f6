// Input of static-limits.mlir: small arguments, an op result of 2^32 elements.
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<65536x65536xf32>
  return %a : tensor<4xf32>
}
