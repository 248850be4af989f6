// Halide kernel of ssm.rope: rotary position embedding from a per-call angle table.
#ifndef SSM_CODEGEN_KERNELS_ROPEKERNEL_H
#define SSM_CODEGEN_KERNELS_ROPEKERNEL_H

#include "codegen/kernels/Kernel.h"
#include "codegen/kernels/KernelResult.h"
#include "dialect/SsmEnums.h"

namespace ssm::codegen {

struct RopeKernelInputs {
  TensorFunc x;        // (batch, L, H, D) f32; L may be symbolic
  TensorFunc position; // (batch) i32
  double theta = 10000.0;
  int rotaryDim = 0; // R, even, <= D
  RopeStyle style = RopeStyle::normal;
};

/// outputs = {out (batch, L, H, D)}: the semantics of reference/kernels/Rope.h.
/// `table` holds (cos a_i, sin a_i) per (pair i, token t, batch b) in f32,
/// computed from an f64 angle reduced modulo 2 pi (so large positions keep
/// their precision); `out` reads x and its pair partner. The builder
/// defines Funcs only; scheduleRope (codegen/schedules/Schedules.h)
/// schedules them.
struct RopeKernel {
  KernelResult result;
  Halide::Func table; // (i, t, b) Tuple(cos, sin), f32
  Halide::Func out;   // (d, h, t, b)
};
RopeKernel buildRope(const RopeKernelInputs &in);

} // namespace ssm::codegen

#endif // SSM_CODEGEN_KERNELS_ROPEKERNEL_H
