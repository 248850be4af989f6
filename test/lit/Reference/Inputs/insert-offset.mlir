// Input of static-limits.mlir: an insert_slice writing past its destination.
func.func @main(%a: tensor<4x8xf32>, %b: tensor<2x4xf32>) -> tensor<4x8xf32> {
  %s = tensor.insert_slice %b into %a[1, 6] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}
