// The decisions ssm-compile makes for each CPU target, as ssm-opt shows them:
// time chunking (ssm-chunk-time), fusion groups (ssm-fuse) and the heuristic
// schedule of every op (ssm-assign-schedules), per target family.
// RUN: ssm-opt %s -ssm-cpu-pipeline="target=x86-64-linux-avx2" | FileCheck %s --check-prefixes=CHECK,AVX2
// RUN: ssm-opt %s -ssm-cpu-pipeline="target=x86-64-linux-avx512_skylake" | FileCheck %s --check-prefixes=CHECK,AVX512
// RUN: ssm-opt %s -ssm-cpu-pipeline="target=arm-64-linux" | FileCheck %s --check-prefixes=CHECK,ARM
// RUN: ssm-opt %s -ssm-cpu-pipeline="target=x86-64-linux-avx2 time-chunk=256" | FileCheck %s --check-prefix=CHUNK256

// A long scan alone in its function: run as a host loop over 512-step chunks.
// CHECK-LABEL: func.func @long_scan
// CHECK-SAME: ssm.time_chunk = 512
// CHUNK256-LABEL: func.func @long_scan
// CHUNK256-SAME: ssm.time_chunk = 256
// AVX2: ssm.selective_scan {{.*}}ssm.schedule = #ssm.schedule<vector_width = 8, channel_tile = 48, parallel = true, unroll_state = true>
// AVX512: ssm.selective_scan {{.*}}ssm.schedule = #ssm.schedule<vector_width = 16, channel_tile = 48, parallel = true, unroll_state = true>
// ARM: ssm.selective_scan {{.*}}ssm.schedule = #ssm.schedule<vector_width = 4, channel_tile = 48, parallel = true, unroll_state = true>
func.func @long_scan(%u: tensor<1x1536x1536xf32>, %dt: tensor<1x1536x1536xf32>, %A: tensor<1536x16xf32>,
                     %B: tensor<1x1536x16xf32>, %C: tensor<1x1536x16xf32>)
    -> (tensor<1x1536x1536xf32>, tensor<1x1536x16xf32>) {
  %y, %h = ssm.selective_scan time_major %u, %dt, %A, %B, %C
      : (tensor<1x1536x1536xf32>, tensor<1x1536x1536xf32>, tensor<1536x16xf32>, tensor<1x1536x16xf32>, tensor<1x1536x16xf32>)
      -> (tensor<1x1536x1536xf32>, tensor<1x1536x16xf32>)
  return %y, %h : tensor<1x1536x1536xf32>, tensor<1x1536x16xf32>
}

// A decode step: 8 channel tiles (its few microseconds of work are not worth
// 32 tasks), where a scan of as many channels gets 32.
// CHECK-LABEL: func.func @decode_step
// AVX2: ssm.selective_update {{.*}}ssm.schedule = #ssm.schedule<vector_width = 8, channel_tile = 192, parallel = true, unroll_state = true>
// AVX512: ssm.selective_update {{.*}}ssm.schedule = #ssm.schedule<vector_width = 16, channel_tile = 192, parallel = true, unroll_state = true>
func.func @decode_step(%s: tensor<1x1536x16xf32>, %x: tensor<1x1536xf32>, %dt: tensor<1x1536xf32>, %A: tensor<1536x16xf32>,
                       %B: tensor<1x16xf32>, %C: tensor<1x16xf32>) -> (tensor<1x1536xf32>, tensor<1x1536x16xf32>) {
  %y, %s2 = ssm.selective_update %s, %x, %dt, %A, %B, %C
      : (tensor<1x1536x16xf32>, tensor<1x1536xf32>, tensor<1x1536xf32>, tensor<1536x16xf32>, tensor<1x16xf32>, tensor<1x16xf32>)
      -> (tensor<1x1536xf32>, tensor<1x1536x16xf32>)
  return %y, %s2 : tensor<1x1536xf32>, tensor<1x1536x16xf32>
}

