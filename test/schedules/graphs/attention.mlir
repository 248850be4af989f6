// Causal GQA attention over a KV cache: 2 streams at positions 5 and 27 of a
// 64-row cache (the second call fills it), 37 queries (not a multiple of any
// query tile), 6 query heads on 2 KV heads, D 20, Dv 12.
func.func @main(%q: tensor<2x37x6x20xf32>, %k: tensor<2x37x2x20xf32>, %v: tensor<2x37x2x12xf32>,
                %kc: tensor<2x64x2x20xf32>, %vc: tensor<2x64x2x12xf32>)
    -> (tensor<2x37x6x12xf32>, tensor<2x64x2x20xf32>, tensor<2x64x2x12xf32>) {
  %pos = arith.constant dense<[5, 27]> : tensor<2xi32>
  %o, %kc1, %vc1 = ssm.attention %q, %k, %v, %kc, %vc, %pos {scale = 0.22 : f64, ssm.schedule = @SCHED@}
      : (tensor<2x37x6x20xf32>, tensor<2x37x2x20xf32>, tensor<2x37x2x12xf32>,
         tensor<2x64x2x20xf32>, tensor<2x64x2x12xf32>, tensor<2xi32>)
      -> (tensor<2x37x6x12xf32>, tensor<2x64x2x20xf32>, tensor<2x64x2x12xf32>)
  return %o, %kc1, %vc1 : tensor<2x37x6x12xf32>, tensor<2x64x2x20xf32>, tensor<2x64x2x12xf32>
}
