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
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::arith::ArithDialect",
                           "mlir::math::MathDialect", "mlir::tensor::TensorDialect"];
}

def SsmAssignSchedules : Pass<"ssm-assign-schedules", "mlir::func::FuncOp"> {
  let summary = "Attach a #ssm.schedule to every ssm op from target heuristics";
  let description = [{
    Sets the discardable attribute `ssm.schedule` on each ssm op that has
    none, from the op's shapes and the target's vector width:

    * `vector_width`: 16 on AVX-512, 8 on AVX/AVX2, 4 on Arm NEON and SSE
      (for `host`, read from the CPU this runs on);
    * `channel_tile`: enough channels per task for at least two tasks per
      core on 2..16 cores, a multiple of the vector width, at most 256;
    * `time_chunk`: the whole sequence up to 512 steps (long sequences run
      as a host loop over 512-step chunks);
    * `unroll_state`: when the state dim N is at most 32.

    GPU targets (`cuda`, `opencl`) get `gpu_block = 128`. An unknown target
    string is an error. Ops that already carry a schedule keep it.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"host\"",
           "Halide target string, e.g. host, x86-64-linux-avx2, x86-64-linux-avx512_skylake, arm-64-linux, host-cuda">
  ];
  let dependentDialects = [];
}

#endif // SSM_PASSES_TD
