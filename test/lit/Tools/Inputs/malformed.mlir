// Malformed IR: an operand is missing. Input of ssm-opt-errors.mlir.
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, : tensor<4xf32>
  return %0 : tensor<4xf32>
}
