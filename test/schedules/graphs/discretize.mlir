// ZOH for A, bilinear for B over (2, 6, 20).
func.func @main(%A0: tensor<2x6x20xf32>, %B: tensor<2x6x20xf32>, %dt: tensor<2x6x20xf32>)
    -> (tensor<2x6x20xf32>, tensor<2x6x20xf32>) {
  %A = arith.negf %A0 : tensor<2x6x20xf32>
  %a, %b = ssm.discretize %A, %B, %dt methods(zoh, bilinear) {ssm.schedule = @SCHED@} : tensor<2x6x20xf32>
  return %a, %b : tensor<2x6x20xf32>, tensor<2x6x20xf32>
}
