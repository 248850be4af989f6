// Reference ssm.lti_conv: direct O(L * Lk) causal convolution in double.
#include "reference/kernels/LtiConv.h"
#include "reference/kernels/ShapeCheck.h"

#include <algorithm>

namespace ssm::ref {

std::string ltiConv(const LtiConvArgs &args, Array &y) {
  const char *op = "ssm.lti_conv";
  if (std::string e = detail::checkData(op, "u", args.u); !e.empty())
    return e;
  if (args.u->rank() != 3)
    return detail::badShape(op, "u", *args.u, "(batch, H, L)");
  const Array &u = *args.u;
  int64_t batch = u.shape[0], nHeads = u.shape[1], len = u.shape[2];
  if (std::string e = detail::checkData(op, "K", args.K); !e.empty())
    return e;
  if (args.K->rank() != 2 || args.K->shape[0] != nHeads)
    return detail::badShape(op, "K", *args.K, "(H, Lk) with H " + std::to_string(nHeads));
  int64_t kLen = args.K->shape[1];
  if (args.D)
    if (std::string e = detail::checkShape(op, "D", args.D, {nHeads}); !e.empty())
      return e;

  y = Array(u.shape);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < nHeads; ++h)
      for (int64_t t = 0; t < len; ++t) {
        double acc = args.D ? args.D->data[h] * u.at(b, h, t) : 0.0;
        for (int64_t k = 0, e = std::min(t, kLen - 1); k <= e; ++k)
          acc += args.K->at(h, k) * u.at(b, h, t - k);
        y.at(b, h, t) = acc;
      }
  return "";
}

} // namespace ssm::ref
