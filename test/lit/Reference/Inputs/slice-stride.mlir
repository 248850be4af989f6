// Input of static-limits.mlir: a stride of 2^31 (the interpreter's index overflowed).
func.func @main(%a: tensor<4x8xf32>) -> tensor<2x8xf32> {
  %s = tensor.extract_slice %a[0, 0] [2, 8] [2147483648, 1] : tensor<4x8xf32> to tensor<2x8xf32>
  return %s : tensor<2x8xf32>
}
