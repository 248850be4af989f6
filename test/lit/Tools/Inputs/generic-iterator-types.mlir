// Input of parser-crashes.mlir (upstream MLIR 19 parser or verifier faults).
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = [1.5]} ins(%a : tensor<4xf32>) outs(%a : tensor<4xf32>) { ^bb0(%x: f32, %o: f32): linalg.yield %x : f32 } -> tensor<4xf32>
  return %y : tensor<4xf32>
}
