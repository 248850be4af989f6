// Input of static-limits.mlir: 2^63 - 1 elements (std::length_error before).
func.func @main(%a: tensor<9223372036854775807xf32>) -> tensor<9223372036854775807xf32> {
  return %a : tensor<9223372036854775807xf32>
}