// A long K (RWKV-4's FFN value, 512 x 768 x 3072): the dot form in K blocks
// of 768 elements, task blocks that divide the tile counts (64 row tiles of
// 8 and 256 weight tiles of 3 on AVX-512); K = 1536 stays unblocked.
// CHECK-LABEL: func.func @long_k
// AVX2: linalg.matmul_transpose_b {ssm.schedule = #ssm.matmul<algorithm = dot, vector_width = 8, tile_rows = 4, tile_cols = 2, tile_k = 768, row_tiles = 16, col_tiles = 8, parallel = true>}
// AVX512: linalg.matmul_transpose_b {ssm.schedule = #ssm.matmul<algorithm = dot, vector_width = 16, tile_rows = 8, tile_cols = 3, tile_k = 768, row_tiles = 16, col_tiles = 8, parallel = true>}
// AVX512: linalg.matmul_transpose_b {ssm.schedule = #ssm.matmul<algorithm = dot, vector_width = 16, tile_rows = 8, tile_cols = 3, row_tiles = 32, col_tiles = 21, parallel = true>}
func.func @long_k(%x: tensor<512x3072xf32>, %w: tensor<768x3072xf32>, %x2: tensor<512x1536xf32>,
                  %w2: tensor<768x1536xf32>) -> (tensor<512x768xf32>, tensor<512x768xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x768xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<512x768xf32>) -> tensor<512x768xf32>
  %y = linalg.matmul_transpose_b ins(%x, %w : tensor<512x3072xf32>, tensor<768x3072xf32>) outs(%f : tensor<512x768xf32>) -> tensor<512x768xf32>
  %y2 = linalg.matmul_transpose_b ins(%x2, %w2 : tensor<512x1536xf32>, tensor<768x1536xf32>) outs(%f : tensor<512x768xf32>) -> tensor<512x768xf32>
  return %y, %y2 : tensor<512x768xf32>, tensor<512x768xf32>
}

// A = -exp(A_log) of a decode step is inlined into selective_update at batch
// 1, which reads each A(d, n) once (no stage, no buffer of its own); at batch
// 2 it would be computed twice per token, so it keeps its buffer.
// CHECK-LABEL: func.func @decode_step_a_log
// CHECK: math.exp %{{.*}}ssm.schedule = #ssm.stage<compute = inline>
// CHECK: arith.negf %{{.*}}ssm.schedule = #ssm.stage<compute = inline>
// CHECK: ssm.selective_update
// CHECK-LABEL: func.func @decode_step_a_log_batch2
// CHECK: math.exp %{{.*}}ssm.schedule = #ssm.stage<compute = inline>
// CHECK: arith.negf %{{.*}}ssm.schedule = #ssm.stage<compute = root
// CHECK: ssm.selective_update
func.func @decode_step_a_log(%s: tensor<1x1536x16xf32>, %x: tensor<1x1536xf32>, %dt: tensor<1x1536xf32>, %A_log: tensor<1536x16xf32>,
                             %B: tensor<1x16xf32>, %C: tensor<1x16xf32>) -> (tensor<1x1536xf32>, tensor<1x1536x16xf32>) {
  %e = math.exp %A_log : tensor<1536x16xf32>
  %A = arith.negf %e : tensor<1536x16xf32>
  %y, %s2 = ssm.selective_update %s, %x, %dt, %A, %B, %C
      : (tensor<1x1536x16xf32>, tensor<1x1536xf32>, tensor<1x1536xf32>, tensor<1536x16xf32>, tensor<1x16xf32>, tensor<1x16xf32>)
      -> (tensor<1x1536xf32>, tensor<1x1536x16xf32>)
  return %y, %s2 : tensor<1x1536xf32>, tensor<1x1536x16xf32>
}
func.func @decode_step_a_log_batch2(%s: tensor<2x1536x16xf32>, %x: tensor<2x1536xf32>, %dt: tensor<2x1536xf32>, %A_log: tensor<1536x16xf32>,
                                    %B: tensor<2x16xf32>, %C: tensor<2x16xf32>) -> (tensor<2x1536xf32>, tensor<2x1536x16xf32>) {
  %e = math.exp %A_log : tensor<1536x16xf32>
  %A = arith.negf %e : tensor<1536x16xf32>
  %y, %s2 = ssm.selective_update %s, %x, %dt, %A, %B, %C
      : (tensor<2x1536x16xf32>, tensor<2x1536xf32>, tensor<2x1536xf32>, tensor<1536x16xf32>, tensor<2x16xf32>, tensor<2x16xf32>)
      -> (tensor<2x1536xf32>, tensor<2x1536x16xf32>)
  return %y, %s2 : tensor<2x1536xf32>, tensor<2x1536x16xf32>
}

