// A Mamba-1 mixer layer (Gu and Dao 2023, Figure 3) at small sizes: d_model 64,
// d_inner 128, d_state 16, d_conv 4, dt_rank 4, one sequence of 32 tokens.
// Inputs and weights are function arguments tagged with their Hugging Face
// parameter names (mamba-130m-hf layout); `ssm-run --seed N` fills them with
// seeded data. Shapes follow the reference: the conv runs channel-major, the
// scan reads the time-major activations natively.
func.func @main(
    %x: tensor<32x64xf32> {ssm.name = "hidden_states"},
    %in_proj: tensor<256x64xf32> {ssm.param = "mixer.in_proj.weight"},
    %conv_w: tensor<128x4xf32> {ssm.param = "mixer.conv1d.weight"},
    %conv_b: tensor<128xf32> {ssm.param = "mixer.conv1d.bias"},
    %x_proj: tensor<36x128xf32> {ssm.param = "mixer.x_proj.weight"},
    %dt_proj: tensor<128x4xf32> {ssm.param = "mixer.dt_proj.weight"},
    %dt_bias: tensor<128xf32> {ssm.param = "mixer.dt_proj.bias"},
    %A_log: tensor<128x16xf32> {ssm.param = "mixer.A_log"},
    %D: tensor<128xf32> {ssm.param = "mixer.D"},
    %out_proj: tensor<64x128xf32> {ssm.param = "mixer.out_proj.weight"}) -> tensor<32x64xf32> {
  %zero = arith.constant 0.0 : f32

  // in_proj: (L, d_model) x (2 d_inner, d_model)^T, then split into x and z.
  %xz0 = tensor.empty() : tensor<32x256xf32>
  %xz1 = linalg.fill ins(%zero : f32) outs(%xz0 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %xz = linalg.matmul_transpose_b ins(%x, %in_proj : tensor<32x64xf32>, tensor<256x64xf32>)
                                  outs(%xz1 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %xs = tensor.extract_slice %xz[0, 0] [32, 128] [1, 1] : tensor<32x256xf32> to tensor<32x128xf32>
  %z = tensor.extract_slice %xz[0, 128] [32, 128] [1, 1] : tensor<32x256xf32> to tensor<32x128xf32>

  // Depthwise causal conv (width 4) + silu, channel-major as causal_conv1d expects.
  %xt0 = tensor.empty() : tensor<128x32xf32>
  %xt = linalg.transpose ins(%xs : tensor<32x128xf32>) outs(%xt0 : tensor<128x32xf32>) permutation = [1, 0]
  %xc3 = tensor.expand_shape %xt [[0, 1], [2]] output_shape [1, 128, 32] : tensor<128x32xf32> into tensor<1x128x32xf32>
  %conv, %conv_state = ssm.causal_conv1d silu %xc3, %conv_w bias(%conv_b)
      : (tensor<1x128x32xf32>, tensor<128x4xf32>, tensor<128xf32>) -> (tensor<1x128x32xf32>, tensor<1x128x3xf32>)
  %conv2 = tensor.collapse_shape %conv [[0, 1], [2]] : tensor<1x128x32xf32> into tensor<128x32xf32>
  %u0 = tensor.empty() : tensor<32x128xf32>
  %u = linalg.transpose ins(%conv2 : tensor<128x32xf32>) outs(%u0 : tensor<32x128xf32>) permutation = [1, 0]

  // x_proj gives (dt_rank, N, N) per token; dt_proj lifts dt to d_inner.
  %xd0 = tensor.empty() : tensor<32x36xf32>
  %xd1 = linalg.fill ins(%zero : f32) outs(%xd0 : tensor<32x36xf32>) -> tensor<32x36xf32>
  %xdbl = linalg.matmul_transpose_b ins(%u, %x_proj : tensor<32x128xf32>, tensor<36x128xf32>)
                                    outs(%xd1 : tensor<32x36xf32>) -> tensor<32x36xf32>
  %dtr = tensor.extract_slice %xdbl[0, 0] [32, 4] [1, 1] : tensor<32x36xf32> to tensor<32x4xf32>
  %B = tensor.extract_slice %xdbl[0, 4] [32, 16] [1, 1] : tensor<32x36xf32> to tensor<32x16xf32>
  %C = tensor.extract_slice %xdbl[0, 20] [32, 16] [1, 1] : tensor<32x36xf32> to tensor<32x16xf32>
  %dt0 = tensor.empty() : tensor<32x128xf32>
  %dt1 = linalg.fill ins(%zero : f32) outs(%dt0 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %dt = linalg.matmul_transpose_b ins(%dtr, %dt_proj : tensor<32x4xf32>, tensor<128x4xf32>)
                                  outs(%dt1 : tensor<32x128xf32>) -> tensor<32x128xf32>

  // A = -exp(A_log); the scan adds dt_bias and applies softplus itself.
  %expA = math.exp %A_log : tensor<128x16xf32>
  %A = arith.negf %expA : tensor<128x16xf32>

  %u3 = tensor.expand_shape %u [[0, 1], [2]] output_shape [1, 32, 128] : tensor<32x128xf32> into tensor<1x32x128xf32>
  %dt3 = tensor.expand_shape %dt [[0, 1], [2]] output_shape [1, 32, 128] : tensor<32x128xf32> into tensor<1x32x128xf32>
  %z3 = tensor.expand_shape %z [[0, 1], [2]] output_shape [1, 32, 128] : tensor<32x128xf32> into tensor<1x32x128xf32>
  %B3 = tensor.expand_shape %B [[0, 1], [2]] output_shape [1, 32, 16] : tensor<32x16xf32> into tensor<1x32x16xf32>
  %C3 = tensor.expand_shape %C [[0, 1], [2]] output_shape [1, 32, 16] : tensor<32x16xf32> into tensor<1x32x16xf32>
  %y, %h = ssm.selective_scan time_major %u3, %dt3, %A, %B3, %C3 D(%D) z(%z3) delta_bias(%dt_bias) {delta_softplus}
      : (tensor<1x32x128xf32>, tensor<1x32x128xf32>, tensor<128x16xf32>, tensor<1x32x16xf32>, tensor<1x32x16xf32>,
         tensor<128xf32>, tensor<1x32x128xf32>, tensor<128xf32>) -> (tensor<1x32x128xf32>, tensor<1x128x16xf32>)

  // out_proj back to d_model.
  %y2 = tensor.collapse_shape %y [[0, 1], [2]] : tensor<1x32x128xf32> into tensor<32x128xf32>
  %o0 = tensor.empty() : tensor<32x64xf32>
  %o1 = linalg.fill ins(%zero : f32) outs(%o0 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %out = linalg.matmul_transpose_b ins(%y2, %out_proj : tensor<32x128xf32>, tensor<64x128xf32>)
                                   outs(%o1 : tensor<32x64xf32>) -> tensor<32x64xf32>
  return %out : tensor<32x64xf32>
}
