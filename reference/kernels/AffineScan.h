// Reference ssm.affine_scan: h_t = a_t * h_{t-1} + b_t along one dimension.
#ifndef SSM_REFERENCE_KERNELS_AFFINESCAN_H
#define SSM_REFERENCE_KERNELS_AFFINESCAN_H

#include "reference/Array.h"

#include <string>

namespace ssm::ref {

struct AffineScanArgs {
  /// Same rank as b; each dimension equal to b's or 1 (broadcast), so a
  /// time-invariant or channel-shared decay need not be materialised.
  const Array *a = nullptr;
  const Array *b = nullptr;     // any shape S, scanned along `dim`
  const Array *h0 = nullptr;    // optional: S without `dim`; zeros if absent
  const Array *reset = nullptr; // optional: S; nonzero starts a new sequence
  int64_t dim = 0;              // negative counts from the end, as in NumPy
  bool reverse = false;         // scan from the last index towards 0
};

/// h: S; hLast: S without `dim`, the state after the last step in scan order
/// (index 0 when reversed).
///
/// At a step whose reset is nonzero the previous state is taken as 0 (not h0),
/// so packed sequences do not leak into each other: h_t = b_t there.
/// There is no single upstream function: this is the recurrence that
/// state-spaces/mamba selective_scan_ref and alxndrTL/mamba.py mambapy/pscan.py
/// compute once Abar and Bbar*x are formed.
std::string affineScan(const AffineScanArgs &args, Array &h, Array &hLast);

} // namespace ssm::ref

#endif // SSM_REFERENCE_KERNELS_AFFINESCAN_H
