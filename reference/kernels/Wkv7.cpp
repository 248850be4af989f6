// Reference ssm.wkv7: the sequential delta-rule recurrence in f64.
#include "reference/kernels/Wkv7.h"
#include "reference/kernels/ShapeCheck.h"

#include <cmath>
#include <utility>

namespace ssm::ref {

std::string wkv7(const Wkv7Args &args, Array &y, Array &finalState) {
  const char *op = "ssm.wkv7";
  if (std::string e = detail::checkData(op, "r", args.r); !e.empty())
    return e;
  if (args.r->rank() != 4)
    return detail::badShape(op, "r", *args.r, "(b, L, h, n)");
  const Array &r = *args.r;
  const int64_t batch = r.shape[0], len = r.shape[1], heads = r.shape[2], n = r.shape[3];
  for (auto [name, a] : {std::pair<const char *, const Array *>{"w", args.w}, {"k", args.k},
                         {"v", args.v}, {"a", args.a}, {"b", args.b}})
    if (std::string e = detail::checkShape(op, name, a, r.shape); !e.empty())
      return e;
  if (args.initialState) {
    if (std::string e =
            detail::checkShape(op, "initial_state", args.initialState, {batch, heads, n, n});
        !e.empty())
      return e;
  }
  const Array &w = *args.w, &k = *args.k, &v = *args.v, &a = *args.a, &bv = *args.b;
  y = Array(r.shape);
  finalState = args.initialState ? *args.initialState : Array({batch, heads, n, n});
  std::vector<double> sa(n), decay(n);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t t = 0; t < len; ++t) {
        for (int64_t j = 0; j < n; ++j)
          decay[j] = std::exp(w.at(b, t, h, j));
        for (int64_t i = 0; i < n; ++i) {
          double s = 0.0;
          for (int64_t j = 0; j < n; ++j)
            s += finalState.at(b, h, i, j) * a.at(b, t, h, j);
          sa[i] = s;
        }
        for (int64_t i = 0; i < n; ++i) {
          double out = 0.0, vi = v.at(b, t, h, i);
          for (int64_t j = 0; j < n; ++j) {
            double &S = finalState.at(b, h, i, j);
            S = S * decay[j] + sa[i] * bv.at(b, t, h, j) + vi * k.at(b, t, h, j);
            out += S * r.at(b, t, h, j);
          }
          y.at(b, t, h, i) = out;
        }
      }
  return "";
}

} // namespace ssm::ref
