// Halide kernel of ssm.causal_conv1d: unrolled taps over a padded view of x.
#include "codegen/kernels/CausalConv1dKernel.h"
#include "codegen/kernels/MathExt.h"

#include <string>

namespace ssm::codegen {

using namespace Halide;

CausalConv1dKernel buildCausalConv1d(const CausalConv1dKernelInputs &in) {
  if (in.x.rank() != 3 || in.weight.rank() != 2)
    throw CompileError("ssm.causal_conv1d kernel: x must be (batch, dim, L), weight (dim, W)");
  const int64_t *wConst = Internal::as_const_int(in.weight.shape[1]);
  if (!wConst || *wConst < 1)
    throw CompileError("ssm.causal_conv1d kernel: the width W must be a positive constant");
  int width = int(*wConst), pad = width - 1;
  Expr len = in.x.shape[2];

  Var t("t"), d("d"), b("b"), k("k");
  // xx(j) = initial_states(j) for j < pad, x(j - pad) after. likely() marks
  // the x side as the steady state, so Halide peels the first vector(s) off
  // and the main loop loads x densely.
  auto xx = [&](Expr j) {
    Expr fromX = in.x.func(max(likely(j - pad), 0), d, b);
    if (pad == 0)
      return fromX;
    Expr fromInit = in.initialStates ? in.initialStates->func(clamp(j, 0, pad - 1), d, b)
                                     : Expr(0.0f);
    return select(likely(j >= pad), fromX, fromInit);
  };

  // Taps summed as a balanced tree (shorter dependency chains than a fold).
  std::vector<Expr> terms;
  for (int i = 0; i < width; ++i)
    terms.push_back(in.weight.func(i, d) * xx(t + i));
  if (in.bias)
    terms.push_back(in.bias->func(d));
  while (terms.size() > 1) {
    std::vector<Expr> next;
    for (size_t i = 0; i + 1 < terms.size(); i += 2)
      next.push_back(terms[i] + terms[i + 1]);
    if (terms.size() % 2)
      next.push_back(terms.back());
    terms = next;
  }
  Expr acc = terms[0];
  Func out("causal_conv1d_out");
  out(t, d, b) = in.activation == Activation::silu ? silu(acc) : acc;

  Func fin("causal_conv1d_final_states");
  if (pad > 0) {
    // xx at L + k: from x when L + k >= pad, else from the carried states.
    Expr j = len + k;
    Expr fromX = in.x.func(clamp(j - pad, 0, len - 1), d, b);
    Expr fromInit = in.initialStates ? in.initialStates->func(clamp(j, 0, pad - 1), d, b)
                                     : Expr(0.0f);
    fin(k, d, b) = select(j >= pad, fromX, fromInit);
  } else {
    fin(k, d, b) = 0.0f; // zero-extent result
  }

  std::vector<Expr> finShape = {in.x.shape[0], in.x.shape[1], Expr(pad)};
  CausalConv1dKernel kernel;
  kernel.out = out;
  kernel.finalStates = fin;
  kernel.result = {{TensorFunc{out, in.x.shape}, TensorFunc{fin, finShape}}};
  return kernel;
}

} // namespace ssm::codegen
