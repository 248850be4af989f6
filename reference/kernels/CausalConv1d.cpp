// Reference ssm.causal_conv1d: builds the padded sequence xx per channel and slides the taps over it.
#include "reference/kernels/CausalConv1d.h"
#include "reference/kernels/Activations.h"
#include "reference/kernels/ShapeCheck.h"

namespace ssm::ref {

std::string causalConv1d(const CausalConv1dArgs &args, Array &out,
                         Array &finalStates) {
  const char *op = "ssm.causal_conv1d";
  if (std::string e = detail::checkData(op, "x", args.x); !e.empty())
    return e;
  if (args.x->rank() != 3)
    return detail::badShape(op, "x", *args.x, "(batch, dim, L)");
  const Array &x = *args.x;
  int64_t batch = x.shape[0], dim = x.shape[1], len = x.shape[2];
  if (std::string e = detail::checkData(op, "weight", args.weight); !e.empty())
    return e;
  const Array &w = *args.weight;
  if (w.rank() != 2 || w.shape[0] != dim || w.shape[1] < 1)
    return detail::badShape(op, "weight", w, "(dim, W) with dim " + std::to_string(dim) +
                                                  " and W >= 1");
  int64_t width = w.shape[1], pad = width - 1;
  if (args.bias)
    if (std::string e = detail::checkShape(op, "bias", args.bias, {dim}); !e.empty())
      return e;
  if (args.initialStates)
    if (std::string e = detail::checkShape(op, "initial_states", args.initialStates,
                                           {batch, dim, pad});
        !e.empty())
      return e;

  out = Array(x.shape);
  finalStates = Array({batch, dim, pad});
  std::vector<double> xx(pad + len);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t d = 0; d < dim; ++d) {
      for (int64_t k = 0; k < pad; ++k)
        xx[k] = args.initialStates ? args.initialStates->at(b, d, k) : 0.0;
      for (int64_t t = 0; t < len; ++t)
        xx[pad + t] = x.at(b, d, t);
      for (int64_t t = 0; t < len; ++t) {
        double acc = args.bias ? args.bias->data[d] : 0.0;
        for (int64_t k = 0; k < width; ++k)
          acc += w.at(d, k) * xx[t + k];
        out.at(b, d, t) = args.activation == Activation::silu ? silu(acc) : acc;
      }
      // xx always has at least pad entries, so no extra left padding is needed.
      for (int64_t k = 0; k < pad; ++k)
        finalStates.at(b, d, k) = xx[len + k];
    }
  return "";
}

} // namespace ssm::ref
