// Declarative definitions of the ssm passes (ssm-opt --help lists them).
#ifndef SSM_PASSES_TD
#define SSM_PASSES_TD

include "mlir/Pass/PassBase.td"

def SsmDecompose : Pass<"ssm-decompose", "mlir::func::FuncOp"> {
  let summary = "Rewrite composite ssm ops into their parts";
  let description = [{
    Rewrites `ssm.selective_scan` into `ssm.discretize` (zoh A, euler B) +
    `ssm.affine_scan` over time + a readout (`linalg.generic` contracting the
    state with C, the D skip and the silu(z) gate), all on a canonical
    (batch, L, dim, N) iteration space. The result materialises the full
    state trajectory: it is the form for analysis and for checking the fused
    kernel, not for speed. The reference interpreter gives the same result for
    both forms (test/lit/Passes/decompose-run.mlir).
  }];
  let dependentDialects = ["ssm::SSMDialect", "mlir::linalg::LinalgDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::math::MathDialect", "mlir::tensor::TensorDialect"];
}

def SsmLtiToConv : Pass<"ssm-lti-to-conv", "mlir::func::FuncOp"> {
  let summary = "Rewrite time-invariant scans into ssm.lti_kernel + ssm.lti_conv, choosing direct, FFT or the scan by cost";
  let description = [{
    When the coefficients of a scan do not depend on t, the state starts at
    zero and nothing resets or reverses it, the recurrence is a causal
    convolution with K_l = C Abar^l Bbar (DESIGN.md section 1). This pass
    checks each condition and rewrites:

    * `ssm.selective_scan` (channel_major; A, B and C of the constant form
      (dim, N); delta the `linalg.broadcast` of a (dim) vector over batch
      and time, or a splat constant; no h0 and no z; the final state
      unused) into `ssm.lti_kernel zoh, euler` (Mamba's discretisation:
      Abar = exp(delta A), Bbar = delta B; delta_bias and softplus applied to
      the (dim) step first) + `ssm.lti_conv` with D;
    * `ssm.affine_scan` along its last dim with `a` of extent 1 there (the
      same decay at every step), no h0, reset or reverse, the final state
      unused, into an `ssm.lti_kernel euler` with A = a - 1, C = 1, delta = 1
      (so Abar = a, Bbar = 1) and an `ssm.lti_conv` of b, every element of
      the other dims a channel.

    A selective scan with a per-token delta, B or C (Mamba) is left alone.
    The form is chosen by a cost model over the batch, sequence length,
    channels, state size and the target's vector width (passes/
    LtiCostModel.h: estimated nanoseconds of the scan, direct and FFT
    forms): the chosen convolution is the `algorithm` of the new
    `ssm.lti_conv`; keeping the scan is recorded on it as
    `ssm.lti_algorithm = "scan"`. A scan that already carries
    `ssm.lti_algorithm` ("direct", "fft" or "scan", e.g. from the tuner or
    by hand) gets that form; the `algorithm` option overrides both.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"host\"",
           "Halide target string the cost model assumes (host, x86-64-linux-avx2, ...)">,
    Option<"algorithm", "algorithm", "std::string", /*default=*/"\"auto\"",
           "auto (the cost model or the op's ssm.lti_algorithm), direct, fft or scan">
  ];
  let dependentDialects = ["ssm::SSMDialect", "mlir::linalg::LinalgDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::math::MathDialect", "mlir::tensor::TensorDialect"];
}

def SsmChunkTime : Pass<"ssm-chunk-time", "mlir::func::FuncOp"> {
  let summary = "Run long selective scans as a host loop over time chunks";
  let description = [{
    Sets `ssm.time_chunk = <chunk>` on each function whose only op is one
    `ssm.selective_scan` that returns its final state and whose sequence is
    longer than `chunk` steps. The runtime then calls the compiled kernel
    once per chunk of `chunk` time steps, carrying the state between calls,
    so that scratch memory stays O(channel tile x N x chunk) however long the
    input is (DESIGN.md section 5); the result does not change. `chunk` is
    rounded down to a multiple of 32 (at least 32): chunk views must start
    128-byte aligned.
  }];
  let options = [
    Option<"chunk", "chunk", "int64_t", /*default=*/"512", "time steps per kernel call">
  ];
  let dependentDialects = ["ssm::SSMDialect"];
}

