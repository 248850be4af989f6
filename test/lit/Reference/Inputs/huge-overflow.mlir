// Input of static-limits.mlir: 2^64 elements, whose product wraps to 0 in int64.
func.func @main(%a: tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32> {
  return %a : tensor<4294967296x4294967296xf32>
}
