// Reference ssm.selective_scan: the Mamba-1 selective scan with fused D skip and silu(z) gate.
#ifndef SSM_REFERENCE_KERNELS_SELECTIVESCAN_H
#define SSM_REFERENCE_KERNELS_SELECTIVESCAN_H

#include "dialect/SsmEnums.h"
#include "reference/Array.h"

#include <string>

namespace ssm::ref {

/// Where time sits in u, delta, z, y and the per-token B/C.
struct SelectiveScanArgs {
  const Array *u = nullptr;     // (batch, dim, L) | (batch, L, dim)
  const Array *delta = nullptr; // like u
  const Array *A = nullptr;     // (dim, N), real
  /// B and C, each independently:
  ///   constant (dim, N);
  ///   per token ChannelMajor (batch, N, L) / TimeMajor (batch, L, N);
  ///   grouped   ChannelMajor (batch, G, N, L) / TimeMajor (batch, L, G, N),
  ///   channel d using group d / (dim / G).
  const Array *B = nullptr;
  const Array *C = nullptr;
  const Array *D = nullptr;         // optional (dim)
  const Array *z = nullptr;         // optional, like u
  const Array *deltaBias = nullptr; // optional (dim)
  const Array *h0 = nullptr;        // optional (batch, dim, N); zeros if absent
  bool deltaSoftplus = false;
  Layout layout = Layout::channel_major;
};

/// y: like u; hLast: (batch, dim, N).
/// Follows state-spaces/mamba mamba_ssm/ops/selective_scan_interface.py
/// selective_scan_ref (h0 is our extension, used for chunked prefill):
///   delta = softplus?(delta + delta_bias)
///   h_t   = exp(delta_t A) * h_{t-1} + delta_t B_t u_t      (zoh A, euler B)
///   y_t   = (sum_n h_t C_t + D u_t) * silu(z_t)
std::string selectiveScan(const SelectiveScanArgs &args, Array &y, Array &hLast);

} // namespace ssm::ref

#endif // SSM_REFERENCE_KERNELS_SELECTIVESCAN_H
