// Reference ssm.gated_delta_rule: the sequential recurrence in f64, one token at a time.
#include "reference/kernels/GatedDeltaRule.h"
#include "reference/kernels/ShapeCheck.h"

#include <cmath>
#include <utility>
#include <vector>

namespace ssm::ref {

std::string gatedDeltaRule(const GatedDeltaRuleArgs &args, Array &out, Array &finalState) {
  const char *op = "ssm.gated_delta_rule";
  for (auto [name, a] : {std::pair<const char *, const Array *>{"q", args.q}, {"v", args.v},
                         {"g", args.g}})
    if (std::string e = detail::checkData(op, name, a); !e.empty())
      return e;
  if (args.q->rank() != 4)
    return detail::badShape(op, "q", *args.q, "(b, L, hk, dk)");
  if (args.v->rank() != 4)
    return detail::badShape(op, "v", *args.v, "(b, L, hv, dv)");
  const Array &q = *args.q, &v = *args.v, &g = *args.g;
  const int64_t batch = q.shape[0], len = q.shape[1], hk = q.shape[2], dk = q.shape[3];
  const int64_t hv = v.shape[2], dv = v.shape[3];
  if (v.shape[0] != batch || v.shape[1] != len || hk <= 0 || hv % hk != 0)
    return detail::badShape(op, "v", v,
                            "(" + std::to_string(batch) + ", " + std::to_string(len) +
                                ", hv, dv) with hv a multiple of hk = " + std::to_string(hk));
  if (std::string e = detail::checkShape(op, "k", args.k, q.shape); !e.empty())
    return e;
  const bool perChannel = g.rank() == 4;
  if (std::string e = detail::checkShape(
          op, "g", args.g,
          perChannel ? std::vector<int64_t>{batch, len, hv, dk} : std::vector<int64_t>{batch, len, hv});
      !e.empty())
    return e;
  if (std::string e = detail::checkShape(op, "beta", args.beta, {batch, len, hv}); !e.empty())
    return e;
  if (args.initialState) {
    if (std::string e =
            detail::checkShape(op, "initial_state", args.initialState, {batch, hv, dk, dv});
        !e.empty())
      return e;
  }
  const Array &k = *args.k, &beta = *args.beta;
  const int64_t ratio = hv / hk;
  out = Array({batch, len, hv, dv});
  finalState = args.initialState ? *args.initialState : Array({batch, hv, dk, dv});
  std::vector<double> u(dv);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < hv; ++h) {
      const int64_t kh = h / ratio;
      for (int64_t t = 0; t < len; ++t) {
        for (int64_t i = 0; i < dk; ++i) {
          double decay = std::exp(perChannel ? g.at(b, t, h, i) : g.at(b, t, h));
          for (int64_t j = 0; j < dv; ++j)
            finalState.at(b, h, i, j) *= decay;
        }
        for (int64_t j = 0; j < dv; ++j) {
          double kv = 0.0;
          for (int64_t i = 0; i < dk; ++i)
            kv += finalState.at(b, h, i, j) * k.at(b, t, kh, i);
          u[j] = beta.at(b, t, h) * (v.at(b, t, h, j) - kv);
        }
        for (int64_t i = 0; i < dk; ++i) {
          double ki = k.at(b, t, kh, i);
          for (int64_t j = 0; j < dv; ++j)
            finalState.at(b, h, i, j) += ki * u[j];
        }
        for (int64_t j = 0; j < dv; ++j) {
          double o = 0.0;
          for (int64_t i = 0; i < dk; ++i)
            o += finalState.at(b, h, i, j) * q.at(b, t, kh, i);
          out.at(b, t, h, j) = args.scale * o;
        }
      }
    }
  return "";
}

} // namespace ssm::ref
