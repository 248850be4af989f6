// Reference ssm.selective_scan: sequential over time, one (batch, channel) pair at a time.
#include "reference/kernels/SelectiveScan.h"
#include "reference/kernels/Activations.h"
#include "reference/kernels/ShapeCheck.h"

#include <cmath>
#include <functional>

namespace ssm::ref {

namespace {

/// Resolves one of B/C to an accessor (b, d, n, t) -> value after checking
/// its form, so the scan loop below does not care which form it got.
std::string bindBC(const char *name, const Array *x, int64_t batch, int64_t dim,
                   int64_t n, int64_t len, Layout layout,
                   std::function<double(int64_t, int64_t, int64_t, int64_t)> &get) {
  const char *op = "ssm.selective_scan";
  if (std::string e = detail::checkData(op, name, x); !e.empty())
    return e;
  bool cm = layout == Layout::channel_major;
  const std::string forms =
      "(dim, N) = " + shapeToString({dim, n}) + ", " +
      shapeToString(cm ? std::vector<int64_t>{batch, n, len}
                       : std::vector<int64_t>{batch, len, n}) +
      " or " + (cm ? "(batch, G, N, L)" : "(batch, L, G, N)") +
      " with G dividing dim";
  const Array &a = *x;
  if (a.rank() == 2) {
    if (a.shape != std::vector<int64_t>{dim, n})
      return detail::badShape(op, name, a, forms);
    get = [&a](int64_t, int64_t d, int64_t i, int64_t) { return a.at(d, i); };
    return "";
  }
  if (a.rank() == 3) {
    if (a.shape != (cm ? std::vector<int64_t>{batch, n, len}
                       : std::vector<int64_t>{batch, len, n}))
      return detail::badShape(op, name, a, forms);
    if (cm)
      get = [&a](int64_t b, int64_t, int64_t i, int64_t t) { return a.at(b, i, t); };
    else
      get = [&a](int64_t b, int64_t, int64_t i, int64_t t) { return a.at(b, t, i); };
    return "";
  }
  if (a.rank() == 4) {
    int64_t g = cm ? a.shape[1] : a.shape[2];
    if (g <= 0 || dim % g != 0 ||
        a.shape != (cm ? std::vector<int64_t>{batch, g, n, len}
                       : std::vector<int64_t>{batch, len, g, n}))
      return detail::badShape(op, name, a, forms);
    int64_t perGroup = dim / g;
    if (cm)
      get = [&a, perGroup](int64_t b, int64_t d, int64_t i, int64_t t) {
        return a.at(b, d / perGroup, i, t);
      };
    else
      get = [&a, perGroup](int64_t b, int64_t d, int64_t i, int64_t t) {
        return a.at(b, t, d / perGroup, i);
      };
    return "";
  }
  return detail::badShape(op, name, a, forms);
}

} // namespace

std::string selectiveScan(const SelectiveScanArgs &args, Array &y, Array &hLast) {
  const char *op = "ssm.selective_scan";
  if (std::string e = detail::checkData(op, "u", args.u); !e.empty())
    return e;
  if (args.u->rank() != 3)
    return detail::badShape(op, "u", *args.u,
                            args.layout == Layout::channel_major
                                ? "(batch, dim, L)"
                                : "(batch, L, dim)");
  const Array &u = *args.u;
  bool cm = args.layout == Layout::channel_major;
  int64_t batch = u.shape[0], dim = cm ? u.shape[1] : u.shape[2],
          len = cm ? u.shape[2] : u.shape[1];
  if (std::string e = detail::checkShape(op, "delta", args.delta, u.shape); !e.empty())
    return e;
  if (std::string e = detail::checkData(op, "A", args.A); !e.empty())
    return e;
  if (args.A->rank() != 2 || args.A->shape[0] != dim)
    return detail::badShape(op, "A", *args.A, "(dim, N) with dim " + std::to_string(dim));
  int64_t n = args.A->shape[1];
  std::function<double(int64_t, int64_t, int64_t, int64_t)> getB, getC;
  if (std::string e = bindBC("B", args.B, batch, dim, n, len, args.layout, getB); !e.empty())
    return e;
  if (std::string e = bindBC("C", args.C, batch, dim, n, len, args.layout, getC); !e.empty())
    return e;
  if (args.D)
    if (std::string e = detail::checkShape(op, "D", args.D, {dim}); !e.empty())
      return e;
  if (args.z)
    if (std::string e = detail::checkShape(op, "z", args.z, u.shape); !e.empty())
      return e;
  if (args.deltaBias)
    if (std::string e = detail::checkShape(op, "delta_bias", args.deltaBias, {dim}); !e.empty())
      return e;
  if (args.h0)
    if (std::string e = detail::checkShape(op, "h0", args.h0, {batch, dim, n}); !e.empty())
      return e;

  // Offset of (b, d, t) in u, delta, z and y for either layout.
  auto at = [&](int64_t b, int64_t d, int64_t t) {
    return cm ? (b * dim + d) * len + t : (b * len + t) * dim + d;
  };
  y = Array(u.shape);
  hLast = Array({batch, dim, n});
  std::vector<double> h(n);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t d = 0; d < dim; ++d) {
      for (int64_t i = 0; i < n; ++i)
        h[i] = args.h0 ? args.h0->at(b, d, i) : 0.0;
      for (int64_t t = 0; t < len; ++t) {
        int64_t off = at(b, d, t);
        double dt = args.delta->data[off] + (args.deltaBias ? args.deltaBias->data[d] : 0.0);
        if (args.deltaSoftplus)
          dt = softplus(dt);
        double x = u.data[off], out = 0.0;
        for (int64_t i = 0; i < n; ++i) {
          h[i] = std::exp(dt * args.A->at(d, i)) * h[i] + dt * getB(b, d, i, t) * x;
          out += h[i] * getC(b, d, i, t);
        }
        if (args.D)
          out += args.D->data[d] * x;
        if (args.z)
          out *= silu(args.z->data[off]);
        y.data[off] = out;
      }
      for (int64_t i = 0; i < n; ++i)
        hLast.at(b, d, i) = h[i];
    }
  }
  return "";
}

} // namespace ssm::ref
