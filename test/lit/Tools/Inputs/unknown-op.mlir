// An op the ssm dialect does not have. Input of ssm-opt-errors.mlir.
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = ssm.frobnicate %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
