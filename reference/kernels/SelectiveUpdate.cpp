// Reference ssm.selective_update: both forms run as (batch, H, P, N) with flat indexing.
#include "reference/kernels/SelectiveUpdate.h"
#include "reference/kernels/Activations.h"
#include "reference/kernels/ShapeCheck.h"

#include <cmath>

namespace ssm::ref {

std::string selectiveUpdate(const SelectiveUpdateArgs &args, Array &out,
                            Array &newState) {
  const char *op = "ssm.selective_update";
  if (std::string e = detail::checkData(op, "state", args.state); !e.empty())
    return e;
  const Array &state = *args.state;
  if (state.rank() != 3 && state.rank() != 4)
    return detail::badShape(op, "state", state, "(batch, dim, N) or (batch, H, P, N)");
  bool heads = state.rank() == 4;
  int64_t batch = state.shape[0], nHeads = heads ? state.shape[1] : 1,
          p = heads ? state.shape[2] : state.shape[1], n = state.shape.back();
  // x-like: state without N; A: state without batch; D-like: neither.
  std::vector<int64_t> xShape(state.shape.begin(), state.shape.end() - 1);
  std::vector<int64_t> aShape(state.shape.begin() + 1, state.shape.end());
  std::vector<int64_t> dShape(state.shape.begin() + 1, state.shape.end() - 1);
  if (std::string e = detail::checkShape(op, "x", args.x, xShape); !e.empty())
    return e;
  if (std::string e = detail::checkShape(op, "dt", args.dt, xShape); !e.empty())
    return e;
  if (std::string e = detail::checkShape(op, "A", args.A, aShape); !e.empty())
    return e;
  int64_t groups[2] = {1, 1};
  const char *bcNames[2] = {"B", "C"};
  const Array *bc[2] = {args.B, args.C};
  for (int k = 0; k < 2; ++k) {
    if (std::string e = detail::checkData(op, bcNames[k], bc[k]); !e.empty())
      return e;
    const Array &a = *bc[k];
    bool ok = (a.rank() == 2 && a.shape == std::vector<int64_t>{batch, n}) ||
              (a.rank() == 3 && a.shape[0] == batch && a.shape[2] == n &&
               a.shape[1] > 0 && nHeads % a.shape[1] == 0);
    if (!ok)
      return detail::badShape(op, bcNames[k], a,
                              "(batch, N) = " + shapeToString({batch, n}) +
                                  " or (batch, G, N) with G dividing " +
                                  std::to_string(nHeads) + " heads");
    groups[k] = a.rank() == 3 ? a.shape[1] : 1;
  }
  if (args.D)
    if (std::string e = detail::checkShape(op, "D", args.D, dShape); !e.empty())
      return e;
  if (args.z)
    if (std::string e = detail::checkShape(op, "z", args.z, xShape); !e.empty())
      return e;
  if (args.dtBias)
    if (std::string e = detail::checkShape(op, "dt_bias", args.dtBias, dShape); !e.empty())
      return e;

  out = Array(xShape);
  newState = Array(state.shape);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t h = 0; h < nHeads; ++h) {
      int64_t gB = h / (nHeads / groups[0]), gC = h / (nHeads / groups[1]);
      const double *bRow = args.B->data.data() + (b * groups[0] + gB) * n;
      const double *cRow = args.C->data.data() + (b * groups[1] + gC) * n;
      for (int64_t j = 0; j < p; ++j) {
        int64_t xi = (b * nHeads + h) * p + j, di = h * p + j;
        double dt = args.dt->data[xi] + (args.dtBias ? args.dtBias->data[di] : 0.0);
        if (args.dtSoftplus)
          dt = softplus(dt);
        double x = args.x->data[xi], acc = 0.0;
        for (int64_t i = 0; i < n; ++i) {
          double s = state.data[xi * n + i] * std::exp(dt * args.A->data[di * n + i]) +
                     bRow[i] * (dt * x);
          newState.data[xi * n + i] = s;
          acc += s * cRow[i];
        }
        if (args.D)
          acc += x * args.D->data[di];
        if (args.z)
          acc *= silu(args.z->data[xi]);
        out.data[xi] = acc;
      }
    }
  }
  return "";
}

} // namespace ssm::ref
