// Reference ssm.affine_scan: plain sequential loop, one line of the scan at a time.
#include "reference/kernels/AffineScan.h"
#include "reference/kernels/ShapeCheck.h"

namespace ssm::ref {

std::string affineScan(const AffineScanArgs &args, Array &h, Array &hLast) {
  const char *op = "ssm.affine_scan";
  if (std::string e = detail::checkData(op, "b", args.b); !e.empty())
    return e;
  if (std::string e = detail::checkData(op, "a", args.a); !e.empty())
    return e;
  const Array &a = *args.a, &b = *args.b;
  int64_t rank = b.rank();
  int64_t dim = args.dim < 0 ? args.dim + rank : args.dim;
  if (dim < 0 || dim >= rank)
    return std::string(op) + ": dim " + std::to_string(args.dim) +
           " is out of range for b of shape " + shapeToString(b.shape);
  if (a.rank() != rank)
    return detail::badShape(op, "a", a, "rank " + std::to_string(rank) +
                                            " to match b " + shapeToString(b.shape));
  for (int64_t i = 0; i < rank; ++i)
    if (a.shape[i] != b.shape[i] && a.shape[i] != 1)
      return detail::badShape(op, "a", a, "a shape broadcastable to b " +
                                              shapeToString(b.shape));
  std::vector<int64_t> lastShape = b.shape;
  lastShape.erase(lastShape.begin() + dim);
  if (args.h0)
    if (std::string e = detail::checkShape(op, "h0", args.h0, lastShape); !e.empty())
      return e;
  if (args.reset)
    if (std::string e = detail::checkShape(op, "reset", args.reset, b.shape); !e.empty())
      return e;

  // Broadcast dimensions of a get stride 0, so one offset formula serves both.
  std::vector<int64_t> bStrides = b.strides(), aStrides = a.strides();
  for (int64_t i = 0; i < rank; ++i)
    if (a.shape[i] == 1)
      aStrides[i] = 0;

  h = Array(b.shape);
  hLast = Array(lastShape);
  int64_t len = b.shape[dim];
  // Each line of the scan is identified by its index in hLast (C order).
  for (int64_t line = 0, e = hLast.numel(); line < e; ++line) {
    int64_t aBase = 0, bBase = 0, rem = line;
    for (int64_t i = rank - 1; i >= 0; --i) {
      if (i == dim)
        continue;
      int64_t idx = rem % b.shape[i];
      rem /= b.shape[i];
      aBase += idx * aStrides[i];
      bBase += idx * bStrides[i];
    }
    double state = args.h0 ? args.h0->data[line] : 0.0;
    for (int64_t step = 0; step < len; ++step) {
      int64_t t = args.reverse ? len - 1 - step : step;
      int64_t bOff = bBase + t * bStrides[dim];
      if (args.reset && args.reset->data[bOff] != 0.0)
        state = 0.0;
      state = a.data[aBase + t * aStrides[dim]] * state + b.data[bOff];
      h.data[bOff] = state;
    }
    hLast.data[line] = state;
  }
  return "";
}

} // namespace ssm::ref
