// Halide kernel of ssm.rope: the algorithm only (codegen/schedules/RopeSchedule.cpp schedules it).
#include "codegen/kernels/RopeKernel.h"

#include <cmath>

namespace ssm::codegen {

using namespace Halide;

RopeKernel buildRope(const RopeKernelInputs &in) {
  checkOperandRank("ssm.rope kernel", in.x, "x", 4);
  checkOperandRank("ssm.rope kernel", in.position, "position", 1);
  const int R = in.rotaryDim, half = R / 2;
  std::optional<int64_t> D = constInt(in.x.shape[3]);
  if (R <= 0 || R % 2 || !D || R > *D)
    throw CompileError("ssm.rope kernel: rotary_dim must be even and at most the constant head "
                       "size D");
  RopeKernel k;
  Var i("i"), t("t"), b("b"), d("d"), h("h");
  // a_i = p theta^(-2i/R) in f64, reduced to [0, 2 pi) before the f32 sine and cosine.
  Expr p = cast<double>(in.position.func(b)) + cast<double>(t);
  Expr invFreq = pow(Expr(in.theta), cast<double>(i) * Expr(-2.0 / double(R)));
  Expr a = p * invFreq;
  const double twoPi = 2.0 * M_PI;
  Expr ar = a - floor(a * Expr(1.0 / twoPi)) * Expr(twoPi);
  k.table = Func("rope_table");
  k.table(i, t, b) = Tuple(cast<float>(cos(ar)), cast<float>(sin(ar)));

  Expr rot = d < R;
  Expr pair, partner, sign;
  if (in.style == RopeStyle::neox) {
    Expr first = d < half;
    pair = select(first, d, d - half);
    partner = select(first, d + half, d - half);
    sign = select(first, -1.0f, 1.0f);
  } else {
    pair = d / 2;
    partner = d ^ 1;
    sign = select(d % 2 == 0, -1.0f, 1.0f);
  }
  Expr pc = clamp(pair, 0, half - 1), qc = clamp(partner, 0, R - 1);
  Expr x = in.x.func(d, h, t, b);
  Expr turned = x * k.table(pc, t, b)[0] + sign * in.x.func(qc, h, t, b) * k.table(pc, t, b)[1];
  k.out = Func("rope_out");
  k.out(d, h, t, b) = select(rot, turned, x);
  k.result = {{TensorFunc{k.out, in.x.shape}}};
  return k;
}

} // namespace ssm::codegen
