// A small S4D stack (Gu et al. 2022, "On the Parameterization and Initialization of
// Diagonal State Space Models"; state-spaces/s4 models/s4/s4d.py), 2 layers of H = 4
// channels with N/2 = 8 complex modes each, in two forms with the same parameters:
//
// * @sequence: the whole sequence as convolutions. Per layer, K = ssm.lti_kernel zoh
//   (dt = exp(log_dt - 3), A = -exp(log_A_real) + i A_imag, B = 1 folded into C, the
//   S4D convention K_l = 2 Re sum_n C_n (exp(dt A_n) - 1) / A_n exp(dt A_n l)), then
//   y = ssm.lti_conv fft (u, K) + D u, and x <- x + tanh(y) (S4D's GELU and GLU output
//   layer are left out: this example is about the two forms of the SSM).
// * @step: one token as a recurrence with a complex state per layer carried between
//   calls (Abar = exp(dt A), C~ = C (Abar - 1) / A; h <- Abar h + u, y = 2 Re sum C~ h + D u),
//   for streaming: O(H N) work and memory per token, however long the stream.
//
// examples/s4d/stream_check.py runs @sequence on 32 tokens and @step token by token and
// checks that the outputs agree (both compiled, --engine cpu; and on the reference).

func.func @sequence(%u: tensor<1x4x32xf32>, %l0_log_dt: tensor<4xf32>, %l0_log_A_real: tensor<4x8xf32>, %l0_A_imag: tensor<4x8xf32>, %l0_C: tensor<4x8x2xf32>, %l0_D: tensor<4xf32>, %l1_log_dt: tensor<4xf32>, %l1_log_A_real: tensor<4x8xf32>, %l1_A_imag: tensor<4x8xf32>, %l1_C: tensor<4x8x2xf32>, %l1_D: tensor<4xf32>) -> tensor<1x4x32xf32> {
  %l0_y = func.call @layer_sequence(%u, %l0_log_dt, %l0_log_A_real, %l0_A_imag, %l0_C, %l0_D)
      : (tensor<1x4x32xf32>, tensor<4xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8x2xf32>, tensor<4xf32>) -> tensor<1x4x32xf32>
  %l1_y = func.call @layer_sequence(%l0_y, %l1_log_dt, %l1_log_A_real, %l1_A_imag, %l1_C, %l1_D)
      : (tensor<1x4x32xf32>, tensor<4xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8x2xf32>, tensor<4xf32>) -> tensor<1x4x32xf32>
  return %l1_y : tensor<1x4x32xf32>
}

func.func private @layer_sequence(%x: tensor<1x4x32xf32>, %log_dt: tensor<4xf32>, %log_A_real: tensor<4x8xf32>, %A_imag: tensor<4x8xf32>,
                                   %C: tensor<4x8x2xf32>, %D: tensor<4xf32>) -> tensor<1x4x32xf32> {
  %shift = arith.constant dense<-3.0> : tensor<4xf32>
  %ldt = arith.addf %log_dt, %shift : tensor<4xf32>
  %dt = math.exp %ldt : tensor<4xf32>
  %ea = math.exp %log_A_real : tensor<4x8xf32>
  %are = arith.negf %ea : tensor<4x8xf32>
  %are3 = tensor.expand_shape %are [[0], [1, 2]] output_shape [4, 8, 1] : tensor<4x8xf32> into tensor<4x8x1xf32>
  %aim3 = tensor.expand_shape %A_imag [[0], [1, 2]] output_shape [4, 8, 1] : tensor<4x8xf32> into tensor<4x8x1xf32>
  %A = tensor.concat dim(2) %are3, %aim3 : (tensor<4x8x1xf32>, tensor<4x8x1xf32>) -> tensor<4x8x2xf32>
  %K = ssm.lti_kernel zoh %A, %C, %dt : (tensor<4x8x2xf32>, tensor<4x8x2xf32>, tensor<4xf32>) -> tensor<4x32xf32>
  %y = ssm.lti_conv fft %x, %K D(%D) : (tensor<1x4x32xf32>, tensor<4x32xf32>, tensor<4xf32>) -> tensor<1x4x32xf32>
  %a = math.tanh %y : tensor<1x4x32xf32>
  %out = arith.addf %x, %a : tensor<1x4x32xf32>
  return %out : tensor<1x4x32xf32>
}

