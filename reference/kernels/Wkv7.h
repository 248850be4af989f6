// Reference ssm.wkv7: RWKV-7's generalised delta rule, sequential in f64.
#ifndef SSM_REFERENCE_KERNELS_WKV7_H
#define SSM_REFERENCE_KERNELS_WKV7_H

#include "reference/Array.h"

#include <string>

namespace ssm::ref {

struct Wkv7Args {
  const Array *r = nullptr; // (b, L, h, n): receptance
  const Array *w = nullptr; // (b, L, h, n): log decay per key (the decay factor is exp(w))
  const Array *k = nullptr; // (b, L, h, n)
  const Array *v = nullptr; // (b, L, h, n)
  const Array *a = nullptr; // (b, L, h, n): RWKV-7 passes -kk
  const Array *b = nullptr; // (b, L, h, n): RWKV-7 passes kk * iclr
  const Array *initialState = nullptr; // optional (b, h, n, n) [value i][key j]; zeros if absent
};

/// y: (b, L, h, n); finalState: (b, h, n, n). Per head, for t = 0 .. L-1
/// (BlinkDL/RWKV-LM RWKV-v7/rwkv_v7_demo.py, ggml's rwkv_wkv7 as rwkv.cpp
/// calls it):
///   sa_i = sum_j S[i, j] a_t[j]
///   S[i, j] = S[i, j] exp(w_t[j]) + sa_i b_t[j] + v_t[i] k_t[j]
///   y_t[i] = sum_j S[i, j] r_t[j]
/// Errors name the operand whose shape is wrong.
std::string wkv7(const Wkv7Args &args, Array &y, Array &finalState);

} // namespace ssm::ref

#endif // SSM_REFERENCE_KERNELS_WKV7_H
