// Input of parser-crashes.mlir (upstream MLIR 19 parser or verifier faults).
func.func @f(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  %e = tensor.empty() : tensor<2xf32>
  %t = linalg.reduce ins(%a : tensor<2x3xf32>) outs(%e : tensor<2xf32>) dimensions = [1.0]
    (%x: f32, %y: f32) { %s = arith.addf %x, %y : f32
      linalg.yield %s : f32 }
  return %t : tensor<2xf32>
}
