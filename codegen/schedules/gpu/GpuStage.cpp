// GPU schedule of stages: every definition's pure vars fused and tiled into blocks of threads.
#include "codegen/schedules/gpu/GpuSchedules.h"

#include <algorithm>

namespace ssm::codegen {

using namespace Halide;

namespace {

/// The pure vars that definition `stage` (-1: the pure one) of `f` keeps at
/// their own argument position, innermost first.
std::vector<Var> laneVars(const Func &f, int stage) {
  std::vector<Var> pure = f.args();
  if (stage < 0)
    return pure;
  std::vector<Expr> args = f.update_args(stage);
  std::vector<Var> out;
  for (size_t i = 0; i < pure.size() && i < args.size(); ++i)
    if (const auto *v = args[i].as<Internal::Variable>(); v && v->name == pure[i].name())
      out.push_back(pure[i]);
  return out;
}

void gpuStage(Stage st, const std::vector<Var> &lanes, int threads, const std::string &tag) {
  if (lanes.empty()) {
    st.gpu_single_thread();
    return;
  }
  // Halide loop order: pure vars innermost first, RVars inside them in an
  // update, so the lanes are adjacent and fuse into one loop.
  Var fused = lanes[0];
  for (size_t i = 1; i < lanes.size(); ++i) {
    Var next(tag + "_f" + std::to_string(i));
    st.fuse(fused, lanes[i], next);
    fused = next;
  }
  Var block(tag + "_block"), thread(tag + "_thread");
  st.gpu_tile(fused, block, thread, std::max(1, threads), TailStrategy::GuardWithIf);
}

} // namespace

void gpuRoot(Func f, int threads) {
  if (!f.defined())
    return;
  f.compute_root();
  gpuStage(f, laneVars(f, -1), threads, f.name() + "_s0");
  for (int u = 0; u < f.num_update_definitions(); ++u)
    gpuStage(f.update(u), laneVars(f, u), threads, f.name() + "_s" + std::to_string(u + 1));
}

void gpuRoot(const std::vector<Func> &fs, int threads) {
  for (const Func &f : fs)
    gpuRoot(f, threads);
}

void scheduleStageGpu(Func f, const std::vector<Expr> &shape, const StageSchedule &s,
                      const Target &) {
  if (s.inlined) {
    f.compute_inline();
    return;
  }
  int64_t elements = 1;
  for (const Expr &e : shape) {
    const int64_t *c = Internal::as_const_int(e);
    elements *= c ? *c : 1 << 14;
  }
  int threads = static_cast<int>(std::min<int64_t>(s.gpuThreads, std::max<int64_t>(1, elements)));
  gpuRoot(f, threads);
}

} // namespace ssm::codegen
