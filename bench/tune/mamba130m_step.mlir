// One Mamba-1 decode step at mamba-130m sizes (d_model 768, d_inner 1536,
// d_state 16, dt_rank 48): the M = 1 projections and the state update, the
// kernels a generated token costs (the conv step and the norms are
// elementwise stages, not tuned). For bench/tune/README.md's measurements:
// `ssm-tune bench/tune/mamba130m_step.mlir`.
func.func @main(
    %x: tensor<1x768xf32> {ssm.name = "hidden_states"},
    %state: tensor<1x1536x16xf32> {ssm.state = "ssm_state"},
    %in_proj: tensor<3072x768xf32> {ssm.param = "mixer.in_proj.weight"},
    %x_proj: tensor<80x1536xf32> {ssm.param = "mixer.x_proj.weight"},
    %dt_proj: tensor<1536x48xf32> {ssm.param = "mixer.dt_proj.weight"},
    %dt_bias: tensor<1536xf32> {ssm.param = "mixer.dt_proj.bias"},
    %A_log: tensor<1536x16xf32> {ssm.param = "mixer.A_log"},
    %D: tensor<1536xf32> {ssm.param = "mixer.D"},
    %out_proj: tensor<768x1536xf32> {ssm.param = "mixer.out_proj.weight"})
    -> (tensor<1x768xf32>, tensor<1x1536x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %xz0 = tensor.empty() : tensor<1x3072xf32>
  %xz1 = linalg.fill ins(%zero : f32) outs(%xz0 : tensor<1x3072xf32>) -> tensor<1x3072xf32>
  %xz = linalg.matmul_transpose_b ins(%x, %in_proj : tensor<1x768xf32>, tensor<3072x768xf32>)
                                  outs(%xz1 : tensor<1x3072xf32>) -> tensor<1x3072xf32>
  %xs = tensor.extract_slice %xz[0, 0] [1, 1536] [1, 1] : tensor<1x3072xf32> to tensor<1x1536xf32>
  %z = tensor.extract_slice %xz[0, 1536] [1, 1536] [1, 1] : tensor<1x3072xf32> to tensor<1x1536xf32>
  %xd0 = tensor.empty() : tensor<1x80xf32>
  %xd1 = linalg.fill ins(%zero : f32) outs(%xd0 : tensor<1x80xf32>) -> tensor<1x80xf32>
  %xdbl = linalg.matmul_transpose_b ins(%xs, %x_proj : tensor<1x1536xf32>, tensor<80x1536xf32>)
                                    outs(%xd1 : tensor<1x80xf32>) -> tensor<1x80xf32>
  %dtr = tensor.extract_slice %xdbl[0, 0] [1, 48] [1, 1] : tensor<1x80xf32> to tensor<1x48xf32>
  %B = tensor.extract_slice %xdbl[0, 48] [1, 16] [1, 1] : tensor<1x80xf32> to tensor<1x16xf32>
  %C = tensor.extract_slice %xdbl[0, 64] [1, 16] [1, 1] : tensor<1x80xf32> to tensor<1x16xf32>
  %dt0 = tensor.empty() : tensor<1x1536xf32>
  %dt1 = linalg.fill ins(%zero : f32) outs(%dt0 : tensor<1x1536xf32>) -> tensor<1x1536xf32>
  %dt = linalg.matmul_transpose_b ins(%dtr, %dt_proj : tensor<1x48xf32>, tensor<1536x48xf32>)
                                  outs(%dt1 : tensor<1x1536xf32>) -> tensor<1x1536xf32>
  %expA = math.exp %A_log : tensor<1536x16xf32>
  %A = arith.negf %expA : tensor<1536x16xf32>
  %y, %s = ssm.selective_update %state, %xs, %dt, %A, %B, %C D(%D) z(%z) dt_bias(%dt_bias) {dt_softplus}
      : (tensor<1x1536x16xf32>, tensor<1x1536xf32>, tensor<1x1536xf32>, tensor<1536x16xf32>, tensor<1x16xf32>,
         tensor<1x16xf32>, tensor<1536xf32>, tensor<1x1536xf32>, tensor<1536xf32>) -> (tensor<1x1536xf32>, tensor<1x1536x16xf32>)
  %o0 = tensor.empty() : tensor<1x768xf32>
  %o1 = linalg.fill ins(%zero : f32) outs(%o0 : tensor<1x768xf32>) -> tensor<1x768xf32>
  %out = linalg.matmul_transpose_b ins(%y, %out_proj : tensor<1x1536xf32>, tensor<768x1536xf32>)
                                   outs(%o1 : tensor<1x768xf32>) -> tensor<1x768xf32>
  return %out, %s : tensor<1x768xf32>, tensor<1x1536x16xf32>
}
