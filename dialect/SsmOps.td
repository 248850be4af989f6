// The operations of the `ssm` dialect: ODS definitions and their documentation.
#ifndef SSM_OPS_TD
#define SSM_OPS_TD

include "dialect/SsmDialect.td"
include "dialect/SsmAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def SSM_F32Tensor : RankedTensorOf<[F32]>;

//===----------------------------------------------------------------------===//
// ssm.discretize
//===----------------------------------------------------------------------===//

def SSM_DiscretizeOp : SSM_Op<"discretize", [Pure, AllTypesMatch<["A", "B", "delta", "Abar", "Bbar"]>]> {
  let summary = "continuous (A, B, Delta) to discrete (Abar, Bbar), elementwise";
  let description = [{
    Discretizes a diagonal continuous-time SSM elementwise. `A`, `B`, `delta`
    and both results have the same shape (broadcast beforehand, e.g. with
    `linalg.broadcast`). Delta is the step size in the units of the model's
    time axis. A and B each get their own method (DESIGN.md section 1):

    * `zoh` (exact zero-order hold): Abar = exp(Delta A),
      Bbar = (exp(Delta A) - 1) / A * B (Delta B where A = 0).
    * `bilinear` (Tustin, S4 paper section 2.3): Abar = (1 + Delta A/2) / (1 - Delta A/2),
      Bbar = Delta B / (1 - Delta A/2).
    * `euler` (forward): Abar = 1 + Delta A, Bbar = Delta B.

    Mamba-1 (`selective_scan_ref` in state-spaces/mamba) uses `zoh` for A and
    `euler` for B:

    ```mlir
    %abar, %bbar = ssm.discretize %A, %B, %delta methods(zoh, euler) : tensor<2x4x8xf32>
    ```
  }];
  let arguments = (ins SSM_F32Tensor:$A, SSM_F32Tensor:$B, SSM_F32Tensor:$delta,
                       SSM_Discretization:$a_method, SSM_Discretization:$b_method);
  let results = (outs SSM_F32Tensor:$Abar, SSM_F32Tensor:$Bbar);
  let assemblyFormat = [{
    $A `,` $B `,` $delta `methods` `(` $a_method `,` $b_method `)` attr-dict `:` type($A)
  }];
}

//===----------------------------------------------------------------------===//
// ssm.affine_scan
//===----------------------------------------------------------------------===//