func.func @step(%u: tensor<1x4xf32>, %l0_s_re: tensor<1x4x8xf32>, %l0_s_im: tensor<1x4x8xf32>, %l1_s_re: tensor<1x4x8xf32>, %l1_s_im: tensor<1x4x8xf32>, %l0_log_dt: tensor<4xf32>, %l0_log_A_real: tensor<4x8xf32>, %l0_A_imag: tensor<4x8xf32>, %l0_C: tensor<4x8x2xf32>, %l0_D: tensor<4xf32>, %l1_log_dt: tensor<4xf32>, %l1_log_A_real: tensor<4x8xf32>, %l1_A_imag: tensor<4x8xf32>, %l1_C: tensor<4x8x2xf32>, %l1_D: tensor<4xf32>) -> (tensor<1x4xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>) {
  %l0_y, %l0_re, %l0_im = func.call @layer_step(%u, %l0_s_re, %l0_s_im, %l0_log_dt, %l0_log_A_real, %l0_A_imag, %l0_C, %l0_D)
      : (tensor<1x4xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<4xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8x2xf32>, tensor<4xf32>) -> (tensor<1x4xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>)
  %l1_y, %l1_re, %l1_im = func.call @layer_step(%l0_y, %l1_s_re, %l1_s_im, %l1_log_dt, %l1_log_A_real, %l1_A_imag, %l1_C, %l1_D)
      : (tensor<1x4xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<4xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8x2xf32>, tensor<4xf32>) -> (tensor<1x4xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>)
  return %l1_y, %l0_re, %l0_im, %l1_re, %l1_im : tensor<1x4xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>
}

