// CPU schedule of the FFT convolution: a task per channel, all steps inside it, vectorised butterflies.
#include "codegen/schedules/LtiConvFftSchedule.h"
#include "codegen/schedules/gpu/GpuSchedules.h"

namespace ssm::codegen {

using namespace Halide;

namespace {

void scheduleSteps(FftStages &f, Func consumer, Var at, int vw, bool inlineLast) {
  const size_t last = f.stages.size() - 1;
  for (size_t s = 0; s < f.stages.size(); ++s) {
    if (inlineLast && s == last)
      break;
    // Every other step is inlined into the next: one pass over the channel's
    // buffer per two steps (radix-4 memory traffic, the inlined butterflies
    // computed twice). Measured 1.4-1.8x faster than a pass per step at
    // L 16384 and 65536; inlining two of three steps was slower.
    const size_t lastComputed = inlineLast ? last - 1 : last;
    if ((lastComputed - s) % 2 == 1)
      continue;
    const int ns = 1 << s, nh = f.n / (2 * ns);
    Func st = f.stages[s];
    st.bound(f.jlow, 0, ns).bound(f.which, 0, 2).bound(f.jhigh, 0, nh);
    st.compute_at(consumer, at).unroll(f.which);
    if (ns >= vw) {
      st.vectorize(f.jlow, vw);
    } else if (nh >= vw) {
      st.reorder(f.jhigh, f.which, f.jlow).vectorize(f.jhigh, vw);
    }
  }
  for (size_t s = 1; s < f.twiddles.size(); ++s) {
    Var j = f.twiddles[s].args()[0];
    f.twiddles[s].compute_root().bound(j, 0, 1 << s);
  }
}

} // namespace

void scheduleLtiConvFft(LtiConvFftKernel &k, const CpuSchedule &s, const Target &target) {
  if (targetFamily(target) == TargetFamily::Gpu) return scheduleLtiConvFftGpu(k, s, target);
  requireCpuSchedule(target, "ssm.lti_conv");
  const int vw = std::max(1, s.vectorWidth);
  Var tile("tile");
  k.y.fuse(k.h, k.b, tile);
  if (s.parallel)
    k.y.parallel(tile);
  k.y.vectorize(k.t, vw, TailStrategy::GuardWithIf);
  scheduleSteps(k.forward, k.y, tile, vw, /*inlineLast=*/false);
  Var kv = k.halfSpectrum.args()[0];
  const int half = k.n / 2;
  k.halfSpectrum.bound(kv, 0, half).compute_at(k.y, tile);
  if (half >= vw)
    k.halfSpectrum.vectorize(kv, vw);
  // The last inverse step is computed too: y reads it at t / 2 (two outputs
  // per complex value), so inlining it would compute each butterfly twice.
  scheduleSteps(k.inverse, k.y, tile, vw, /*inlineLast=*/false);
}

} // namespace ssm::codegen