def SsmChunkScan : Pass<"ssm-chunk-scan", "mlir::func::FuncOp"> {
  let summary = "Split affine scans into chunk-local scans, a carry scan over the chunks and a fix-up";
  let description = [{
    Rewrites every `ssm.affine_scan` (run `ssm-decompose` first for a
    `ssm.selective_scan`) into a parallel-in-time form, legal because the
    steps are affine maps that compose associatively with identity (1, 0):
    the scanned dim is padded to a multiple of `chunk` with identity steps
    (a = 1, b = 0, no reset) and viewed as (chunks, chunk); two chunk-local
    scans run from zero (the offsets hl) and from one with b = 0 (the
    decays since the chunk start, P); a scan over the chunks carries
    H_c = A_c H_{c-1} + B_c from h0 (A_c, B_c: each chunk's last P and hl);
    the fix-up is h = hl + P * H_{c-1}, and the padding is dropped. The
    decays are products from the chunk start, so they never exceed 1 for
    decays, nothing is divided by a cumulative decay and no exponent can
    overflow (per-step log decays of -10 over a chunk of 16 give 0, not
    inf or NaN). A reset (packed sequences) zeroes P from its step on, so no
    carry crosses it; reverse scans carry over the chunks in reverse. The
    result equals the sequential scan up to f32 rounding
    (test/lit/Passes/chunk-scan.mlir, against the reference interpreter).
    Use it when batch x channels cannot fill the device.
  }];
  let options = [
    Option<"chunk", "chunk", "int64_t", /*default=*/"64", "steps per chunk (>= 1)">
  ];
  let dependentDialects = ["ssm::SSMDialect", "mlir::linalg::LinalgDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::tensor::TensorDialect"];
}

def SsmFuse : Pass<"ssm-fuse", "mlir::func::FuncOp"> {
  let summary = "Choose the fusion groups: inline single-use elementwise producers into their consumer";
  let description = [{
    Marks with `ssm.schedule = #ssm.stage<compute = inline>` every op whose
    stage codegen can inline into its consumer: a stage without a reduction
    loop (not an ssm op or a matmul) whose result has exactly one user, and
    that user reads each element once (an elementwise `arith`/`math` op, a
    `tensor` reshape or slice, or a linalg op without reduction loops). The
    chains of such ops become one loop nest with no buffer between them.
    Reductions, matmuls and ssm kernels read their operands many times, so
    what feeds them keeps a buffer of its own (compute at root). Ops that
    already carry a schedule are left as they are, so a hand-written
    `compute = root` keeps a stage apart.

    Views (`tensor.extract_slice`, `expand_shape`, `collapse_shape`) of a
    materialised buffer (a function argument, a root stage, an ssm op's or
    a matmul's result, or a view of one) only re-index it, so they are
    inlined whatever reads them, ssm kernels and matmuls included, unless
    the function returns them: as root stages they would copy the buffer.
  }];
  let dependentDialects = ["ssm::SSMDialect"];
}

def SsmAssignSchedules : Pass<"ssm-assign-schedules", "mlir::func::FuncOp"> {
  let summary = "Attach a schedule to every op that codegen lowers, from target heuristics";
  let description = [{
    Sets the discardable attribute `ssm.schedule` on each op that has none,
    with every field the op accepts written out (dialect/SsmAttrs.td lists
    them, with their ranges):

    * ssm ops get a `#ssm.schedule`: `vector_width` 16 on AVX-512, 8 on
      AVX/AVX2, 4 on Arm NEON and SSE (for `host`, read from the CPU this
      runs on); `channel_tile` enough channels per task for at least two
      tasks per core on 2..16 cores, a multiple of the vector width, at most
      256; `parallel`; `unroll_state` when the state dim N is at most 32.
    * `linalg.matmul` and its transposed forms get a `#ssm.matmul`: matvec
      for M <= 4 with a transposed B, else register tiles that fit the
      target's vector registers (dialect/ScheduleDefaults.h).
    * every other op with a stage gets a `#ssm.stage` (compute at root, the
      vector width, parallel from 16K elements, tasks of 8K elements).

    GPU targets (`cuda`, `opencl`) get only the GPU fields: `gpu_threads`
    128 on ssm ops and 256 on stages, `algorithm = tiled, gpu_tile = 16` on
    matmuls (codegen/schedules/gpu/ applies them). An op that has no GPU
    schedule is an error naming it: a GPU target never gets CPU schedules.
    An unknown target string is an error. Ops that already carry a
    schedule keep it.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"host\"",
           "Halide target string, e.g. host, x86-64-linux-avx2, x86-64-linux-avx512_skylake, arm-64-linux, host-opencl, x86-64-linux-cuda-cuda_capability_80">
  ];
  // The schedules are ssm attributes, also on graphs with no ssm op (plain
  // linalg): without the dialect loaded, creating one faulted (SIGSEGV in
  // StageScheduleAttr::get from `ssm-opt -ssm-cpu-pipeline` on a matmul).
  let dependentDialects = ["ssm::SSMDialect"];
}

def SsmDistributePrefill : Pass<"ssm-distribute-prefill", "mlir::ModuleOp"> {
  let summary = "Split a model graph into per-layer functions whose recurrent scans also return their slice summary (distributed prefill)";
  let description = [{
    Prepares a model module (import/ModelBuilder.h: `@forward_sequence` and
    `@forward_step`, each a chain of one `func.call` per layer) for prefill
    across processes (runtime/distributed/, docs/distributed.md). A recurrent
    layer's step is an affine map of its state, h_t = Abar_t (.) h_{t-1} +
    b_t, and affine maps compose: a slice of the sequence run from a zero
    state reaches s0 = (its final state) and has the composed transition
    T = prod_t Abar_t, so from a true initial state h the slice ends at
    T (.) h + s0 (DESIGN.md section 1). The pass writes these public
    functions and removes the forward functions:

    * `@dist_embed(tokens) -> h`: the ops before the first layer;
    * `@dist_layer<i>(h, <layer i's states>, <its weights>) -> (h, <states>,
      <summaries>)` for each layer i, calling a copy of the layer's block
      function in which each recurrent scan whose final state is returned
      is cloned so that the clone's final state is T exactly as the kernels
      compute it: `ssm.selective_scan` (Mamba-1) and `ssm.ssd_scan`
      (Mamba-2; RWKV-5/6 with a bonus) with a zero input and the all-ones
      initial state (T broadcast to the state's shape, composed
      elementwise: `summary.<state>`); `ssm.wkv7` (RWKV-7) with v = 0 from
      an identity state per head (the product of the transitions, a dense
      N x N matrix multiplying the state on the right: `summary_matrix.<state>`);
      `ssm.wkv4` (RWKV-4) with k = -1e30, v = 0 from (aa, bb, pp) = (0, 1, 0)
      (the final pp is the slice's summed log decay, composed with the
      running maximum: `summary_wkv4aa/bb/pp.<state>`). The summaries
      follow the states; the function carries `ssm.halo_rows`, the rows of
      the previous slice its window states need (width - 1 of its widest
      `ssm.causal_conv1d`; 1 for a token shift, a state argument read as
      rows of the layer's width);
    * `@dist_layer_plain<i>`: the same without the summaries;
    * `@dist_step<i>(h, <states>, <weights>) -> (h, <states>)`: layer i's
      step form, used on the halo rows to rebuild the window states;
    * `@dist_head(h) -> logits`: the ops after the last layer.

    A block whose later token shift reads what its scan made (RWKV: the
    channel mix shifts the time mix's output, which depends on the
    recurrent state, so its window cannot be rebuilt from the block's
    input) is first cut in two block functions `<name>_a` / `<name>_b` at
    the residual stream after the time mix (the first value of its type
    that the rest reads alone, besides constants, zero fills and state
    arguments), in both forms, so each half is a layer. A per-token value a
    layer passes to later layers (RWKV-7's v_first) becomes a result and
    arguments named `carry<layer>_<result>`.

    Refused with an error naming the op: attention (its KV cache is not a
    fixed-size summary: a ring exchange of keys and values is not built),
    `ssm.gated_delta_rule` (its summary is not built), a scan with no
    initial state operand, a wkv7 state returned transposed, values passed
    between layers that are not per-token rows of an earlier layer, and
    ops between the layers.
  }];
  let dependentDialects = ["ssm::SSMDialect", "mlir::linalg::LinalgDialect",
                           "mlir::arith::ArithDialect", "mlir::tensor::TensorDialect"];
}

#endif // SSM_PASSES_TD
