// A function of a dynamic shape (ssm-opt accepts it; ssm-run cannot run it).
func.func @main(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %0 = ssm.quantize_activations %x {format = "q8_0"} : tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}
