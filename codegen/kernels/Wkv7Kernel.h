// Halide kernel of ssm.wkv7: RWKV-7's delta-rule state scan, one row of the state per lane.
#ifndef SSM_CODEGEN_KERNELS_WKV7KERNEL_H
#define SSM_CODEGEN_KERNELS_WKV7KERNEL_H

#include "codegen/kernels/Kernel.h"
#include "codegen/kernels/KernelResult.h"

#include <optional>

namespace ssm::codegen {

struct Wkv7KernelInputs {
  /// (batch, L, H, N) each: receptance, log decay, key, value, a, b; L may be symbolic.
  TensorFunc r, w, k, v, a, b;
  /// (batch, H, N, N) [value i][key j]; zeros when absent.
  std::optional<TensorFunc> initialState;
};

/// outputs (`result`) = {y (batch, L, H, N), final_state (batch, H, N, N)}:
/// the semantics of reference/kernels/Wkv7.h in f32 (exp: accurateExp). N
/// must be a constant extent. The builder defines Funcs only; scheduleWkv7
/// (codegen/schedules/Wkv7Schedule.h) schedules them.
///
/// The rows i of a head's state are independent (S[i, :] <- S[i, :] (.)
/// exp(w) + (S[i, :] . a) b + v_i k), so `scan` holds, per value index i,
/// N state slots, then one slot per token for y. Its update walks (x, t)
/// with x = 0..N: for x < N it updates S[i, x] and extends two running
/// sums along x, S_t[i, :] . a_{t+1} (next step's rank-one coefficient,
/// complete at x = N-1) and S_t[i, :] . r_t (y_t[i]); at x = N it stores
/// y_t[i] in slot N + 1 + t. One pass over the state per token, vectors
/// along i, no (L, N, N) trajectory.
struct Wkv7Kernel {
  KernelResult result;
  Halide::Func decay;      // (key j, h, t, batch): exp(w)
  Halide::Func sa0;        // (value i, h, batch): S_0 a_0, the first step's rank-one term
  Halide::Func scan;       // (value i, slot, h, batch) Tuple (S, running S.a_next, running S.r)
  Halide::RDom steps;      // (slot x in 0..N, time t) of scan's update
  Halide::Func y;          // (i, h, t, batch)
  Halide::Func finalState; // (key j, value i, h, batch)
};
Wkv7Kernel buildWkv7(const Wkv7KernelInputs &in);

} // namespace ssm::codegen

#endif // SSM_CODEGEN_KERNELS_WKV7KERNEL_H
