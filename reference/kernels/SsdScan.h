// Reference ssm.ssd_scan: outer-product state scan of Mamba-2 SSD and RWKV-5 (with bonus).
#ifndef SSM_REFERENCE_KERNELS_SSDSCAN_H
#define SSM_REFERENCE_KERNELS_SSDSCAN_H

#include "reference/Array.h"

#include <string>

namespace ssm::ref {

struct SsdScanArgs {
  const Array *X = nullptr; // (b, L, h, p); Mamba-2: x * dt; RWKV: v
  /// Log decay per step: (b, L, h) one scalar per head (Mamba-2: dt * A_head),
  /// or (b, L, h, n) one per key dimension (RWKV-5/6, gated linear attention).
  const Array *A = nullptr;
  const Array *B = nullptr; // (b, L, g, n), g divides h, head uses group head / (h/g); RWKV: k
  const Array *C = nullptr; // like B; RWKV: r
  const Array *initialState = nullptr; // optional (b, h, p, n); zeros if absent
  const Array *bonus = nullptr;        // optional (h, n): RWKV's u
};

/// Y: (b, L, h, p); finalState: (b, h, p, n). State S is p x n per head.
/// Without bonus (state-spaces/mamba mamba_ssm/modules/ssd_minimal.py
/// ssd_minimal_discrete, whose chunked result equals this recurrence):
///   S_t = exp(A_t) S_{t-1} + X_t B_t^T,   Y_t[p] = sum_n S_t[p,n] C_t[n]
/// With bonus (RWKV-5, BlinkDL/RWKV-LM RWKV-v5/cuda/wkv5_cuda.cu kernel_forward,
/// w = exp(A) per key dimension) the output reads the previous state and
/// weights the current token by u:
///   Y_t[p] = sum_n C_t[n] (S_{t-1}[p,n] + u[n] B_t[n] X_t[p]), then the update.
std::string ssdScan(const SsdScanArgs &args, Array &Y, Array &finalState);

} // namespace ssm::ref

#endif // SSM_REFERENCE_KERNELS_SSDSCAN_H
