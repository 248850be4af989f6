// Reference ssm.rope: the definition, in f64.
#include "reference/kernels/Rope.h"
#include "reference/kernels/ShapeCheck.h"

#include <cmath>

namespace ssm::ref {

std::string rope(const RopeArgs &args, Array &out) {
  const char *op = "ssm.rope";
  if (std::string e = detail::checkData(op, "x", args.x); !e.empty())
    return e;
  if (args.x->rank() != 4)
    return detail::badShape(op, "x", *args.x, "(batch, L, H, D)");
  const Array &x = *args.x;
  const int64_t batch = x.shape[0], len = x.shape[1], heads = x.shape[2], d = x.shape[3];
  if (std::string e = detail::checkShape(op, "position", args.position, {batch}); !e.empty())
    return e;
  const int64_t r = args.rotaryDim, half = r / 2;
  if (r <= 0 || r % 2 != 0 || r > d)
    return std::string(op) + ": rotary_dim " + std::to_string(r) +
           " must be even and in 1 .. D = " + std::to_string(d);
  if (!(args.theta > 0.0))
    return std::string(op) + ": theta must be positive";
  out = x;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t t = 0; t < len; ++t) {
      const double p = args.position->data[b] + double(t);
      for (int64_t i = 0; i < half; ++i) {
        const double a = p * std::pow(args.theta, -2.0 * double(i) / double(r));
        const double c = std::cos(a), s = std::sin(a);
        const int64_t i0 = args.style == RopeStyle::neox ? i : 2 * i;
        const int64_t i1 = args.style == RopeStyle::neox ? i + half : 2 * i + 1;
        for (int64_t h = 0; h < heads; ++h) {
          const double x0 = x.at(b, t, h, i0), x1 = x.at(b, t, h, i1);
          out.at(b, t, h, i0) = x0 * c - x1 * s;
          out.at(b, t, h, i1) = x0 * s + x1 * c;
        }
      }
    }
  return "";
}

} // namespace ssm::ref
