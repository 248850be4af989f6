// Reference ssm.wkv4: RWKV-4's WKV, stabilised with a running maximum exponent.
#ifndef SSM_REFERENCE_KERNELS_WKV4_H
#define SSM_REFERENCE_KERNELS_WKV4_H

#include "reference/Array.h"

#include <string>

namespace ssm::ref {

struct Wkv4Args {
  const Array *w = nullptr;  // (C): log decay (rwkv.cpp time_decay = -exp(decay))
  const Array *u = nullptr;  // (C): bonus of the current token (time_first)
  const Array *k = nullptr;  // (b, L, C)
  const Array *v = nullptr;  // (b, L, C)
  const Array *aa = nullptr; // optional (b, C), with bb and pp; else aa = bb = 0, pp = -1e30
  const Array *bb = nullptr;
  const Array *pp = nullptr;
};

/// wkv: (b, L, C); aaOut, bbOut, ppOut: (b, C), the state after the last
/// token. Per channel, the update of rwkv.cpp (rwkv_graph.inc,
/// rwkv_att_wkv) and BlinkDL/RWKV-LM RWKV-v4/src/model_run.py:
///   q = max(pp, u + k); e1 = exp(pp - q); e2 = exp(u + k - q)
///   wkv = (e1 aa + e2 v) / (e1 bb + e2)
///   q2 = max(pp + w, k); e1 = exp(pp + w - q2); e2 = exp(k - q2)
///   aa = e1 aa + e2 v; bb = e1 bb + e2; pp = q2
std::string wkv4(const Wkv4Args &args, Array &wkv, Array &aaOut, Array &bbOut, Array &ppOut);

} // namespace ssm::ref

#endif // SSM_REFERENCE_KERNELS_WKV4_H
