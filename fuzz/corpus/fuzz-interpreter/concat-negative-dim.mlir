func.func @f(%a: tensor<2x3xf32>) -> tensor<4x3xf32> {
 %c = tensor.concat dim(-1) %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
 return %c : tensor<4x3xf32>
}
