// ScheduledOpInterface for every ssm op: the #ssm.schedule fields each op
// reads, whether codegen has a GPU schedule for it, and the channels its
// parallel tasks split. An op of SsmOps.td without these definitions does
// not link (the undefined symbol names its class).
#include "dialect/SsmOps.h"

using namespace mlir;

namespace ssm {
namespace {

/// The field sets of #ssm.schedule (dialect/SsmAttrs.td documents each).
/// Scans with a state dim: every field; channel-tiled ops: no unroll_state;
/// the rest: no channel_tile either.
const llvm::StringRef kAllFields[] = {"vector_width", "channel_tile", "parallel", "unroll_state",
                                      "gpu_threads"};
const llvm::StringRef kTiledFields[] = {"vector_width", "channel_tile", "parallel",
                                        "gpu_threads"};
const llvm::StringRef kFlatFields[] = {"vector_width", "parallel", "gpu_threads"};
/// Scans with a chunked form: the flat fields and the chunk length.
const llvm::StringRef kChunkedFields[] = {"vector_width", "parallel", "chunk", "gpu_threads"};
/// ssm.attention: queries per task (channel_tile) and keys per tile (chunk).
const llvm::StringRef kAttentionFields[] = {"vector_width", "channel_tile", "parallel", "chunk",
                                            "gpu_threads"};

/// Dim `dim` of `v` (negative: from the end); 0 when dynamic.
int64_t staticDim(Value v, int64_t dim) {
  auto t = cast<RankedTensorType>(v.getType());
  int64_t d = t.getDimSize(dim < 0 ? t.getRank() + dim : dim);
  return ShapedType::isDynamic(d) ? 0 : d;
}

} // namespace

// ---- ssm.discretize ----
ArrayRef<StringRef> DiscretizeOp::getScheduleFields() { return kFlatFields; }
bool DiscretizeOp::hasGpuSchedule() { return true; }
int64_t DiscretizeOp::getScheduleChannels() { return 0; }
int64_t DiscretizeOp::getScheduleStateSize() { return 0; }

// ---- ssm.affine_scan: the lines of the innermost non-scanned dim ----
ArrayRef<StringRef> AffineScanOp::getScheduleFields() { return kTiledFields; }
bool AffineScanOp::hasGpuSchedule() { return true; }
int64_t AffineScanOp::getScheduleChannels() {
  auto t = cast<RankedTensorType>(getB().getType());
  int64_t rank = t.getRank();
  int64_t dim = getDim() < 0 ? getDim() + rank : getDim();
  return staticDim(getB(), dim == rank - 1 && rank > 1 ? rank - 2 : rank - 1);
}
int64_t AffineScanOp::getScheduleStateSize() { return 0; }

// ---- ssm.selective_scan: d_inner channels ----
ArrayRef<StringRef> SelectiveScanOp::getScheduleFields() { return kAllFields; }
bool SelectiveScanOp::hasGpuSchedule() { return true; }
int64_t SelectiveScanOp::getScheduleChannels() {
  return staticDim(getU(), getLayout() == Layout::time_major ? 2 : 1);
}
int64_t SelectiveScanOp::getScheduleStateSize() { return staticDim(getA(), 1); }

// ---- ssm.selective_update: channels of the last dim of x ----
ArrayRef<StringRef> SelectiveUpdateOp::getScheduleFields() { return kAllFields; }
bool SelectiveUpdateOp::hasGpuSchedule() { return true; }
int64_t SelectiveUpdateOp::getScheduleChannels() { return staticDim(getX(), -1); }
int64_t SelectiveUpdateOp::getScheduleStateSize() { return staticDim(getState(), -1); }

// ---- ssm.lti_kernel ----
ArrayRef<StringRef> LtiKernelOp::getScheduleFields() { return kFlatFields; }
bool LtiKernelOp::hasGpuSchedule() { return true; }
int64_t LtiKernelOp::getScheduleChannels() { return 0; }
int64_t LtiKernelOp::getScheduleStateSize() { return 0; }

// ---- ssm.lti_conv ----
ArrayRef<StringRef> LtiConvOp::getScheduleFields() { return kFlatFields; }
bool LtiConvOp::hasGpuSchedule() { return true; }
int64_t LtiConvOp::getScheduleChannels() { return 0; }
int64_t LtiConvOp::getScheduleStateSize() { return 0; }

// ---- ssm.causal_conv1d: (batch, dim, L) channels ----
ArrayRef<StringRef> CausalConv1dOp::getScheduleFields() { return kTiledFields; }
bool CausalConv1dOp::hasGpuSchedule() { return true; }
int64_t CausalConv1dOp::getScheduleChannels() { return staticDim(getX(), 1); }
int64_t CausalConv1dOp::getScheduleStateSize() { return 0; }

// ---- ssm.ssd_scan ----
ArrayRef<StringRef> SsdScanOp::getScheduleFields() { return kFlatFields; }
bool SsdScanOp::hasGpuSchedule() { return true; }
int64_t SsdScanOp::getScheduleChannels() { return 0; }
int64_t SsdScanOp::getScheduleStateSize() { return 0; }

// ---- ssm.wkv4 ----
ArrayRef<StringRef> Wkv4Op::getScheduleFields() { return kFlatFields; }
bool Wkv4Op::hasGpuSchedule() { return true; }
int64_t Wkv4Op::getScheduleChannels() { return 0; }
int64_t Wkv4Op::getScheduleStateSize() { return 0; }

// ---- ssm.wkv7: chunk picks the form (0 token by token, else the chunked WY form) ----
ArrayRef<StringRef> Wkv7Op::getScheduleFields() { return kChunkedFields; }
bool Wkv7Op::hasGpuSchedule() { return true; }
int64_t Wkv7Op::getScheduleChannels() { return 0; }
int64_t Wkv7Op::getScheduleStateSize() { return 0; }

// ---- ssm.gated_delta_rule: tasks are (value head, batch) pairs; chunk picks the form ----
ArrayRef<StringRef> GatedDeltaRuleOp::getScheduleFields() { return kChunkedFields; }
bool GatedDeltaRuleOp::hasGpuSchedule() { return true; }
int64_t GatedDeltaRuleOp::getScheduleChannels() { return 0; }
int64_t GatedDeltaRuleOp::getScheduleStateSize() { return 0; }

// ---- ssm.rope: a map over (batch, L, H, D) ----
ArrayRef<StringRef> RopeOp::getScheduleFields() { return kFlatFields; }
bool RopeOp::hasGpuSchedule() { return true; }
int64_t RopeOp::getScheduleChannels() { return 0; }
int64_t RopeOp::getScheduleStateSize() { return 0; }

// ---- ssm.attention: channel_tile is the queries per task, chunk the keys per tile ----
ArrayRef<StringRef> AttentionOp::getScheduleFields() { return kAttentionFields; }
bool AttentionOp::hasGpuSchedule() { return true; }
int64_t AttentionOp::getScheduleChannels() { return staticDim(getQ(), 1); }
int64_t AttentionOp::getScheduleStateSize() { return 0; }

// ---- ssm.dequantize: a view of a weight, read inside its users' loops ----
ArrayRef<StringRef> DequantizeOp::getScheduleFields() { return {}; }
bool DequantizeOp::hasGpuSchedule() { return true; }
int64_t DequantizeOp::getScheduleChannels() { return 0; }
int64_t DequantizeOp::getScheduleStateSize() { return 0; }

// ---- ssm.quantize_activations: generic stages (codegen/lowerings/Ssm.cpp), no #ssm.schedule ----
ArrayRef<StringRef> QuantizeActivationsOp::getScheduleFields() { return {}; }
bool QuantizeActivationsOp::hasGpuSchedule() { return true; }
int64_t QuantizeActivationsOp::getScheduleChannels() { return 0; }
int64_t QuantizeActivationsOp::getScheduleStateSize() { return 0; }

} // namespace ssm