def SSM_AffineScanOp : SSM_Op<"affine_scan", [Pure, AttrSizedOperandSegments]> {
  let summary = "first-order linear recurrence h_t = a_t * h_{t-1} + b_t along one dimension";
  let description = [{
    Computes `h[t] = a[t] * h[t-1] + b[t]` elementwise along dimension `dim`
    of `b`, starting from `h0` (zeros when absent). The recurrence is a
    composition of affine maps, (a2, b2) . (a1, b1) = (a2 a1, a2 b1 + b2),
    which is associative with identity (1, 0): chunked and tree-shaped
    (parallel-in-time) evaluations are legal rewrites of this op.

    * `a` has the rank of `b`; each of its dims equals b's or is 1 (broadcast).
    * `h0` and the result `h_last` have b's shape with `dim` removed.
    * `reset` (i1, b's shape): where true, the step starts a new sequence
      (h[t-1] is taken as 0), for packed variable-length sequences.
    * `reverse`: the scan runs from the last index to the first; `h_last` is
      then the state at index 0.
    * The scanned dimension of `b` has at least one step: the verifier
      refuses length 0 ("a scan needs at least one step").

    Results: `h` (b's shape) and `h_last`.

    ```mlir
    %h, %last = ssm.affine_scan %a, %b along 1 : (tensor<4x16xf32>, tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4xf32>)
    ```
  }];
  let arguments = (ins SSM_F32Tensor:$a, SSM_F32Tensor:$b,
                       Optional<SSM_F32Tensor>:$h0,
                       Optional<RankedTensorOf<[I1]>>:$reset,
                       I64Attr:$dim, UnitAttr:$reverse);
  let results = (outs SSM_F32Tensor:$h, SSM_F32Tensor:$h_last);
  let assemblyFormat = [{
    $a `,` $b (`h0` `(` $h0^ `)`)? (`reset` `(` $reset^ `)`)? `along` $dim (`reverse` $reverse^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// ssm.selective_scan
//===----------------------------------------------------------------------===//

def SSM_SelectiveScanOp : SSM_Op<"selective_scan", [Pure, AttrSizedOperandSegments]> {
  let summary = "Mamba-1 selective scan (input-dependent Delta, B, C), fused D skip and silu(z) gate";
  let description = [{
    The selective scan of Mamba-1 (Gu and Dao 2023, Algorithm 2), with the
    semantics of `selective_scan_ref` in state-spaces/mamba
    (mamba_ssm/ops/selective_scan_interface.py). For each batch b, channel d
    and state index n:

        delta = delta + delta_bias[d];  delta = softplus(delta) if delta_softplus
        h[n]  = exp(delta * A[d, n]) * h[n] + delta * B[n] * u      (zoh A, euler B)
        y     = sum_n h[n] * C[n] + D[d] * u;  y = y * silu(z) if z is given

    Shapes (dim = D channels, N = state size, L = sequence length):

    | operand          | `channel_major` (mamba_ssm) | `time_major` (ggml, Mamba-2) |
    |------------------|-----------------------------|------------------------------|
    | u, delta, z, y   | (batch, dim, L)             | (batch, L, dim)              |
    | B, C per token   | (batch, N, L)               | (batch, L, N)                |
    | B, C grouped     | (batch, G, N, L)            | (batch, L, G, N)             |
    | B, C constant    | (dim, N)                    | (dim, N)                     |
    | A                | (dim, N)                    | (dim, N)                     |
    | D, delta_bias    | (dim)                       | (dim)                        |
    | h0, h_last       | (batch, dim, N)             | (batch, dim, N)              |

    With G groups, channel d reads group d / (dim / G); G must divide dim.
    N (d_state) is at least 1: the verifier refuses a zero-size state.
    B and C choose their form independently. `h_last` is the state after the
    last token. A is real (the complex-A variant of mamba_ssm is not supported).

    Decomposes (`ssm-decompose`) into `ssm.discretize` + `ssm.affine_scan` +
    a readout, and lowers to a fused kernel that never stores the
    (batch, L, dim, N) state.

    ```mlir
    %y, %h = ssm.selective_scan channel_major %u, %dt, %A, %B, %C D(%D) z(%z) delta_bias(%bias) {delta_softplus}
        : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<8x4xf32>, tensor<1x2x4x40xf32>, tensor<1x2x4x40xf32>,
           tensor<8xf32>, tensor<1x8x40xf32>, tensor<8xf32>) -> (tensor<1x8x40xf32>, tensor<1x8x4xf32>)
    ```
  }];
  let arguments = (ins SSM_F32Tensor:$u, SSM_F32Tensor:$delta, SSM_F32Tensor:$A,
                       SSM_F32Tensor:$B, SSM_F32Tensor:$C,
                       Optional<SSM_F32Tensor>:$D, Optional<SSM_F32Tensor>:$z,
                       Optional<SSM_F32Tensor>:$delta_bias, Optional<SSM_F32Tensor>:$h0,
                       SSM_Layout:$layout, UnitAttr:$delta_softplus);
  let results = (outs SSM_F32Tensor:$y, SSM_F32Tensor:$h_last);
  let assemblyFormat = [{
    $layout $u `,` $delta `,` $A `,` $B `,` $C (`D` `(` $D^ `)`)? (`z` `(` $z^ `)`)?
    (`delta_bias` `(` $delta_bias^ `)`)? (`h0` `(` $h0^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// ssm.selective_update
//===----------------------------------------------------------------------===//

def SSM_SelectiveUpdateOp : SSM_Op<"selective_update", [Pure, AttrSizedOperandSegments]> {
  let summary = "one decode step of the selective scan (state update), with or without heads";
  let description = [{
    One token of the selective scan, the decode form, with the semantics of
    `selective_state_update_ref` in state-spaces/mamba
    (mamba_ssm/ops/triton/selective_state_update.py):

        dt = dt + dt_bias;  dt = softplus(dt) if dt_softplus
        new_state = state * exp(dt * A) + B * (dt * x)
        y = sum_n new_state * C + D * x;  y = y * silu(z) if z is given

    | operand        | without heads (Mamba-1) | with heads (Mamba-2) |
    |----------------|-------------------------|----------------------|
    | state, new_state | (batch, dim, N)       | (batch, H, P, N)     |
    | x, dt, z, y    | (batch, dim)            | (batch, H, P)        |
    | A              | (dim, N)                | (H, P, N)            |
    | B, C           | (batch, N)              | (batch, G, N)        |
    | D, dt_bias     | (dim)                   | (H, P)               |

    Head h reads group h / (H / G). The state is a value here; bufferization
    donates the input state buffer to `new_state` (updated in place).
    N (d_state) is at least 1: the verifier refuses a zero-size state.
  }];
  let arguments = (ins SSM_F32Tensor:$state, SSM_F32Tensor:$x, SSM_F32Tensor:$dt,
                       SSM_F32Tensor:$A, SSM_F32Tensor:$B, SSM_F32Tensor:$C,
                       Optional<SSM_F32Tensor>:$D, Optional<SSM_F32Tensor>:$z,
                       Optional<SSM_F32Tensor>:$dt_bias, UnitAttr:$dt_softplus);
  let results = (outs SSM_F32Tensor:$y, SSM_F32Tensor:$new_state);
  let assemblyFormat = [{
    $state `,` $x `,` $dt `,` $A `,` $B `,` $C (`D` `(` $D^ `)`)? (`z` `(` $z^ `)`)?
    (`dt_bias` `(` $dt_bias^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// ssm.lti_kernel
//===----------------------------------------------------------------------===//

def SSM_LtiKernelOp : SSM_Op<"lti_kernel", [Pure]> {
  let summary = "convolution kernel K_l = C Abar^l Bbar of a time-invariant diagonal SSM (S4, S4D)";
  let description = [{
    The S4/S4D convolution kernel (state-spaces/s4, models/s4/s4d.py
    `S4DKernel`, src/models/sequence/kernels/ssm.py `SSMKernelDiag`):

        K[h, l] = sum_n C[h, n] * Bbar[h, n] * Abar[h, n]^l,  l = 0 .. length-1

    with (Abar, Bbar) from (A, B, delta[h]) by `discretization` (as in
    `ssm.discretize`), the same method for A and B unless a second method
    is given for B:

    * `zoh` (S4D, `S4DKernel`): Abar = exp(delta A), Bbar = (exp(delta A) - 1) / A * B.
    * `bilinear` (S4, section 2.3 of Gu et al. 2022): Abar = (1 + delta A/2) / (1 - delta A/2),
      Bbar = delta B / (1 - delta A/2).
    * `euler`: Abar = 1 + delta A, Bbar = delta B.
    * `zoh, euler` (Mamba's simplified B, Gu and Dao 2023 section 3.2):
      Abar = exp(delta A), Bbar = delta B.

    A, B and C are (H, N) when real, or (H, N, 2) holding
    (real, imaginary) pairs when complex; a complex A holds one
    representative of each of N conjugate pairs and the kernel is
    K = 2 Re(sum ...), the S4D convention. B is 1 when absent (folded into C). With a complex A, a real B or C is a
    complex number with zero imaginary part.
    delta is (H); the result is (H, length), its static shape giving the length.
    N is at least 1: the verifier refuses a zero-size state.

    With Abar 0.8, Bbar 1, C 1: K = (1, 0.8, 0.64, ...).

    ```mlir
    %K = ssm.lti_kernel zoh %A, %C, %dt : (tensor<4x8x2xf32>, tensor<4x8x2xf32>, tensor<4xf32>) -> tensor<4x256xf32>
    %K2 = ssm.lti_kernel zoh, euler %A, %C, %dt B(%B) : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4x8xf32>) -> tensor<4x256xf32>
    ```
  }];
  let arguments = (ins SSM_F32Tensor:$A, Optional<SSM_F32Tensor>:$B, SSM_F32Tensor:$C,
                       SSM_F32Tensor:$delta, SSM_Discretization:$discretization,
                       OptionalAttr<SSM_Discretization>:$b_discretization);
  let results = (outs SSM_F32Tensor:$K);
  let assemblyFormat = [{
    $discretization (`,` $b_discretization^)? $A `,` $C `,` $delta (`B` `(` $B^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The method for B: `b_discretization` when given, else `discretization`.
    ::ssm::Discretization getBMethod() {
      return getBDiscretization() ? *getBDiscretization() : getDiscretization();
    }
  }];
}

//===----------------------------------------------------------------------===//
// ssm.lti_conv
//===----------------------------------------------------------------------===//

def SSM_LtiConvOp : SSM_Op<"lti_conv", [Pure]> {
  let summary = "causal long convolution y = K * u + D u per channel";
  let description = [{
    Causal depthwise convolution of `u` (batch, H, L) with a kernel `K`
    (H, Lk), plus an optional skip `D` (H):

        y[b, h, t] = sum_{k=0}^{min(t, Lk-1)} K[h, k] * u[b, h, t-k] + D[h] * u[b, h, t]

    `algorithm` chooses how compiled code evaluates it and does not change
    the result beyond f32 rounding (the reference interpreter always sums
    directly in f64):

    * `direct`: the sum as written, O(L min(L, Lk)) per channel.
    * `fft`: as S4's FFTConv, zero-padded FFTs of length n = 2^ceil(log2 2L),
      pointwise product, inverse: O(L log L) per channel. The length must be
      static. Error of the convolution part, for each t:
      |y_fft - y| <= log2(n) 2^-24 ||u[b, h, :]||_2 ||K[h, :L]||_2.
    * `scan`: the recurrence the kernel came from. A convolution given only
      K has no recurrence, so compiled code refuses it; `ssm-lti-to-conv`
      expresses the choice by leaving the scan in place.

    `ssm-lti-to-conv` writes the algorithm its cost model picks; edit it
    (or the scan's `ssm.lti_algorithm`) to override it.
  }];
  let arguments = (ins SSM_F32Tensor:$u, SSM_F32Tensor:$K, Optional<SSM_F32Tensor>:$D,
                       SSM_ConvAlgorithm:$algorithm);
  let results = (outs SSM_F32Tensor:$y);
  let assemblyFormat = [{
    $algorithm $u `,` $K (`D` `(` $D^ `)`)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// ssm.causal_conv1d
//===----------------------------------------------------------------------===//

def SSM_CausalConv1dOp : SSM_Op<"causal_conv1d", [Pure, AttrSizedOperandSegments]> {
  let summary = "Mamba's short causal depthwise convolution (width 2..4), bias, optional silu, carried state";
  let description = [{
    The short convolution of Mamba blocks, with the semantics of
    `causal_conv1d_ref` (Dao-AILab/causal-conv1d,
    causal_conv1d/causal_conv1d_interface.py). With W the width and
    xx = concat(initial_states or zeros, x) along time:

        out[b, d, t] = act(bias[d] + sum_{k<W} weight[d, k] * xx[b, d, t + k])

    so the last tap multiplies the current sample. `final_states` holds the
    last W-1 samples of xx (the window a following decode step needs).

    x, out: (batch, dim, L); weight: (dim, W), 2 <= W <= 4; bias: (dim);
    initial_states, final_states: (batch, dim, W-1).
  }];
  let arguments = (ins SSM_F32Tensor:$x, SSM_F32Tensor:$weight,
                       Optional<SSM_F32Tensor>:$bias, Optional<SSM_F32Tensor>:$initial_states,
                       SSM_Activation:$activation);
  let results = (outs SSM_F32Tensor:$out, SSM_F32Tensor:$final_states);
  let assemblyFormat = [{
    $activation $x `,` $weight (`bias` `(` $bias^ `)`)? (`initial_states` `(` $initial_states^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// ssm.ssd_scan
//===----------------------------------------------------------------------===//

def SSM_SsdScanOp : SSM_Op<"ssd_scan", [Pure, AttrSizedOperandSegments]> {
  let summary = "outer-product state scan: Mamba-2 SSD, linear attention with decay, RWKV-5 (with bonus)";
  let description = [{
    The matrix-state recurrence of Mamba-2 (state-spaces/mamba,
    mamba_ssm/modules/ssd_minimal.py `ssd_minimal_discrete`) and of RWKV-5
    and decayed linear attention. Per batch b and head h, with the state S a
    (P, N) matrix:

        S_t = exp(A_t) (.) S_{t-1} + X_t B_t^T
        Y_t = S_t C_t                                        (Mamba-2, no bonus)
        Y_t = S_{t-1} C_t + X_t (B_t . (bonus (.) C_t))     (RWKV-5, with bonus u)

    | operand               | shape                               |
    |-----------------------|-------------------------------------|
    | X (values, times dt)  | (batch, L, H, P)                    |
    | A (log decay per step)| (batch, L, H) or (batch, L, H, N)   |
    | B (keys), C (queries) | (batch, L, G, N), head h reads group h / (H / G) |
    | initial_state, final_state | (batch, H, P, N)               |
    | bonus                 | (H, N)                              |
    | Y                     | (batch, L, H, P)                    |

    A of rank 3 is a scalar decay per head (Mamba-2); rank 4 decays each key
    dimension (RWKV-5, gated linear attention). `chunk_size` is the chunk
    length compiled code uses for the chunked form (small matrix products
    within a chunk, a scan over chunk states); it does not change the result.
    N (d_state, read from B) is at least 1: the verifier refuses a zero-size
    state.
  }];
  let arguments = (ins SSM_F32Tensor:$X, SSM_F32Tensor:$A, SSM_F32Tensor:$B, SSM_F32Tensor:$C,
                       Optional<SSM_F32Tensor>:$initial_state, Optional<SSM_F32Tensor>:$bonus,
                       DefaultValuedAttr<I64Attr, "64">:$chunk_size);
  let results = (outs SSM_F32Tensor:$Y, SSM_F32Tensor:$final_state);
  let assemblyFormat = [{
    $X `,` $A `,` $B `,` $C (`initial_state` `(` $initial_state^ `)`)? (`bonus` `(` $bonus^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// ssm.wkv4
//===----------------------------------------------------------------------===//

def SSM_Wkv4Op : SSM_Op<"wkv4", [Pure, AttrSizedOperandSegments]> {
  let summary = "RWKV-4 WKV: two exponentially weighted sums with a running maximum exponent";
  let description = [{
    The time mixing of RWKV-4 (BlinkDL/RWKV-LM, RWKV-v4/src/model_run.py;
    rwkv.cpp rwkv_graph.inc), in the stabilised form that keeps a running
    maximum exponent `pp` so that no exp overflows (fp32 overflows for k
    around 88 otherwise). Per batch b and channel c, with the state
    (aa, bb, pp) and for t = 0 .. L-1:

        q   = max(pp, u + k_t);    e1 = exp(pp - q);      e2 = exp(u + k_t - q)
        wkv_t = (e1 aa + e2 v_t) / (e1 bb + e2)
        q2  = max(pp + w, k_t);    e1 = exp(pp + w - q2); e2 = exp(k_t - q2)
        aa  = e1 aa + e2 v_t;      bb = e1 bb + e2;       pp = q2

    so that wkv_t = (sum_{s<t} e^{(t-1-s) w + k_s} v_s + e^{u + k_t} v_t) /
    (the same with v = 1), aa / bb holding the sums divided by e^pp.

    | operand                  | shape          |
    |--------------------------|----------------|
    | w (log decay, negative: rwkv.cpp's `time_decay` = -exp(decay)) | (C) |
    | u (bonus of the current token, `time_first`) | (C)  |
    | k, v, wkv                | (batch, L, C)  |
    | aa, bb, pp (state in) and aa_out, bb_out, pp_out | (batch, C) |

    The state operands are optional, all three or none; without them the
    scan starts from aa = bb = 0, pp = -1e30 (rwkv.cpp's initial state).
    The results are wkv and the state after the last token. L is at least 1:
    the verifier refuses a sequence of length 0 ("a scan needs at least one
    step").

    ```mlir
    %wkv, %aa1, %bb1, %pp1 = ssm.wkv4 %w, %u, %k, %v state(%aa, %bb, %pp)
        : (tensor<64xf32>, tensor<64xf32>, tensor<1x16x64xf32>, tensor<1x16x64xf32>,
           tensor<1x64xf32>, tensor<1x64xf32>, tensor<1x64xf32>)
        -> (tensor<1x16x64xf32>, tensor<1x64xf32>, tensor<1x64xf32>, tensor<1x64xf32>)
    ```
  }];
  let arguments = (ins SSM_F32Tensor:$w, SSM_F32Tensor:$u, SSM_F32Tensor:$k, SSM_F32Tensor:$v,
                       Optional<SSM_F32Tensor>:$aa, Optional<SSM_F32Tensor>:$bb,
                       Optional<SSM_F32Tensor>:$pp);
  let results = (outs SSM_F32Tensor:$wkv, SSM_F32Tensor:$aa_out, SSM_F32Tensor:$bb_out,
                      SSM_F32Tensor:$pp_out);
  let assemblyFormat = [{
    $w `,` $u `,` $k `,` $v (`state` `(` $aa^ `,` $bb `,` $pp `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// ssm.wkv7
//===----------------------------------------------------------------------===//

def SSM_Wkv7Op : SSM_Op<"wkv7", [Pure]> {
  let summary = "RWKV-7 WKV: the generalised delta rule, a matrix state with a rank-one correction per token";
  let description = [{
    The time mixing state update of RWKV-7 "Goose" (BlinkDL/RWKV-LM,
    RWKV-v7/rwkv_v7_demo.py; rwkv.cpp rwkv_graph.inc through ggml's
    `rwkv_wkv7`). Per batch b and head h, with the state S an (N, N) matrix
    indexed [value i][key j], and for t = 0 .. L-1:

        S_t = S_{t-1} diag(exp(w_t)) + (S_{t-1} a_t) b_t^T + v_t k_t^T
        y_t = S_t r_t

    i.e. S_t[i, j] = S_{t-1}[i, j] exp(w_t[j]) + (sum_l S_{t-1}[i, l] a_t[l]) b_t[j]
    + v_t[i] k_t[j] and y_t[i] = sum_j S_t[i, j] r_t[j]. RWKV-7 passes
    w = -exp(-0.5) sigmoid(w0 + lora(x)) (so exp(w) is in (0.545, 1)),
    a = -kk and b = kk * iclr with kk the L2-normalised key: a delta-rule
    step that removes the state's component along kk before writing v k^T.
    With a = 0 this is RWKV-6's recurrence (`ssm.ssd_scan` with a per-token
    A, read after the update instead of before it with a bonus).

    | operand                            | shape             |
    |------------------------------------|-------------------|
    | r (receptance), w (log decay), k, v, a, b | (batch, L, H, N) |
    | initial_state (optional, zeros when absent), final_state | (batch, H, N, N), [value i][key j] as rwkv.cpp |
    | y                                  | (batch, L, H, N)  |

    w is a log decay, as `ssm.wkv4`'s w and `ssm.ssd_scan`'s A (ggml's
    `rwkv_wkv7` takes exp(w)). The results are y and the state after the
    last token. L is at least 1: the verifier refuses a sequence of length 0
    ("a scan needs at least one step").

    Two kernels compute it, picked by the schedule's `chunk`: 0 walks the
    tokens one by one (one pass over the state per token); C > 0 is the
    chunked WY form of the generalised delta rule (as flash-linear-attention's
    chunked RWKV-7 / DPLR kernels): per chunk of C tokens the rank-one
    columns S_{r-1} a_r solve a unit lower triangular C x C system, the
    decay factors are exps of differences of cumulative log decays (<= 0, so
    none overflows whatever the decay), and one pass over the state per
    chunk (codegen/kernels/Wkv7Kernel.h). Both agree with the float64
    reference within 1e-4 (lit Dialect/wkv7-chunked-golden, L up to 4096).

    ```mlir
    %y, %s1 = ssm.wkv7 %r, %w, %k, %v, %a, %b initial_state(%s0)
        : (tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32>,
           tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32>,
           tensor<1x2x32x32xf32>) -> (tensor<1x16x2x32xf32>, tensor<1x2x32x32xf32>)
    ```
  }];
  let arguments = (ins SSM_F32Tensor:$r, SSM_F32Tensor:$w, SSM_F32Tensor:$k, SSM_F32Tensor:$v,
                       SSM_F32Tensor:$a, SSM_F32Tensor:$b,
                       Optional<SSM_F32Tensor>:$initial_state);
  let results = (outs SSM_F32Tensor:$y, SSM_F32Tensor:$final_state);
  let assemblyFormat = [{
    $r `,` $w `,` $k `,` $v `,` $a `,` $b (`initial_state` `(` $initial_state^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// ssm.gated_delta_rule
//===----------------------------------------------------------------------===//

def SSM_GatedDeltaRuleOp : SSM_Op<"gated_delta_rule", [Pure]> {
  let summary = "gated delta rule (Gated DeltaNet, Kimi's KDA): a matrix state that decays and is corrected toward v along k per token";
  let description = [{
    The gated delta rule of Gated DeltaNet (Yang, Kautz, Hatamizadeh,
    "Gated Delta Networks: Improving Mamba2 with Delta Rule", ICLR 2025,
    section 3), the recurrent layer of Qwen3-Next and Qwen3.5, and with a
    per-key-channel decay of Kimi Linear's KDA. It follows
    flash-linear-attention's `chunk_gated_delta_rule` /
    `fused_recurrent_gated_delta_rule` (fla/ops/gated_delta_rule/; `chunk_kda`
    for the per-channel gate) and llama.cpp's `llm_build_delta_net_base`
    (src/models/delta-net-base.cpp, which also tells the two gates apart by
    g's rank): the same operands, layouts and state.
    Per batch b and value head h (served by key head h / (Hv / Hk)), with
    the state S a (Dk, Dv) matrix indexed [key i][value j], and for
    t = 0 .. L-1:

        S_t = exp(g_t) S_{t-1}                 (per-channel: Diag(exp g_t) S_{t-1})
        S_t = S_t + beta_t k_t (v_t - S_t^T k_t)^T
        o_t = scale * S_t^T q_t

    i.e. S_t = exp(g_t) (I - beta_t k_t k_t^T) S_{t-1} + beta_t k_t v_t^T
    with the scalar gate: the delta rule writes v_t where k_t points,
    erasing what the decayed state held there. Callers pass q and k
    L2-normalised per head, as the models do (fla's
    `use_qk_l2norm_in_kernel` is a separate step here, so that the op is
    the recurrence alone), g = log decay <= 0 and beta in (0, 1) (the op
    computes whatever it is given; beta ||k||^2 > 2 makes the rule
    diverge, as it does in every implementation).

    | operand / result | shape | |
    |---|---|---|
    | q, k | (batch, L, Hk, Dk) | queries and keys, one per key head |
    | v, out | (batch, L, Hv, Dv) | Hv a multiple of Hk: key head i serves value heads i r .. i r + r - 1, r = Hv / Hk |
    | g | (batch, L, Hv) or (batch, L, Hv, Dk) | log decay: one per value head per token (Gated DeltaNet), or one per key channel (KDA); the rank decides |
    | beta | (batch, L, Hv) | write strength per value head per token |
    | initial_state (optional, zeros when absent), final_state | (batch, Hv, Dk, Dv) | [key i][value j], fla's and transformers' recurrent state |

    `scale` (positive, finite) multiplies the readout: 1/sqrt(Dk) in the
    models. The results are the outputs and the state after the last
    token. L is at least 1. A new op rather than `ssm.wkv7`, which can
    write the scalar-gate rule (w = g, a = k, b = -exp(g) beta k, k' = beta
    k) but needs equal head counts (q and k copied per value head), a decay
    per channel where GDN has one per head, and its state transposed; and
    the chunked form relies on the correction being the symmetric
    beta k k^T.

    Two kernels, picked by the schedule's `chunk` (`#ssm.schedule`; by
    default 0 on CPU targets, where the chunked kernel measured slower, see
    dialect/ScheduleDefaults.h; on GPU targets 0 when L < 8, else 64, or 16
    with a gate per key channel):

    * `chunk = 0`, token by token (the decode form): each value column j
      of a head's state is kept apart (the columns never mix) and the
      tokens are walked with one pass over the key rows per token,
      vectorised along j, in parallel over value heads x batch.
    * `chunk = C`, the chunked WY form of fla's `chunk_gated_delta_rule`
      (the paper's section 3.3): within each chunk of C tokens, with G the
      cumulative log decay from the chunk's start,
      A = strictly-lower(diag(beta) (K K^T (.) exp(G_r - G_s))) (per
      channel: the decay ratio inside the sum over key channels), and one
      forward substitution through (I + A) gives U~ = T diag(beta) V and
      W = T diag(beta) (K (.) exp(G)) with T = (I + A)^-1 (the UT
      transform, never formed). The chunk's map of the state is then
      S' = M S + B with M = diag(exp G_last) - K~^T W and B = K~^T U~
      (K~ the keys decayed to the chunk's end), so one matrix-vector pass
      per chunk and value column carries the state; the outputs follow
      from the state entering each chunk: U = U~ - W S and
      o = scale ((Q (.) exp G) S + strictly-lower-or-diagonal(Q K^T (.)
      exp(G_r - G_s)) U), in parallel over chunks. Every exponent is a
      difference G_r - G_s <= 0 or G <= 0, so no factor overflows however
      strong the decay. Tokens past L pad the last chunk with g = 0,
      beta = 0, k = v = 0, which leave the state unchanged.

    ```mlir
    %o, %s1 = ssm.gated_delta_rule %q, %k, %v, %g, %beta initial_state(%s0) {scale = 0.125 : f64}
        : (tensor<1x16x2x64xf32>, tensor<1x16x2x64xf32>, tensor<1x16x4x64xf32>,
           tensor<1x16x4xf32>, tensor<1x16x4xf32>, tensor<1x4x64x64xf32>)
        -> (tensor<1x16x4x64xf32>, tensor<1x4x64x64xf32>)
    ```
  }];
  let arguments = (ins SSM_F32Tensor:$q, SSM_F32Tensor:$k, SSM_F32Tensor:$v, SSM_F32Tensor:$g,
                       SSM_F32Tensor:$beta, Optional<SSM_F32Tensor>:$initial_state,
                       F64Attr:$scale);
  let results = (outs SSM_F32Tensor:$out, SSM_F32Tensor:$final_state);
  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $g `,` $beta (`initial_state` `(` $initial_state^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // SSM_OPS_TD

//===----------------------------------------------------------------------===//
// ssm.rope
//===----------------------------------------------------------------------===//

def SSM_I32Tensor : RankedTensorOf<[I32]>;

def SSM_RopeOp : SSM_Op<"rope", [Pure, AllTypesMatch<["x", "out"]>]> {
  let summary = "rotary position embedding (RoPE) of query or key heads at the stream's positions";
  let description = [{
    Rotary position embedding (Su et al., "RoFormer", 2021), as transformers'
    `apply_rotary_pos_emb` (models/llama/modeling_llama.py) and llama.cpp's
    `ggml_rope_ext` apply it. Token t of stream b sits at absolute position
    p = position[b] + t. With R = `rotary_dim` (even, at most D) and, for
    i < R/2, the angle

        a_i = p * theta^(-2i / R)

    each pair (x0, x1) of channels turns by a_i:

        out0 = x0 cos(a_i) - x1 sin(a_i),   out1 = x0 sin(a_i) + x1 cos(a_i)

    where the pair is (2i, 2i+1) for `style` normal (GPT-J, llama.cpp
    LLAMA_ROPE_TYPE_NORM) and (i, i + R/2) for `style` neox (GPT-NeoX,
    transformers' rotate_half; the LFM2 and Qwen checkpoints). Channels
    R .. D-1 pass unchanged (partial rotary: a `partial_rotary_factor` of
    the head dim). The angle is computed in float64 and reduced before the
    f32 sine and cosine, so positions in the hundreds of thousands keep
    their precision.

    | operand / result | shape | element |
    |---|---|---|
    | x, out | (batch, L, H, D) | f32 |
    | position | (batch) | i32: the stream's position before this call's first token |

    The verifier requires R even, 0 < R <= D, theta > 0.

    ```mlir
    %qr = ssm.rope neox %q, %pos {theta = 1.0e6 : f64, rotary_dim = 64 : i64}
        : (tensor<1x16x8x64xf32>, tensor<1xi32>) -> tensor<1x16x8x64xf32>
    ```
  }];
  let arguments = (ins SSM_F32Tensor:$x, SSM_I32Tensor:$position, F64Attr:$theta,
                       I64Attr:$rotary_dim, SSM_RopeStyle:$style);
  let results = (outs SSM_F32Tensor:$out);
  let assemblyFormat = [{
    $style $x `,` $position attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// ssm.attention
//===----------------------------------------------------------------------===//

def SSM_AttentionOp : SSM_Op<"attention", [Pure]> {
  let summary = "causal grouped-query softmax attention that appends to and reads a KV cache";
  let description = [{
    Causal scaled-dot-product attention with grouped-query heads (Ainslie et
    al., "GQA", 2023) over a per-stream KV cache, as transformers'
    `eager_attention_forward` with a `DynamicCache` and llama.cpp's
    `build_attn` compute it. Stream b's call holds L new tokens at absolute
    positions p_i = position[b] + i. The new keys and values are written to
    rows position[b] .. position[b] + L - 1 of the caches (the results
    `k_cache_new`, `v_cache_new`; the other rows are copied), and query i
    of head h reads KV head g = h / (H / Hkv):

        s_j = scale * sum_d q[b, i, h, d] * K[b, j, g, d]    for the rows j <= p_i
                                                               (and p_i - j < window if window > 0)
        out[b, i, h, :] = sum_j softmax(s)_j V[b, j, g, :]

    with K, V the caches after the write. The softmax subtracts the row's
    maximum and sums in f32. Rows past p_i are never read, so a cache need
    not be cleared when a stream is reset. `scale` is explicit (1/sqrt(D)
    for most models, Granite's attention_multiplier); `window` 0 means no
    sliding window. A call must fit: position[b] + L <= C (the runtime
    refuses a longer stream before it runs, SSM_ERROR_CONTEXT_FULL; the
    kernels clamp).

    | operand / result | shape |
    |---|---|
    | q, out (out has Dv) | (batch, L, H, D), (batch, L, H, Dv) |
    | k, v | (batch, L, Hkv, D), (batch, L, Hkv, Dv) |
    | k_cache, k_cache_new | (batch, C, Hkv, D) |
    | v_cache, v_cache_new | (batch, C, Hkv, Dv) |
    | position | (batch) i32 |

    H must be a multiple of Hkv. The kernels never form the L x C score
    matrix: queries go in tiles of `channel_tile`, keys in tiles of `chunk`
    (default 64; 256 for one query); each (query tile, key tile) pair gives
    per query the tile's score max, its sum of exp(s - max) and its
    exp-weighted sum of values, and a query combines its tiles with the
    factors exp(max_t - max) (FlashAttention, Dao et al. 2022, with the
    rescaling done once per query instead of per tile; flash-decoding, Dao
    et al. 2023, for one query, whose key tiles run in parallel). A CPU
    task is one query tile of one KV head: the query heads that share the
    KV head read its key and value tiles once. Only the key tiles that a
    query tile can read are visited (no work above the causal diagonal
    beyond one tile).

    ```mlir
    %o, %kc1, %vc1 = ssm.attention %q, %k, %v, %kc, %vc, %pos {scale = 0.25 : f64, window = 0 : i64}
        : (tensor<1x8x4x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>,
           tensor<1x128x2x16xf32>, tensor<1x128x2x16xf32>, tensor<1xi32>)
        -> (tensor<1x8x4x16xf32>, tensor<1x128x2x16xf32>, tensor<1x128x2x16xf32>)
    ```
  }];
  let arguments = (ins SSM_F32Tensor:$q, SSM_F32Tensor:$k, SSM_F32Tensor:$v,
                       SSM_F32Tensor:$k_cache, SSM_F32Tensor:$v_cache, SSM_I32Tensor:$position,
                       F64Attr:$scale, DefaultValuedAttr<I64Attr, "0">:$window);
  let results = (outs SSM_F32Tensor:$out, SSM_F32Tensor:$k_cache_new,
                      SSM_F32Tensor:$v_cache_new);
  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $k_cache `,` $v_cache `,` $position attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def SSM_WeightTensor : RankedTensorOf<[F16, BF16, F32, I8]>;
def SSM_ScaleTensor : RankedTensorOf<[F16, BF16, F32]>;

def SSM_DequantizeOp : SSM_Op<"dequantize", [Pure, AttrSizedOperandSegments]> {
  let summary = "a weight stored in 16 bits or as int8 with per-block scales (and mins), read as f32";
  let description = [{
    The f32 values of a weight kept in a narrower storage type: the weights
    file holds the narrow form, the function takes it as its argument, and
    every op that reads the result reads the narrow form directly (codegen
    never materialises the f32 tensor; it converts each element where it is
    loaded, inside the matmul's or the kernel's loop).

    * f16 or bf16 `input`, no `scale`: each element widened to f32 (exact).
    * i8 `input` q of shape (..., K) with `scale` s of shape
      (..., ceil(K / block_size)) in f16, bf16 or f32: weight-only
      quantisation by blocks along the last (reduction) dim, as ggml's Q8_0
      (block_size 32, f16 scales; llama.cpp, ggml-quants.c):

          w[..., k] = f32(q[..., k]) * f32(s[..., k / block_size])

    * the same with a `min` operand mn of `scale`'s shape (f16, bf16 or
      f32): blocks with an offset, as ggml's Q4_K and Q5_K
      (`dequantize_row_q4_K` / `_q5_K`, ggml-quants.c: sub-blocks of 32,
      q in [0, 15] / [0, 31], s = d * sc and mn = dmin * m the f32
      products ggml forms from the super-block's f16 d, dmin and the 6-bit
      sc, m; the GGUF import stores them so, docs/gguf.md):

          w[..., k] = f32(q[..., k]) * f32(s[..., k / block_size])
                      - f32(mn[..., k / block_size])

      each product and difference rounded to f32 as ggml's `d1 * q - m1`
      (its products are exact for Q4_K / Q5_K, so the result is ggml's
      bit for bit whether or not the multiply-subtract is fused).

    The result has `input`'s shape in f32. `ssm-import --weights` writes
    weights in these forms; the graph's weight arguments carry the storage
    type and one `ssm.dequantize` each (passes/WeightStorage.h).

    ```mlir
    %w = ssm.dequantize %w16 : (tensor<768x1536xf16>) -> tensor<768x1536xf32>
    %v = ssm.dequantize %q, %s {block_size = 32}
        : (tensor<768x1536xi8>, tensor<768x48xf16>) -> tensor<768x1536xf32>
    %u = ssm.dequantize %q4, %s4 min %m4 {block_size = 32}
        : (tensor<768x1536xi8>, tensor<768x48xf32>, tensor<768x48xf32>)
        -> tensor<768x1536xf32>
    ```
  }];
  let arguments = (ins SSM_WeightTensor:$input, Optional<SSM_ScaleTensor>:$scale,
                       Optional<SSM_ScaleTensor>:$min,
                       DefaultValuedAttr<I64Attr, "32">:$block_size);
  let results = (outs SSM_F32Tensor:$result);
  let assemblyFormat = [{
    $input (`,` $scale^)? (`min` $min^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// ssm.quantize_activations
//===----------------------------------------------------------------------===//
def SSM_QuantizeActivationsOp : SSM_Op<"quantize_activations", [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "activations rounded as ggml's CPU matmuls quantise them before a quantised weight";
  let description = [{
    The f32 values that llama.cpp's CPU backend (ggml-cpu) multiplies a
    quantised or 16-bit weight by: before every matmul, ggml converts each
    row of the activations to the weight type's `vec_dot_type`
    (`type_traits_cpu` in ggml-cpu.c) and takes integer (or 16-bit) dot
    products with the weight's blocks. This op gives the values those
    converted rows stand for, along the last (reduction) dim K, so a matmul
    of its result with the weight's exact dequantisation computes ggml's
    product up to the order of f32 sums. A separate op rather than an
    attribute on the matmul: the reference interpreter, codegen and every
    pass see an ordinary f32 value, one quantisation serves the several
    matmuls that read the same activations (q, k, v; gate, up), and a graph
    without it keeps today's semantics (`ssm-import --activations f32`).

    `format` (per block of K; x, d, q in f32):

    * `q8_0` (weights Q4_0, Q5_0, Q8_0), blocks of 32: amax = max |x|,
      d = f16(amax / 127), q = round_half_even(x * (127 / amax)) (0 when
      amax is 0), y = q * d, and y = 0 wherever d is 0 (amax under about
      3.8e-6, including blocks so small that 127 / amax overflows: ggml's
      int8 conversion saturates the infinite q, which its d of 0 zeroes).
      This is ggml-cpu's x86 `quantize_row_q8_0`
      (AVX: the multiplier 127 / amax, `_mm256_round_ps` nearest-even);
      its portable `quantize_row_q8_0_ref` multiplies by 1 / d and rounds
      halves away from zero, which can differ by one step on rare values.
    * `q8_1` (weights Q4_1, Q5_1): the same values as `q8_0`. ggml also
      keeps s = f16(d * sum(q)) for the weights' offsets; that rounding of s
      is not modelled (the weights reach us dequantised), so files of these
      types match llama.cpp less closely.
    * `q8_K` (weights Q2_K .. Q6_K), blocks of 256: m = the x of largest |x|
      (the first one, sign kept), iscale = -127 / m, q = min(127,
      round_half_even(iscale * x)), d = 1 / iscale, y = q * d (0 for a block
      of zeros, and for one whose |m| < 127 / FLT_MAX: iscale is infinite,
      d 0); `quantize_row_q8_K_ref` (x86 uses it as is).
    * `f16` (F16 weights): y = f16(x), nearest even; `bf16` (BF16 weights):
      y = bf16(x), nearest even.

    `input` has rank 1 or more; for `q8_0` / `q8_1` / `q8_K` its last dim
    is a multiple of 32 / 256 (as ggml requires of a quantised matmul). The
    result has `input`'s type.

    ```mlir
    %xq = ssm.quantize_activations %x {format = "q8_0"} : tensor<16x1024xf32>
    %y = linalg.matmul_transpose_b ins(%xq, %w : tensor<16x1024xf32>, tensor<4096x1024xf32>) ...
    ```
  }];
  let arguments = (ins SSM_F32Tensor:$input, StrAttr:$format);
  let results = (outs SSM_F32Tensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}
