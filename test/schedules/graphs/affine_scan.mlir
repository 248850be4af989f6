// Scan along dim 1 of (3, 30, 20) with h0 and a reset mask from the data.
func.func @main(%a: tensor<3x30x20xf32>, %b: tensor<3x30x20xf32>, %h0: tensor<3x20xf32>)
    -> (tensor<3x30x20xf32>, tensor<3x20xf32>) {
  %h, %l = ssm.affine_scan %a, %b h0(%h0) along 1 {ssm.schedule = @SCHED@}
      : (tensor<3x30x20xf32>, tensor<3x30x20xf32>, tensor<3x20xf32>) -> (tensor<3x30x20xf32>, tensor<3x20xf32>)
  return %h, %l : tensor<3x30x20xf32>, tensor<3x20xf32>
}