func.func private @layer_step(%x: tensor<1x4xf32>, %s_re: tensor<1x4x8xf32>, %s_im: tensor<1x4x8xf32>, %log_dt: tensor<4xf32>, %log_A_real: tensor<4x8xf32>,
                              %A_imag: tensor<4x8xf32>, %C: tensor<4x8x2xf32>, %D: tensor<4xf32>) -> (tensor<1x4xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>) {
  %shift = arith.constant dense<-3.0> : tensor<4xf32>
  %ldt = arith.addf %log_dt, %shift : tensor<4xf32>
  %dt = math.exp %ldt : tensor<4xf32>
  %e0 = tensor.empty() : tensor<4x8xf32>
  %dtb = linalg.broadcast ins(%dt : tensor<4xf32>) outs(%e0 : tensor<4x8xf32>) dimensions = [1]
  %ea = math.exp %log_A_real : tensor<4x8xf32>
  %ar = arith.negf %ea : tensor<4x8xf32>
  // Abar = exp(dt A) = exp(dt Re A) (cos(dt Im A) + i sin(dt Im A))
  %dre = arith.mulf %dtb, %ar : tensor<4x8xf32>
  %dim = arith.mulf %dtb, %A_imag : tensor<4x8xf32>
  %mag = math.exp %dre : tensor<4x8xf32>
  %cs = math.cos %dim : tensor<4x8xf32>
  %sn = math.sin %dim : tensor<4x8xf32>
  %abr = arith.mulf %mag, %cs : tensor<4x8xf32>
  %abi = arith.mulf %mag, %sn : tensor<4x8xf32>
  // C~ = C (Abar - 1) / A
  %one = arith.constant dense<1.0> : tensor<4x8xf32>
  %nr = arith.subf %abr, %one : tensor<4x8xf32>
  %ar2 = arith.mulf %ar, %ar : tensor<4x8xf32>
  %ai2 = arith.mulf %A_imag, %A_imag : tensor<4x8xf32>
  %den = arith.addf %ar2, %ai2 : tensor<4x8xf32>
  %t1 = arith.mulf %nr, %ar : tensor<4x8xf32>
  %t2 = arith.mulf %abi, %A_imag : tensor<4x8xf32>
  %qr0 = arith.addf %t1, %t2 : tensor<4x8xf32>
  %t3 = arith.mulf %abi, %ar : tensor<4x8xf32>
  %t4 = arith.mulf %nr, %A_imag : tensor<4x8xf32>
  %qi0 = arith.subf %t3, %t4 : tensor<4x8xf32>
  %qr = arith.divf %qr0, %den : tensor<4x8xf32>
  %qi = arith.divf %qi0, %den : tensor<4x8xf32>
  %cr = tensor.extract_slice %C[0, 0, 0] [4, 8, 1] [1, 1, 1] : tensor<4x8x2xf32> to tensor<4x8xf32>
  %ci = tensor.extract_slice %C[0, 0, 1] [4, 8, 1] [1, 1, 1] : tensor<4x8x2xf32> to tensor<4x8xf32>
  %u1 = arith.mulf %cr, %qr : tensor<4x8xf32>
  %u2 = arith.mulf %ci, %qi : tensor<4x8xf32>
  %ctr = arith.subf %u1, %u2 : tensor<4x8xf32>
  %u3 = arith.mulf %cr, %qi : tensor<4x8xf32>
  %u4 = arith.mulf %ci, %qr : tensor<4x8xf32>
  %cti = arith.addf %u3, %u4 : tensor<4x8xf32>
  // h <- Abar h + x (complex, per mode), y = 2 Re sum_n C~_n h_n + D x
  %e1 = tensor.empty() : tensor<1x4x8xf32>
  %xb = linalg.broadcast ins(%x : tensor<1x4xf32>) outs(%e1 : tensor<1x4x8xf32>) dimensions = [2]
  %e2 = tensor.empty() : tensor<1x4x8xf32>
  %abr3 = linalg.broadcast ins(%abr : tensor<4x8xf32>) outs(%e2 : tensor<1x4x8xf32>) dimensions = [0]
  %e3 = tensor.empty() : tensor<1x4x8xf32>
  %abi3 = linalg.broadcast ins(%abi : tensor<4x8xf32>) outs(%e3 : tensor<1x4x8xf32>) dimensions = [0]
  %p1 = arith.mulf %abr3, %s_re : tensor<1x4x8xf32>
  %p2 = arith.mulf %abi3, %s_im : tensor<1x4x8xf32>
  %p3 = arith.subf %p1, %p2 : tensor<1x4x8xf32>
  %new_re = arith.addf %p3, %xb : tensor<1x4x8xf32>
  %p4 = arith.mulf %abr3, %s_im : tensor<1x4x8xf32>
  %p5 = arith.mulf %abi3, %s_re : tensor<1x4x8xf32>
  %new_im = arith.addf %p4, %p5 : tensor<1x4x8xf32>
  %e4 = tensor.empty() : tensor<1x4x8xf32>
  %ctr3 = linalg.broadcast ins(%ctr : tensor<4x8xf32>) outs(%e4 : tensor<1x4x8xf32>) dimensions = [0]
  %e5 = tensor.empty() : tensor<1x4x8xf32>
  %cti3 = linalg.broadcast ins(%cti : tensor<4x8xf32>) outs(%e5 : tensor<1x4x8xf32>) dimensions = [0]
  %r1 = arith.mulf %ctr3, %new_re : tensor<1x4x8xf32>
  %r2 = arith.mulf %cti3, %new_im : tensor<1x4x8xf32>
  %r3 = arith.subf %r1, %r2 : tensor<1x4x8xf32>
  %zero = arith.constant 0.0 : f32
  %e6 = tensor.empty() : tensor<1x4xf32>
  %acc0 = linalg.fill ins(%zero : f32) outs(%e6 : tensor<1x4xf32>) -> tensor<1x4xf32>
  %sum = linalg.reduce ins(%r3 : tensor<1x4x8xf32>) outs(%acc0 : tensor<1x4xf32>) dimensions = [2]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %twos = arith.constant dense<2.0> : tensor<1x4xf32>
  %ssm = arith.mulf %sum, %twos : tensor<1x4xf32>
  %e7 = tensor.empty() : tensor<1x4xf32>
  %Db = linalg.broadcast ins(%D : tensor<4xf32>) outs(%e7 : tensor<1x4xf32>) dimensions = [0]
  %dx = arith.mulf %Db, %x : tensor<1x4xf32>
  %y = arith.addf %ssm, %dx : tensor<1x4xf32>
  %a = math.tanh %y : tensor<1x4xf32>
  %out = arith.addf %x, %a : tensor<1x4xf32>
  return %out, %new_re, %new_im : tensor<1x4xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>
}