// A short scan is not chunked.
// CHECK-LABEL: func.func @short_scan
// CHECK-NOT: ssm.time_chunk
// CHECK: return
func.func @short_scan(%u: tensor<1x64x16xf32>, %dt: tensor<1x64x16xf32>, %A: tensor<16x4xf32>,
                      %B: tensor<1x64x4xf32>, %C: tensor<1x64x4xf32>)
    -> (tensor<1x64x16xf32>, tensor<1x16x4xf32>) {
  %y, %h = ssm.selective_scan time_major %u, %dt, %A, %B, %C
      : (tensor<1x64x16xf32>, tensor<1x64x16xf32>, tensor<16x4xf32>, tensor<1x64x4xf32>, tensor<1x64x4xf32>)
      -> (tensor<1x64x16xf32>, tensor<1x16x4xf32>)
  return %y, %h : tensor<1x64x16xf32>, tensor<1x16x4xf32>
}

// A linear layer and an RMS norm: matmuls per register file (the nn.Linear
// layout in place as dot products for long K, register tiles sized for the
// vector registers and cache blocks for the weight rows; outer-product tiles
// with a packed B for a short K); the square feeds a reduction, so it keeps a
// buffer of its own; rsqrt, read once by the scaling, is inlined into it.
// CHECK-LABEL: func.func @layer
// AVX2: linalg.matmul_transpose_b {ssm.schedule = #ssm.matmul<algorithm = dot, vector_width = 8, tile_rows = 4, tile_cols = 2, row_tiles = 128, col_tiles = 64, parallel = true>}
// AVX512: linalg.matmul_transpose_b {ssm.schedule = #ssm.matmul<algorithm = dot, vector_width = 16, tile_rows = 8, tile_cols = 3, row_tiles = 64, col_tiles = 42, parallel = true>}
// ARM: linalg.matmul_transpose_b {ssm.schedule = #ssm.matmul<algorithm = dot, vector_width = 4, tile_rows = 8, tile_cols = 3, row_tiles = 64, col_tiles = 42, parallel = true>}
// One token: the weight streamed once in place.
// AVX2: linalg.matmul_transpose_b {ssm.schedule = #ssm.matmul<algorithm = dot, vector_width = 8, tile_rows = 1, tile_cols = 8, row_tiles = 1, col_tiles = 16, parallel = true>}
// K = 48: outer-product tiles.
// AVX2: linalg.matmul_transpose_b {ssm.schedule = #ssm.matmul<algorithm = tiled, vector_width = 8, tile_rows = 4, tile_cols = 24, tile_k = 0, row_tiles = 4, pack_b = true, parallel = true>}
// AVX512: linalg.matmul_transpose_b {ssm.schedule = #ssm.matmul<algorithm = tiled, vector_width = 16, tile_rows = 8, tile_cols = 32, tile_k = 0, row_tiles = 4, pack_b = true, parallel = true>}
// ARM: linalg.matmul_transpose_b {ssm.schedule = #ssm.matmul<algorithm = tiled, vector_width = 4, tile_rows = 8, tile_cols = 12, tile_k = 0, row_tiles = 4, pack_b = true, parallel = true>}
// AVX2: arith.mulf %arg0, %arg0 {ssm.schedule = #ssm.stage<compute = root, vector_width = 8, parallel = true, task_elements = 8192>}
// AVX2: linalg.generic {{.*}}ssm.schedule = #ssm.stage<compute = root, vector_width = 8, parallel = false, task_elements = 8192>
// CHECK: math.rsqrt {{.*}} {ssm.schedule = #ssm.stage<compute = inline>}
// AVX2: arith.mulf {{.*}} {ssm.schedule = #ssm.stage<compute = root, vector_width = 8, parallel = false, task_elements = 8192>}
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @layer(%x: tensor<512x768xf32>, %w: tensor<3072x768xf32>, %t: tensor<1x768xf32>,
                  %xs: tensor<512x48xf32>, %ws: tensor<1536x48xf32>)
    -> (tensor<512x3072xf32>, tensor<1x3072xf32>, tensor<512xf32>, tensor<512x1536xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<512x3072xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<512x3072xf32>) -> tensor<512x3072xf32>
  %y = linalg.matmul_transpose_b ins(%x, %w : tensor<512x768xf32>, tensor<3072x768xf32>) outs(%f0 : tensor<512x3072xf32>) -> tensor<512x3072xf32>
  %e1 = tensor.empty() : tensor<1x3072xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x3072xf32>) -> tensor<1x3072xf32>
  %y1 = linalg.matmul_transpose_b ins(%t, %w : tensor<1x768xf32>, tensor<3072x768xf32>) outs(%f1 : tensor<1x3072xf32>) -> tensor<1x3072xf32>
  %e3 = tensor.empty() : tensor<512x1536xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<512x1536xf32>) -> tensor<512x1536xf32>
  %y3 = linalg.matmul_transpose_b ins(%xs, %ws : tensor<512x48xf32>, tensor<1536x48xf32>) outs(%f3 : tensor<512x1536xf32>) -> tensor<512x1536xf32>
  %sq = arith.mulf %x, %x : tensor<512x768xf32>
  %e2 = tensor.empty() : tensor<512xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<512xf32>) -> tensor<512xf32>
  %ss = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%sq : tensor<512x768xf32>) outs(%f2 : tensor<512xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<512xf32>
  %r = math.rsqrt %ss : tensor<512xf32>
  %two = arith.constant dense<2.0> : tensor<512xf32>
  %r2 = arith.mulf %r, %two : tensor<512xf32>
  return %y, %y1, %r2, %y3 : tensor<512x3072xf32>, tensor<1x3072xf32>, tensor<512xf32>, tensor<512x1536xf32>
}

