// tensor.from_elements with far more result elements than operands
// (fuzz-interpreter; MLIR 19's parser aborted building one type per element).
func.func @main(%a: f32) -> tensor<90228672988384xf32> {
  %t = tensor.from_elements %a : tensor<90228672988384xf32>
  return %t : tensor<90228672988384xf32>
}
