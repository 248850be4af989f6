// Reference ssm.wkv4: the sequential, stabilised RWKV-4 recurrence in f64.
#include "reference/kernels/Wkv4.h"
#include "reference/kernels/ShapeCheck.h"

#include <algorithm>
#include <cmath>

namespace ssm::ref {

std::string wkv4(const Wkv4Args &args, Array &wkv, Array &aaOut, Array &bbOut, Array &ppOut) {
  const char *op = "ssm.wkv4";
  if (std::string e = detail::checkData(op, "k", args.k); !e.empty())
    return e;
  if (args.k->rank() != 3)
    return detail::badShape(op, "k", *args.k, "(b, L, C)");
  const Array &k = *args.k;
  int64_t batch = k.shape[0], len = k.shape[1], ch = k.shape[2];
  if (std::string e = detail::checkShape(op, "v", args.v, k.shape); !e.empty())
    return e;
  if (std::string e = detail::checkShape(op, "w", args.w, {ch}); !e.empty())
    return e;
  if (std::string e = detail::checkShape(op, "u", args.u, {ch}); !e.empty())
    return e;
  int given = (args.aa != nullptr) + (args.bb != nullptr) + (args.pp != nullptr);
  if (given != 0 && given != 3)
    return std::string(op) + ": the state operands 'aa', 'bb' and 'pp' go together";
  if (given == 3) {
    for (auto [name, a] : {std::pair<const char *, const Array *>{"aa", args.aa},
                           {"bb", args.bb}, {"pp", args.pp}})
      if (std::string e = detail::checkShape(op, name, a, {batch, ch}); !e.empty())
        return e;
  }
  const Array &v = *args.v, &w = *args.w, &u = *args.u;
  wkv = Array(k.shape);
  aaOut = Array({batch, ch});
  bbOut = Array({batch, ch});
  ppOut = Array({batch, ch});
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t c = 0; c < ch; ++c) {
      double aa = given ? args.aa->at(b, c) : 0.0;
      double bb = given ? args.bb->at(b, c) : 0.0;
      double pp = given ? args.pp->at(b, c) : -1e30;
      for (int64_t t = 0; t < len; ++t) {
        double kt = k.at(b, t, c), vt = v.at(b, t, c);
        double uk = u[c] + kt;
        double q = std::max(pp, uk);
        double e1 = std::exp(pp - q), e2 = std::exp(uk - q);
        wkv.at(b, t, c) = (e1 * aa + e2 * vt) / (e1 * bb + e2);
        double pw = pp + w[c];
        double q2 = std::max(pw, kt);
        e1 = std::exp(pw - q2);
        e2 = std::exp(kt - q2);
        aa = e1 * aa + e2 * vt;
        bb = e1 * bb + e2;
        pp = q2;
      }
      aaOut.at(b, c) = aa;
      bbOut.at(b, c) = bb;
      ppOut.at(b, c) = pp;
    }
  return "";
}

} // namespace ssm::ref
