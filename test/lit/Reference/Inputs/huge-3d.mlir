// Input of static-limits.mlir: 2^34 elements ("LLVM ERROR: out of memory" before).
func.func @main(%a: tensor<1x2147483647x8xf32>) -> tensor<1x2147483647x8xf32> {
  return %a : tensor<1x2147483647x8xf32>
}
