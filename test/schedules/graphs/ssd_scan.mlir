// Mamba-2 SSD: per-head log decay (kept negative), two groups, h0, chunk 16 over 40 steps.
func.func @main(%X: tensor<1x40x4x8xf32>, %A0: tensor<1x40x4xf32>, %B: tensor<1x40x2x8xf32>,
                %C: tensor<1x40x2x8xf32>, %S0: tensor<1x4x8x8xf32>) -> (tensor<1x40x4x8xf32>, tensor<1x4x8x8xf32>) {
  %e = math.exp %A0 : tensor<1x40x4xf32>
  %A = arith.negf %e : tensor<1x40x4xf32>
  %y, %s = ssm.ssd_scan %X, %A, %B, %C initial_state(%S0) {chunk_size = 16 : i64, ssm.schedule = @SCHED@}
      : (tensor<1x40x4x8xf32>, tensor<1x40x4xf32>, tensor<1x40x2x8xf32>, tensor<1x40x2x8xf32>, tensor<1x4x8x8xf32>)
      -> (tensor<1x40x4x8xf32>, tensor<1x4x8x8xf32>)
  return %y, %s : tensor<1x40x4x8xf32>, tensor<1x4x8x8xf32>
}
