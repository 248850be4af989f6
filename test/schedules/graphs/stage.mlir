// An elementwise producer (@SCHED2@: root or inline) and a row reduction (@SCHED@) over (160, 130).
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @main(%x: tensor<160x130xf32>) -> (tensor<160xf32>, tensor<160x130xf32>) {
  %sq = arith.mulf %x, %x {ssm.schedule = @SCHED2@} : tensor<160x130xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<160xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<160xf32>) -> tensor<160xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"], ssm.schedule = @SCHED@}
      ins(%sq : tensor<160x130xf32>) outs(%f : tensor<160xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %acc, %a : f32
    linalg.yield %t : f32
  } -> tensor<160xf32>
  %ex = math.exp %x {ssm.schedule = @SCHED@} : tensor<160x130xf32>
  return %s, %ex : tensor<160xf32>, tensor<160x130xf32>
}
