// GPU schedule of the linalg matmuls: one thread per output element of a block tile, a private accumulator.
#include "codegen/schedules/gpu/GpuSchedules.h"

#include <algorithm>

namespace ssm::codegen {

using namespace Halide;

namespace {
/// Block shape for an (m x n) output: gpu_tile x gpu_tile threads, with
/// fewer rows (and as many more columns, up to 1024 threads) when m is
/// smaller than the tile, so that a decode step (m = 1) keeps its threads busy.
std::pair<int, int> blockShape(int m, int tile) {
  int threads = tile * tile;
  int rows = std::max(1, std::min(tile, m));
  int cols = std::max(1, std::min(1024, threads / rows));
  return {cols, rows};
}
} // namespace

void scheduleMatmulGpu(MatmulStages &mm, const MatmulSchedule &s, const Target &) {
  auto [tx, ty] = blockShape(mm.m, static_cast<int>(std::max<int64_t>(1, s.gpuTile)));
  Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
  mm.out.compute_root().gpu_tile(x, y, xo, yo, xi, yi, tx, ty, TailStrategy::GuardWithIf);
  // The accumulator of one output element lives in its thread; the operand
  // layouts (aRows, bCols) are index swaps, inlined into the k loop.
  mm.prod.compute_at(mm.out, xi);
}

void scheduleDotGpu(DotStages &d, const MatmulSchedule &s, const Target &) {
  auto [tx, ty] = blockShape(d.m, static_cast<int>(std::max<int64_t>(1, s.gpuTile)));
  Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
  d.out.compute_root().gpu_tile(x, y, xo, yo, xi, yi, tx, ty, TailStrategy::GuardWithIf);
  // The partial sums of one output element (vector_width lanes) and their
  // halving sums per thread.
  d.part.compute_at(d.out, xi);
  for (Halide::Func &h : d.halves)
    h.compute_at(d.out, xi);
}

} // namespace ssm::codegen
