// A Mamba-1 block at mamba-130m sizes (state-spaces/mamba-130m: d_model 768,
// d_inner 1536, d_state 16, d_conv 4, dt_rank 48) on one sequence of 512 tokens,
// as Hugging Face's MambaBlock computes it: RMSNorm (eps 1e-5), the mixer
// (in_proj, causal conv + silu, x_proj, dt_proj, selective scan with D and
// silu(z), out_proj), and the residual. Weights are arguments tagged with
// their parameter names; `ssm-run --seed N` makes seeded synthetic ones.
// The main job (scripts/run-example.sh) compiles it for the CPU and checks
// it against the reference interpreter.
#map_rows = affine_map<(d0, d1) -> (d0, d1)>
#map_row = affine_map<(d0, d1) -> (d0)>
#map_col = affine_map<(d0, d1) -> (d1)>
func.func @main(
    %x: tensor<512x768xf32> {ssm.name = "hidden_states"},
    %norm_w: tensor<768xf32> {ssm.param = "norm.weight"},
    %in_proj: tensor<3072x768xf32> {ssm.param = "mixer.in_proj.weight"},
    %conv_w: tensor<1536x4xf32> {ssm.param = "mixer.conv1d.weight"},
    %conv_b: tensor<1536xf32> {ssm.param = "mixer.conv1d.bias"},
    %x_proj: tensor<80x1536xf32> {ssm.param = "mixer.x_proj.weight"},
    %dt_proj: tensor<1536x48xf32> {ssm.param = "mixer.dt_proj.weight"},
    %dt_bias: tensor<1536xf32> {ssm.param = "mixer.dt_proj.bias"},
    %A_log: tensor<1536x16xf32> {ssm.param = "mixer.A_log"},
    %D: tensor<1536xf32> {ssm.param = "mixer.D"},
    %out_proj: tensor<768x1536xf32> {ssm.param = "mixer.out_proj.weight"}) -> tensor<512x768xf32> {
  %zero = arith.constant 0.0 : f32

  // RMSNorm: x * rsqrt(mean(x^2) + eps) * weight.
  %ss0 = tensor.empty() : tensor<512xf32>
  %ss1 = linalg.fill ins(%zero : f32) outs(%ss0 : tensor<512xf32>) -> tensor<512xf32>
  %ss = linalg.generic {indexing_maps = [#map_rows, #map_row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<512x768xf32>) outs(%ss1 : tensor<512xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %sq = arith.mulf %v, %v : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  } -> tensor<512xf32>
  %xn0 = tensor.empty() : tensor<512x768xf32>
  %xn = linalg.generic {indexing_maps = [#map_rows, #map_row, #map_col, #map_rows], iterator_types = ["parallel", "parallel"]}
      ins(%x, %ss, %norm_w : tensor<512x768xf32>, tensor<512xf32>, tensor<768xf32>) outs(%xn0 : tensor<512x768xf32>) {
  ^bb0(%v: f32, %s: f32, %w: f32, %o: f32):
    %n = arith.constant 768.0 : f32
    %eps = arith.constant 1.0e-5 : f32
    %mean = arith.divf %s, %n : f32
    %me = arith.addf %mean, %eps : f32
    %r = math.rsqrt %me : f32
    %vn = arith.mulf %v, %r : f32
    %y = arith.mulf %vn, %w : f32
    linalg.yield %y : f32
  } -> tensor<512x768xf32>

  // in_proj, split into x and z.
  %xz0 = tensor.empty() : tensor<512x3072xf32>
  %xz1 = linalg.fill ins(%zero : f32) outs(%xz0 : tensor<512x3072xf32>) -> tensor<512x3072xf32>
  %xz = linalg.matmul_transpose_b ins(%xn, %in_proj : tensor<512x768xf32>, tensor<3072x768xf32>)
                                  outs(%xz1 : tensor<512x3072xf32>) -> tensor<512x3072xf32>
  %xs = tensor.extract_slice %xz[0, 0] [512, 1536] [1, 1] : tensor<512x3072xf32> to tensor<512x1536xf32>
  %z = tensor.extract_slice %xz[0, 1536] [512, 1536] [1, 1] : tensor<512x3072xf32> to tensor<512x1536xf32>

  // Depthwise causal conv (width 4) + silu, channel-major.
  %xt0 = tensor.empty() : tensor<1536x512xf32>
  %xt = linalg.transpose ins(%xs : tensor<512x1536xf32>) outs(%xt0 : tensor<1536x512xf32>) permutation = [1, 0]
  %xc3 = tensor.expand_shape %xt [[0, 1], [2]] output_shape [1, 1536, 512] : tensor<1536x512xf32> into tensor<1x1536x512xf32>
  %conv, %conv_state = ssm.causal_conv1d silu %xc3, %conv_w bias(%conv_b)
      : (tensor<1x1536x512xf32>, tensor<1536x4xf32>, tensor<1536xf32>) -> (tensor<1x1536x512xf32>, tensor<1x1536x3xf32>)
  %conv2 = tensor.collapse_shape %conv [[0, 1], [2]] : tensor<1x1536x512xf32> into tensor<1536x512xf32>
  %u0 = tensor.empty() : tensor<512x1536xf32>
  %u = linalg.transpose ins(%conv2 : tensor<1536x512xf32>) outs(%u0 : tensor<512x1536xf32>) permutation = [1, 0]

  // x_proj -> (dt_rank, B, C); dt_proj lifts dt to d_inner.
  %xd0 = tensor.empty() : tensor<512x80xf32>
  %xd1 = linalg.fill ins(%zero : f32) outs(%xd0 : tensor<512x80xf32>) -> tensor<512x80xf32>
  %xdbl = linalg.matmul_transpose_b ins(%u, %x_proj : tensor<512x1536xf32>, tensor<80x1536xf32>)
                                    outs(%xd1 : tensor<512x80xf32>) -> tensor<512x80xf32>
  %dtr = tensor.extract_slice %xdbl[0, 0] [512, 48] [1, 1] : tensor<512x80xf32> to tensor<512x48xf32>
  %B = tensor.extract_slice %xdbl[0, 48] [512, 16] [1, 1] : tensor<512x80xf32> to tensor<512x16xf32>
  %C = tensor.extract_slice %xdbl[0, 64] [512, 16] [1, 1] : tensor<512x80xf32> to tensor<512x16xf32>
  %dt0 = tensor.empty() : tensor<512x1536xf32>
  %dt1 = linalg.fill ins(%zero : f32) outs(%dt0 : tensor<512x1536xf32>) -> tensor<512x1536xf32>
  %dt = linalg.matmul_transpose_b ins(%dtr, %dt_proj : tensor<512x48xf32>, tensor<1536x48xf32>)
                                  outs(%dt1 : tensor<512x1536xf32>) -> tensor<512x1536xf32>

  // A = -exp(A_log); the scan adds dt_bias and applies softplus.
  %expA = math.exp %A_log : tensor<1536x16xf32>
  %A = arith.negf %expA : tensor<1536x16xf32>
  %u3 = tensor.expand_shape %u [[0, 1], [2]] output_shape [1, 512, 1536] : tensor<512x1536xf32> into tensor<1x512x1536xf32>
  %dt3 = tensor.expand_shape %dt [[0, 1], [2]] output_shape [1, 512, 1536] : tensor<512x1536xf32> into tensor<1x512x1536xf32>
  %z3 = tensor.expand_shape %z [[0, 1], [2]] output_shape [1, 512, 1536] : tensor<512x1536xf32> into tensor<1x512x1536xf32>
  %B3 = tensor.expand_shape %B [[0, 1], [2]] output_shape [1, 512, 16] : tensor<512x16xf32> into tensor<1x512x16xf32>
  %C3 = tensor.expand_shape %C [[0, 1], [2]] output_shape [1, 512, 16] : tensor<512x16xf32> into tensor<1x512x16xf32>
  %y, %h = ssm.selective_scan time_major %u3, %dt3, %A, %B3, %C3 D(%D) z(%z3) delta_bias(%dt_bias) {delta_softplus}
      : (tensor<1x512x1536xf32>, tensor<1x512x1536xf32>, tensor<1536x16xf32>, tensor<1x512x16xf32>, tensor<1x512x16xf32>,
         tensor<1536xf32>, tensor<1x512x1536xf32>, tensor<1536xf32>) -> (tensor<1x512x1536xf32>, tensor<1x1536x16xf32>)

  // out_proj and the residual.
  %y2 = tensor.collapse_shape %y [[0, 1], [2]] : tensor<1x512x1536xf32> into tensor<512x1536xf32>
  %out = linalg.matmul_transpose_b ins(%y2, %out_proj : tensor<512x1536xf32>, tensor<768x1536xf32>)
                                   outs(%x : tensor<512x768xf32>) -> tensor<512x768xf32>
  return %out : tensor<512x768xf32>
}