// One token with the weight kept in its storage type (issue 10): with 32
// vector registers a tile streams 16 weight rows at once whatever their
// element width as stored (the input of its ssm.dequantize: int8, f16,
// bf16, f32), 8 on AVX2's 16 registers. The cache block (col_tiles) stays
// sized in f32 rows.
// CHECK-LABEL: func.func @decode_storage
// AVX512: ssm.dequantize
// AVX512-NOT: ssm.schedule
// AVX512: linalg.matmul_transpose_b {ssm.schedule = #ssm.matmul<algorithm = dot, vector_width = 16, tile_rows = 1, tile_cols = 16, row_tiles = 1, col_tiles = 8, parallel = true>}
// AVX2: linalg.matmul_transpose_b {ssm.schedule = #ssm.matmul<algorithm = dot, vector_width = 8, tile_rows = 1, tile_cols = 8, row_tiles = 1, col_tiles = 16, parallel = true>}
// ARM: linalg.matmul_transpose_b {ssm.schedule = #ssm.matmul<algorithm = dot, vector_width = 4, tile_rows = 1, tile_cols = 16, row_tiles = 1, col_tiles = 8, parallel = true>}
// AVX512: linalg.matmul_transpose_b {ssm.schedule = #ssm.matmul<algorithm = dot, vector_width = 16, tile_rows = 1, tile_cols = 16, row_tiles = 1, col_tiles = 8, parallel = true>}
// AVX512: linalg.matmul_transpose_b {ssm.schedule = #ssm.matmul<algorithm = dot, vector_width = 16, tile_rows = 1, tile_cols = 16, row_tiles = 1, col_tiles = 8, parallel = true>}
// AVX512: linalg.matmul_transpose_b {ssm.schedule = #ssm.matmul<algorithm = dot, vector_width = 16, tile_rows = 1, tile_cols = 16, row_tiles = 1, col_tiles = 8, parallel = true>}
func.func @decode_storage(%t: tensor<1x768xf32>, %q: tensor<3072x768xi8>, %s: tensor<3072x24xf16>,
                          %h: tensor<3072x768xf16>, %b: tensor<3072x768xbf16>, %w: tensor<3072x768xf32>)
    -> (tensor<1x3072xf32>, tensor<1x3072xf32>, tensor<1x3072xf32>, tensor<1x3072xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3072xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x3072xf32>) -> tensor<1x3072xf32>
  %wq = ssm.dequantize %q, %s : (tensor<3072x768xi8>, tensor<3072x24xf16>) -> tensor<3072x768xf32>
  %yq = linalg.matmul_transpose_b ins(%t, %wq : tensor<1x768xf32>, tensor<3072x768xf32>) outs(%f : tensor<1x3072xf32>) -> tensor<1x3072xf32>
  %wh = ssm.dequantize %h : (tensor<3072x768xf16>) -> tensor<3072x768xf32>
  %yh = linalg.matmul_transpose_b ins(%t, %wh : tensor<1x768xf32>, tensor<3072x768xf32>) outs(%f : tensor<1x3072xf32>) -> tensor<1x3072xf32>
  %wb = ssm.dequantize %b : (tensor<3072x768xbf16>) -> tensor<3072x768xf32>
  %yb = linalg.matmul_transpose_b ins(%t, %wb : tensor<1x768xf32>, tensor<3072x768xf32>) outs(%f : tensor<1x3072xf32>) -> tensor<1x3072xf32>
  %yw = linalg.matmul_transpose_b ins(%t, %w : tensor<1x768xf32>, tensor<3072x768xf32>) outs(%f : tensor<1x3072xf32>) -> tensor<1x3072xf32>
  return %yq, %yh, %yb, %yw : tensor<1x3072xf32>, tensor<1x3072xf32>, tensor<1x3072xf32>, tensor<1x3072xf32>
}
