// CPU schedule of elementwise, generic and reduction stages: root or inline, vectors, parallel tasks.
#include "codegen/schedules/Schedules.h"

#include <algorithm>

namespace ssm::codegen {

using namespace Halide;

void scheduleStage(Func f, const std::vector<Expr> &shape, const StageSchedule &s,
                   const Target &target) {
  if (targetFamily(target) == TargetFamily::Gpu) return scheduleStageGpu(f, shape, s, target);
  requireCpuSchedule(target, "a stage of an elementwise, generic or tensor op");
  if (s.inlined) {
    f.compute_inline();
    return;
  }
  f.compute_root();
  std::vector<Var> vars = f.args();
  if (vars.empty())
    return;
  const int vw = s.vectorWidth;
  auto apply = [&](Stage st, bool update) {
    int64_t ext0 = 0;
    if (auto c = Internal::as_const_int(shape.back()))
      ext0 = *c;
    // Halide 14 miscompiles the update of a reduction vectorised with
    // GuardWithIf when the extent is one vector and a bit (vw < ext0 <
    // 2 vw): the loop over the two vectors runs the first one twice and
    // never the tail (a row reduction of 17 rows at vw 16 doubled rows
    // 0..15 and left row 16 at its initial value; test/lit/Codegen/
    // reduction-vector-tail.mlir). Such an update (at most 2 vw lanes of
    // work per reduction step) runs scalar.
    const bool shortTail = update && ext0 > vw && ext0 < 2 * vw && ext0 % vw != 0;
    if (vw > 1 && ext0 >= vw && !shortTail)
      st.vectorize(vars[0], vw, TailStrategy::GuardWithIf);
    int64_t inner = 1; // elements per row of the outermost dim
    for (size_t i = 1; i < shape.size(); ++i) {
      auto c = Internal::as_const_int(shape[i]);
      inner *= c ? *c : 1 << 14; // a symbolic extent: assume large
    }
    if (s.parallel && vars.size() >= 2) {
      // Tasks of at least taskElements: one row of a (512, 64) stage per
      // task would cost more in the thread pool than the row's work.
      int64_t rows = std::max<int64_t>(1, (s.taskElements + inner - 1) / inner);
      if (rows > 1) {
        Var outer(vars.back().name() + "_task"), innerRows(vars.back().name() + "_rows");
        st.split(vars.back(), outer, innerRows, static_cast<int>(rows), TailStrategy::GuardWithIf)
            .parallel(outer);
      } else {
        st.parallel(vars.back());
      }
    }
  };
  apply(f, false);
  for (int u = 0; u < f.num_update_definitions(); ++u)
    apply(f.update(u), true);
}

} // namespace ssm::codegen
