// One query per stream (decode: the key tiles of a query in parallel, the
// score as lane partial sums when D is a multiple of the vector width):
// 3 streams at positions 0, 150 and 299 of a 300-row cache (more than one
// key tile, the last one partial; the third call fills the cache), 8 query
// heads on 2 KV heads, D 32, Dv 12, a sliding window of 200 (the third
// stream's first tile is out of its window).
func.func @main(%q: tensor<3x1x8x32xf32>, %k: tensor<3x1x2x32xf32>, %v: tensor<3x1x2x12xf32>,
                %kc: tensor<3x300x2x32xf32>, %vc: tensor<3x300x2x12xf32>)
    -> (tensor<3x1x8x12xf32>, tensor<3x300x2x32xf32>, tensor<3x300x2x12xf32>) {
  %pos = arith.constant dense<[0, 150, 299]> : tensor<3xi32>
  %o, %kc1, %vc1 = ssm.attention %q, %k, %v, %kc, %vc, %pos {scale = 0.18 : f64, window = 200 : i64, ssm.schedule = @SCHED@}
      : (tensor<3x1x8x32xf32>, tensor<3x1x2x32xf32>, tensor<3x1x2x12xf32>,
         tensor<3x300x2x32xf32>, tensor<3x300x2x12xf32>, tensor<3xi32>)
      -> (tensor<3x1x8x12xf32>, tensor<3x300x2x32xf32>, tensor<3x300x2x12xf32>)
  return %o, %kc1, %vc1 : tensor<3x1x8x12xf32>, tensor<3x300x2x32xf32>, tensor<3x300x2x12xf32>
}
