// The schedule functions: one per op kind, applying its schedule attribute for a target.
//
// Each takes the stages its kernel builder (codegen/kernels/) or lowering
// (codegen/lowerings/) defined, the op's schedule with every field resolved
// (CpuSchedule, MatmulSchedule, StageSchedule: the attribute's fields or the
// target's defaults, dialect/SsmAttrs.td), and the Halide target. A schedule
// function branches on targetFamily(target): x86 and Arm CPUs here, GPU
// targets (cuda, opencl) in codegen/schedules/gpu/GpuSchedules.h, to which
// each function dispatches first; a CPU branch reached with a GPU target
// throws Halide::CompileError naming the op (requireCpuSchedule), so a GPU
// target never gets a CPU schedule silently. Schedule functions never
// change what is computed, only how: every legal schedule gives the same
// result up to f32 rounding (test/schedules checks a grid of them against
// the reference interpreter).
#ifndef SSM_CODEGEN_SCHEDULES_SCHEDULES_H
#define SSM_CODEGEN_SCHEDULES_SCHEDULES_H

#include "dialect/ScheduleDefaults.h"
#include "codegen/kernels/AffineScanKernel.h"
#include "codegen/kernels/AttentionKernel.h"
#include "codegen/kernels/CausalConv1dKernel.h"
#include "codegen/kernels/DiscretizeKernel.h"
#include "codegen/kernels/GatedDeltaRuleKernel.h"
#include "codegen/kernels/LtiConvKernel.h"
#include "codegen/kernels/LtiKernel.h"
#include "codegen/kernels/SelectiveScanKernel.h"
#include "codegen/kernels/SelectiveUpdateKernel.h"
#include "codegen/kernels/SsdScanKernel.h"
#include "codegen/kernels/Wkv4Kernel.h"
#include "codegen/kernels/RopeKernel.h"

namespace ssm::codegen {

void scheduleAffineScan(AffineScanKernel &k, const CpuSchedule &s, const Halide::Target &t);
void scheduleCausalConv1d(CausalConv1dKernel &k, const CpuSchedule &s, const Halide::Target &t);
void scheduleDiscretize(DiscretizeKernel &k, const CpuSchedule &s, const Halide::Target &t);
void scheduleLtiConv(LtiConvKernel &k, const CpuSchedule &s, const Halide::Target &t);
void scheduleLtiKernel(LtiKernelKernel &k, const CpuSchedule &s, const Halide::Target &t);
void scheduleSelectiveScan(SelectiveScanKernel &k, const CpuSchedule &s, const Halide::Target &t);
void scheduleSelectiveUpdate(SelectiveUpdateKernel &k, const CpuSchedule &s,
                             const Halide::Target &t);
void scheduleSsdScan(SsdScanKernel &k, const CpuSchedule &s, const Halide::Target &t);
void scheduleWkv4(Wkv4Kernel &k, const CpuSchedule &s, const Halide::Target &t);
/// The angle table at root; the rotation vectorised along D, tasks over
/// (token, stream).
void scheduleRope(RopeKernel &k, const CpuSchedule &s, const Halide::Target &t);
/// Tasks of channelTile queries x one head x one stream; each task keeps its
/// score and weight rows (never the call's L x C matrix), vectorised along
/// the keys (scores) and the value channels (the weighted sum).
void scheduleAttention(AttentionKernel &k, const CpuSchedule &s, const Halide::Target &t);
/// The scan at root: its time loop runs inside vectors of value columns j
/// (vectorWidth lanes; columns are independent), parallel over value heads
/// x batch when `s.parallel`; the decay factors and the first token's k . S
/// at root, vectorised along their fastest dim; the output and the final
/// state vectorised (the translator computes them at root).
void scheduleGatedDeltaRule(GatedDeltaRuleKernel &k, const CpuSchedule &s,
                            const Halide::Target &t);

/// The time block of the lti_conv algorithm for schedule `s` (vector width x 4).
int ltiConvTimeBlock(const CpuSchedule &s);

// ---- Matmuls (linalg.matmul and its transposed forms) -------------------

/// #ssm.matmul resolved for one op and target (dialect/SsmAttrs.td): the
/// struct ssm-assign-schedules fills (dialect/ScheduleDefaults.h).
using MatmulSchedule = ssm::MatmulParams;

/// The defaults of #ssm.matmul for an (M, N, K) product on target `t`, for
/// the algorithm `dot` (absent: the default algorithm); see
/// dialect/ScheduleDefaults.h, shared with ssm-assign-schedules.
MatmulSchedule defaultMatmulSchedule(int64_t m, int64_t n, int64_t k, bool transposeB,
                                     int vectorWidth, const Halide::Target &t,
                                     std::optional<bool> dot = std::nullopt);

/// The stages of a tiled matmul: out(x = column, y = row) reads the
/// accumulator prod, whose update runs the reduction `r` over aRows(k, i)
/// and bCols(j, k).
struct MatmulStages {
  Halide::Func out, prod, aRows, bCols;
  Halide::RDom r;
  int m = 0, n = 0, k = 0;
};
void scheduleMatmul(MatmulStages &mm, const MatmulSchedule &s, const Halide::Target &t);

/// The stages of a dot-form matmul (C = A B^T, both read along K): out(x,
/// y) sums the vw partial sums part(lane, x, y) (update over `kBlocks`
/// blocks of K when K >= vw), folded in halves by `halves` (vw/2, vw/4, ..
/// 2 lanes) before the last two are added. For a q8 weight, blockScale(b,
/// x) is the f32 scale of block b of weight row x (`scaleBlocks` blocks per
/// row; undefined otherwise), read once per block by part's update.
struct DotStages {
  Halide::Func out, part;
  std::vector<Halide::Func> halves;
  Halide::RDom r; // the K blocks (defined when hasBlocks)
  bool hasBlocks = false;
  int m = 0, n = 0, k = 0;
  Halide::Func blockScale;
  int scaleBlocks = 0;
  Halide::Func weight; // the (N, K) weight as part reads it (copied per K block when blocked)
  // A weight with a min per block (Q4_K): the mins (block, weight row) and
  // A's per-lane sums of each block (lane, block, row of A); else undefined.
  Halide::Func blockMin, blockXSum;
  // The integer matvec (a q8 weight times ssm.quantize_activations' q8
  // blocks, M = 1): each block's int32 dot (lane, weight row, row of A,
  // block) of A's Int(16) codes (k, row of A) and the weight's int8; A's
  // block scales (block, row of A) and code sums per weight block (with a
  // min); else undefined.
  Halide::Func blockIntSum, actCodes, actScales, actCodeSums;
};
void scheduleDot(DotStages &d, const MatmulSchedule &s, const Halide::Target &t);

// ---- Every other stage (elementwise, generic, reductions, tensor ops) ----

/// #ssm.stage resolved (dialect/SsmAttrs.td).
struct StageSchedule {
  bool inlined = false;
  int vectorWidth = 8;
  bool parallel = true;
  int64_t taskElements = 1 << 13;
  int gpuThreads = 256; // GPU targets only: threads per block
};

/// compute_root (or inline), vectorise the contiguous dim, parallel tasks of
/// the outermost. `shape` holds the stage's extents in MLIR order.
void scheduleStage(Halide::Func f, const std::vector<Halide::Expr> &shape,
                   const StageSchedule &s, const Halide::Target &t);

} // namespace ssm::codegen

// The GPU branches the schedule functions above dispatch to.
#include "codegen/schedules/gpu/GpuSchedules.h"

#endif
