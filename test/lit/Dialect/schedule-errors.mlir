// RUN: ssm-opt %s -split-input-file -verify-diagnostics

// The schedule attributes' verifiers (dialect/SsmDialect.cpp): a field that
// does not apply to the op it is on, a value out of range, a schedule of the
// wrong family, and schedules on ops that have no stage of their own.

func.func @unroll_state_on_conv(%x: tensor<1x8x16xf32>, %w: tensor<8x4xf32>) {
  // expected-error @+1 {{schedule field 'unroll_state' does not apply to 'ssm.causal_conv1d' (it accepts: vector_width, channel_tile, parallel, gpu_threads)}}
  %o, %f = ssm.causal_conv1d identity %x, %w {ssm.schedule = #ssm.schedule<unroll_state = true>}
      : (tensor<1x8x16xf32>, tensor<8x4xf32>) -> (tensor<1x8x16xf32>, tensor<1x8x3xf32>)
  return
}

// -----

func.func @channel_tile_on_ssd(%X: tensor<1x16x2x4xf32>, %A: tensor<1x16x2xf32>, %B: tensor<1x16x1x4xf32>) {
  // expected-error @+1 {{schedule field 'channel_tile' does not apply to 'ssm.ssd_scan'}}
  %y, %s = ssm.ssd_scan %X, %A, %B, %B {ssm.schedule = #ssm.schedule<channel_tile = 8>}
      : (tensor<1x16x2x4xf32>, tensor<1x16x2xf32>, tensor<1x16x1x4xf32>, tensor<1x16x1x4xf32>) -> (tensor<1x16x2x4xf32>, tensor<1x2x4x4xf32>)
  return
}

// -----

func.func @bad_vector_width(%x: tensor<1x8x16xf32>, %w: tensor<8x4xf32>) {
  // expected-error @+1 {{vector_width must be one of 1, 2, 4, 8, 16, 32, got 3}}
  %o, %f = ssm.causal_conv1d identity %x, %w {ssm.schedule = #ssm.schedule<vector_width = 3>}
      : (tensor<1x8x16xf32>, tensor<8x4xf32>) -> (tensor<1x8x16xf32>, tensor<1x8x3xf32>)
  return
}

// -----

func.func @tile_not_multiple(%x: tensor<1x8x16xf32>, %w: tensor<8x4xf32>) {
  // expected-error @+1 {{channel_tile must be 1 or a multiple of vector_width (8), got 12}}
  %o, %f = ssm.causal_conv1d identity %x, %w {ssm.schedule = #ssm.schedule<vector_width = 8, channel_tile = 12>}
      : (tensor<1x8x16xf32>, tensor<8x4xf32>) -> (tensor<1x8x16xf32>, tensor<1x8x3xf32>)
  return
}

// -----

func.func @matmul_wrong_family(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{attribute 'ssm.schedule' of a matmul must be a #ssm.matmul}}
  %r = linalg.matmul {ssm.schedule = #ssm.schedule<vector_width = 8>} ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

func.func @dot_on_plain_matmul(%a: tensor<1x8xf32>, %b: tensor<8x4xf32>, %c: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{algorithm = dot applies to linalg.matmul_transpose_b only}}
  %r = linalg.matmul {ssm.schedule = #ssm.matmul<algorithm = dot>} ins(%a, %b : tensor<1x8xf32>, tensor<8x4xf32>) outs(%c : tensor<1x4xf32>) -> tensor<1x4xf32>
  return %r : tensor<1x4xf32>
}

// -----

func.func @dot_with_pack_b(%a: tensor<1x8xf32>, %b: tensor<4x8xf32>, %c: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'pack_b' applies to algorithm = tiled, not dot}}
  %r = linalg.matmul_transpose_b {ssm.schedule = #ssm.matmul<algorithm = dot, pack_b = true>} ins(%a, %b : tensor<1x8xf32>, tensor<4x8xf32>) outs(%c : tensor<1x4xf32>) -> tensor<1x4xf32>
  return %r : tensor<1x4xf32>
}

// -----

func.func @dot_tile_k_not_whole_vectors(%a: tensor<4x64xf32>, %b: tensor<4x64xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{tile_k must be 0, 1 or a multiple of vector_width (16) with algorithm = dot, got 24}}
  %r = linalg.matmul_transpose_b {ssm.schedule = #ssm.matmul<algorithm = dot, vector_width = 16, tile_k = 24>} ins(%a, %b : tensor<4x64xf32>, tensor<4x64xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

func.func @tiled_with_col_tiles(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'col_tiles' applies to algorithm = dot, not tiled}}
  %r = linalg.matmul_transpose_b {ssm.schedule = #ssm.matmul<algorithm = tiled, col_tiles = 2>} ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

func.func @dot_tile_cols_range(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{tile_cols must be in 1..64, got 65}}
  %r = linalg.matmul_transpose_b {ssm.schedule = #ssm.matmul<algorithm = dot, tile_cols = 65>} ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

func.func @tile_rows_range(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{tile_rows must be in 1..16, got 17}}
  %r = linalg.matmul {ssm.schedule = #ssm.matmul<tile_rows = 17>} ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

func.func @inline_with_fields(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{an inlined stage (compute = inline) takes no other field}}
  %y = math.exp %x {ssm.schedule = #ssm.stage<compute = inline, vector_width = 8>} : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @inline_reduction(%x: tensor<4x8xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{a reduction cannot be inlined (compute = inline)}}
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"], ssm.schedule = #ssm.stage<compute = inline>}
      ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %acc, %a : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

func.func @stage_on_constant() -> tensor<4xf32> {
  // expected-error @+1 {{has no stage of its own to schedule: remove 'ssm.schedule'}}
  %c = arith.constant {ssm.schedule = #ssm.stage<compute = root>} dense<1.0> : tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

func.func @stage_wrong_family(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{attribute 'ssm.schedule' of 'math.exp' must be a #ssm.stage}}
  %y = math.exp %x {ssm.schedule = #ssm.matmul<tile_rows = 4>} : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// expected-error @+1 {{attribute 'ssm.time_chunk' must be an integer multiple of 32 in 32..1048576}}
func.func @bad_time_chunk(%x: tensor<4xf32>) -> tensor<4xf32> attributes {ssm.time_chunk = 48 : i64} {
  return %x : tensor<4xf32>
}

// -----

func.func @unknown_field(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{duplicate or unknown struct parameter name: tile_rows}}
  %y = math.exp %x {ssm.schedule = #ssm.stage<tile_rows = 4>} : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// A misspelt schedule name would be kept and ignored by codegen.
func.func @misspelt_name(%x: tensor<1x8x16xf32>, %w: tensor<8x4xf32>) {
  // expected-error @+1 {{schedule attribute 'ssm.schedules' is not read: name it 'ssm.schedule'}}
  %o, %f = ssm.causal_conv1d identity %x, %w {ssm.schedules = #ssm.schedule<parallel = false>}
      : (tensor<1x8x16xf32>, tensor<8x4xf32>) -> (tensor<1x8x16xf32>, tensor<1x8x3xf32>)
  return
}
