// Reference ssm.ssd_scan: sequential recurrence on a p x n state per (batch, head).
#include "reference/kernels/SsdScan.h"
#include "reference/kernels/ShapeCheck.h"

#include <cmath>

namespace ssm::ref {

std::string ssdScan(const SsdScanArgs &args, Array &Y, Array &finalState) {
  const char *op = "ssm.ssd_scan";
  if (std::string e = detail::checkData(op, "X", args.X); !e.empty())
    return e;
  if (args.X->rank() != 4)
    return detail::badShape(op, "X", *args.X, "(b, L, h, p)");
  const Array &X = *args.X;
  int64_t batch = X.shape[0], len = X.shape[1], nHeads = X.shape[2], p = X.shape[3];
  if (std::string e = detail::checkData(op, "B", args.B); !e.empty())
    return e;
  const Array &B = *args.B;
  if (B.rank() != 4 || B.shape[0] != batch || B.shape[1] != len || B.shape[2] <= 0 ||
      nHeads % B.shape[2] != 0)
    return detail::badShape(op, "B", B, "(b, L, g, n) with b " + std::to_string(batch) +
                                            ", L " + std::to_string(len) +
                                            " and g dividing h " + std::to_string(nHeads));
  int64_t groups = B.shape[2], n = B.shape[3], perGroup = nHeads / groups;
  if (std::string e = detail::checkShape(op, "C", args.C, B.shape); !e.empty())
    return e;
  if (std::string e = detail::checkData(op, "A", args.A); !e.empty())
    return e;
  bool perKey = args.A->rank() == 4;
  if (args.A->shape != std::vector<int64_t>{batch, len, nHeads} &&
      args.A->shape != std::vector<int64_t>{batch, len, nHeads, n})
    return detail::badShape(op, "A", *args.A,
                            shapeToString({batch, len, nHeads}) + " or " +
                                shapeToString({batch, len, nHeads, n}));
  if (args.initialState)
    if (std::string e = detail::checkShape(op, "initial_state", args.initialState,
                                           {batch, nHeads, p, n});
        !e.empty())
      return e;
  if (args.bonus)
    if (std::string e = detail::checkShape(op, "bonus", args.bonus, {nHeads, n}); !e.empty())
      return e;

  Y = Array(X.shape);
  finalState = Array({batch, nHeads, p, n});
  std::vector<double> S(p * n);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t hd = 0; hd < nHeads; ++hd) {
      int64_t g = hd / perGroup;
      for (int64_t k = 0; k < p * n; ++k)
        S[k] = args.initialState ? args.initialState->data[(b * nHeads + hd) * p * n + k]
                                 : 0.0;
      for (int64_t t = 0; t < len; ++t) {
        auto decay = [&](int64_t i) {
          return std::exp(perKey ? args.A->at(b, t, hd, i) : args.A->at(b, t, hd));
        };
        for (int64_t j = 0; j < p; ++j) {
          double x = X.at(b, t, hd, j), y = 0.0;
          for (int64_t i = 0; i < n; ++i) {
            double &s = S[j * n + i];
            double bi = B.at(b, t, g, i), ci = args.C->at(b, t, g, i);
            if (args.bonus)
              y += ci * (s + args.bonus->at(hd, i) * bi * x);
            s = decay(i) * s + x * bi;
            if (!args.bonus)
              y += s * ci;
          }
          Y.at(b, t, hd, j) = y;
        }
      }
      for (int64_t k = 0; k < p * n; ++k)
        finalState.data[(b * nHeads + hd) * p * n + k] = S[k];
    }
  return "";
}

} // namespace ssm::ref
