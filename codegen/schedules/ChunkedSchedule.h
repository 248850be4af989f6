// Schedule pieces shared by the chunked (WY form) scans: ssm.gated_delta_rule
// and ssm.wkv7 (defined in GatedDeltaRuleSchedule.cpp).
#ifndef SSM_CODEGEN_SCHEDULES_CHUNKEDSCHEDULE_H
#define SSM_CODEGEN_SCHEDULES_CHUNKEDSCHEDULE_H

#include "codegen/kernels/ChunkedPass.h"
#include "codegen/kernels/Kernel.h"

#include <vector>

namespace ssm::codegen {

/// Update `update` of `f` as a reduction with vector accumulators: vectors
/// of pure var 0 innermost, then the RVars `r` (innermost first); parallel
/// over pure var `nPos` when `s.parallel`. rowPos >= 0: `rows` values of
/// that pure var (rowPos 0: `rows` vectors of var 0) unrolled between the
/// vector and the RVars, independent accumulators sharing the vector read.
void chunkReductionUpdate(Halide::Func f, int update, const std::vector<Halide::RVar> &r, int nPos,
                          const CpuSchedule &s, int rowPos = -1, int rows = 4);

/// `consumer` (a wrapper of the reduction `red` over `rv`, extents ext0 x
/// ext1 along its first two vars) computed at `chunk` in register tiles of
/// 1-2 vectors by 4 rows, `red` computed per tile with its RVars outside
/// the tile (its accumulators stay in registers). Extents that do not
/// divide fall back to chunkReductionUpdate's memory accumulators.
void chunkTiledReduction(Halide::Func consumer, Halide::Func red,
                         const std::vector<Halide::RVar> &rv, int ext0, int ext1,
                         Halide::LoopLevel chunk, const CpuSchedule &s);

/// The pass (ChunkedPass.h) at root: each step a register tile of R rows by
/// up to 4 vectors of value columns (the rest of the columns a loop between
/// the blocks and the steps, so a tile's coefficients are not hoisted out
/// of it), the blocks inside the steps (a step's state or work rows stay in
/// L1 while every block reads them), the three phases unrolled; one task per
/// (head, stream) when `s.parallel`. Returns the chunk's loop level, where
/// the chunk-local stages go.
Halide::LoopLevel scheduleChunkedPass(ChunkedPass &p, const CpuSchedule &s);

} // namespace ssm::codegen

#endif // SSM_CODEGEN_SCHEDULES_CHUNKEDSCHEDULE_H
