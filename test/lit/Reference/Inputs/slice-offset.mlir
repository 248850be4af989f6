// Input of static-limits.mlir: an extract_slice past the end of its source.
func.func @main(%a: tensor<4x8xf32>) -> tensor<2x8xf32> {
  %s = tensor.extract_slice %a[3, 0] [2, 8] [1, 1] : tensor<4x8xf32> to tensor<2x8xf32>
  return %s : tensor<2x8xf32>
}
