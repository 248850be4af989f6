// Halide kernel of ssm.lti_conv: direct causal convolution, time-blocked with register accumulators.
#include "codegen/kernels/LtiConvKernel.h"

namespace ssm::codegen {

using namespace Halide;

LtiConvKernel buildLtiConv(const LtiConvKernelInputs &in, int timeBlock) {
  if (in.u.rank() != 3 || in.K.rank() != 2)
    throw CompileError("ssm.lti_conv kernel: u must be (batch, H, L), K (H, Lk)");
  if (in.algorithm != ConvAlgorithm::direct)
    throw CompileError(std::string("ssm.lti_conv: algorithm = ") +
                       (in.algorithm == ConvAlgorithm::fft ? "fft" : "scan") +
                       " has no compiled form yet; use algorithm = direct (the reference "
                       "interpreter runs every algorithm)");
  Expr len = in.u.shape[2];
  Expr taps = min(in.K.shape[1], len); // taps at k >= L never reach an output
  const int tb = timeBlock; // outputs per register block

  Var t("t"), h("h"), b("b"), j("j"), ti("ti"), to("to");
  // u with zeros outside [0, L), so every tap reads a dense vector (the last
  // block of outputs may run past L: it is computed whole and not stored).
  Func upad("lti_conv_upad");
  upad(j, h, b) =
      select(likely(j >= 0 && j < len), in.u.func(clamp(likely(j), 0, len - 1), h, b), 0.0f);

  // acc(ti, to) is y at t = to * tb + ti. The where clause keeps the taps
  // k <= t of the block's last t: Halide trims the k loop to the causal
  // triangle (the clause does not depend on the vectorised ti).
  Func acc("lti_conv_acc");
  Expr tOf = to * tb + ti;
  acc(ti, to, h, b) = in.D ? in.D->func(h) * upad(tOf, h, b) : Expr(0.0f);
  RDom r(0, taps, "k");
  r.where(r.x <= to * tb + (tb - 1));
  acc(ti, to, h, b) += in.K.func(r.x, h) * upad(tOf - r.x, h, b);

  Func y("lti_conv_y");
  y(t, h, b) = acc(t % tb, t / tb, h, b);

  // y covers exactly [0, L) in time: t % tb and t / tb then simplify to the
  // split loop vars (the schedule splits t by tb), and acc's block is one `to`.
  y.bound(t, 0, len);
  LtiConvKernel k;
  k.upad = upad;
  k.acc = acc;
  k.y = y;
  k.taps = r;
  k.t = t;
  k.h = h;
  k.b = b;
  k.ti = ti;
  k.to = to;
  k.timeBlock = tb;
  k.result = {{TensorFunc{y, in.u.shape}}};
  return k;
}

} // namespace ssm::codegen
