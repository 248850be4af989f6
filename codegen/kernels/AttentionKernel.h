// Halide kernel of ssm.attention: causal grouped-query attention over a KV cache, by tiles of queries.
#ifndef SSM_CODEGEN_KERNELS_ATTENTIONKERNEL_H
#define SSM_CODEGEN_KERNELS_ATTENTIONKERNEL_H

#include "codegen/kernels/Kernel.h"
#include "codegen/kernels/KernelResult.h"

namespace ssm::codegen {

struct AttentionKernelInputs {
  TensorFunc q, k, v;         // (batch, L, H, D), (batch, L, Hkv, D), (batch, L, Hkv, Dv)
  TensorFunc kCache, vCache;  // (batch, C, Hkv, D), (batch, C, Hkv, Dv); C constant
  TensorFunc position;        // (batch) i32
  double scale = 1.0;
  int64_t window = 0;
};

/// outputs = {out (batch, L, H, Dv), k_cache_new, v_cache_new}: the
/// semantics of reference/kernels/Attention.h in f32. The stages:
///
///   kNew, vNew (the results 1, 2): the caches with rows p .. p+L-1 replaced
///   score(j, h, i, b) = scale q_i . K_j over the D channels (K_j read from k
///                       for this call's rows, from k_cache for the others:
///                       nothing in the kernel reads kNew or vNew, so a
///                       runtime may ask for their new rows alone, in place)
///   rowMax(h, i, b)   = max over the readable rows j (RDom `keys` with
///                       a where-clause: first(i) <= j <= p + i)
///   weight(j, h, i, b) = exp(score - rowMax)
///   rowSum(h, i, b)   = sum of the weights;  acc(dv, h, i, b) = sum weight V_j
///   out = acc / rowSum
///
/// The score matrix is never formed for the whole call: the schedule
/// computes score and weight per tile of queries of one head
/// (scheduleAttention, codegen/schedules/Schedules.h). The position is
/// clamped to 0 .. C - L (the runtime refuses longer streams first).
struct AttentionKernel {
  KernelResult result;
  Halide::Func kNew, vNew;      // (d, g, c, b)
  Halide::Func score, weight;   // (j, h, i, b)
  Halide::Func rowMax, rowSum;  // (h, i, b)
  Halide::Func acc;             // (dv, h, i, b)
  Halide::Func out;             // (dv, h, i, b)
  Halide::RDom keys;            // the readable rows of each query
  Halide::RDom channels;        // the D channels of the dot products
  int capacity = 0; // C, or 0 where the runtime passes the readable rows (symbolic)
  int heads = 0, kvHeads = 0, headDim = 0, valueDim = 0;
};
AttentionKernel buildAttention(const AttentionKernelInputs &in);

} // namespace ssm::codegen

#endif // SSM_CODEGEN_KERNELS_ATTENTIONKERNEL_H
