// Halide kernel of ssm.wkv4: RWKV-4's stabilised WKV as an RDom scan along time.
#ifndef SSM_CODEGEN_KERNELS_WKV4KERNEL_H
#define SSM_CODEGEN_KERNELS_WKV4KERNEL_H

#include "codegen/kernels/Kernel.h"
#include "codegen/kernels/KernelResult.h"

#include <optional>

namespace ssm::codegen {

struct Wkv4KernelInputs {
  TensorFunc w; // (C): log decay (negative)
  TensorFunc u; // (C): bonus
  TensorFunc k; // (batch, L, C); L may be symbolic
  TensorFunc v; // (batch, L, C)
  /// The state in: (batch, C) each, all three or none (then aa = bb = 0, pp = -1e30).
  std::optional<TensorFunc> aa, bb, pp;
};

/// outputs = {wkv (batch, L, C), aa_out, bb_out, pp_out (batch, C)}, the
/// semantics of reference/kernels/Wkv4.h in f32 (exp: accurateExp, which
/// clamps its argument to [-87.33, 88.72], so the initial pp = -1e30 gives
/// e^-87.33 times a zero aa and bb instead of 0: the same result).
///
/// The state trajectory (aa, bb, pp before each token; a Tuple Func of
/// (C, L + 1, batch)) is one RDom update along time, computed at root: the
/// time loop runs inside vectors of channels (vectorWidth lanes), parallel
/// over channel vectors x batch. wkv is then elementwise in (c, t, b):
/// vectorised along channels, parallel over time.
struct Wkv4Kernel {
  KernelResult result;
  Halide::Func state;          // (c, t, b) Tuple: pure undef, update 0 = state in, update 1 = scan
  Halide::Func wkv;            // (c, t, b)
  Halide::Func aa, bb, pp;     // (c, b): the state after the last token
  Halide::RDom time;
};
Wkv4Kernel buildWkv4(const Wkv4KernelInputs &in);

} // namespace ssm::codegen

#endif
