// Well-formed IR that fails a verifier. Input of ssm-opt-errors.mlir.
func.func @f(%a: tensor<4x16xf32>, %b: tensor<4x16xf32>) -> tensor<4xf32> {
  %h, %last = ssm.affine_scan %a, %b along 2 : (tensor<4x16xf32>, tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4xf32>)
  return %last : tensor<4xf32>
}
