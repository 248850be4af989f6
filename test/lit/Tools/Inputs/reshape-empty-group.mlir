// An empty reassociation group: MLIR 19's ExpandShapeOp/CollapseShapeOp
// verifier builds an affine map from each group's first expression and
// faulted on a null context (SIGSEGV in AffineMap::get; fuzz-interpreter).
func.func @main(%x: tensor<8x24xf32>) -> (tensor<8x24x1xf32>, tensor<192xf32>) {
  %e = tensor.expand_shape %x [[], [0, 1, 2]] output_shape [8, 24, 1] : tensor<8x24xf32> into tensor<8x24x1xf32>
  %c = tensor.collapse_shape %x [[0, 1], []] : tensor<8x24xf32> into tensor<192xf32>
  return %e, %c : tensor<8x24x1xf32>, tensor<192xf32>
}
