// Op definitions of the `ssm` dialect: shape verifiers.
//
// Every diagnostic names the offending operand, its shape, and the shape the
// op's other operands imply, so a user can fix a graph without reading code.
#include "dialect/SsmOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace ssm;

#define GET_OP_CLASSES
#include "dialect/SsmOps.cpp.inc"

namespace {

constexpr int64_t kDyn = ShapedType::kDynamic;

std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "(";
  llvm::interleaveComma(shape, os, [&](int64_t d) {
    if (d == kDyn)
      os << "?";
    else
      os << d;
  });
  if (shape.size() == 1)
    os << ",";
  os << ")";
  return s;
}

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// Checks `v` (an operand or a result, as `kind` says) against an expected
/// shape; kDyn in either matches any size. `what` names the dims, e.g.
/// "(batch, dim, L)".
LogicalResult checkValueShape(Operation *op, StringRef kind, StringRef name, Value v,
                              ArrayRef<int64_t> expected, StringRef what) {
  ArrayRef<int64_t> got = shapeOf(v);
  bool ok = got.size() == expected.size();
  for (size_t i = 0; ok && i < got.size(); ++i)
    ok = got[i] == kDyn || expected[i] == kDyn || got[i] == expected[i];
  if (ok)
    return success();
  return op->emitOpError() << kind << " '" << name << "' has shape " << shapeString(got)
                           << " but must be " << what << " = " << shapeString(expected);
}

LogicalResult checkShape(Operation *op, StringRef name, Value v, ArrayRef<int64_t> expected,
                         StringRef what) {
  return checkValueShape(op, "operand", name, v, expected, what);
}

LogicalResult checkResultShape(Operation *op, StringRef name, Value v,
                               ArrayRef<int64_t> expected, StringRef what) {
  return checkValueShape(op, "result", name, v, expected, what);
}

LogicalResult checkRank(Operation *op, StringRef name, Value v,
                        ArrayRef<unsigned> ranks, StringRef what) {
  if (llvm::is_contained(ranks, shapeOf(v).size()))
    return success();
  return op->emitOpError() << "operand '" << name << "' has shape "
                           << shapeString(shapeOf(v)) << " but must be "
                           << what;
}

/// A group count G is legal for `units` channels or heads when G > 0 divides it.
LogicalResult checkGroups(Operation *op, StringRef name, int64_t groups,
                          int64_t units, StringRef unitName) {
  if (groups == kDyn || units == kDyn)
    return success();
  if (groups > 0 && units % groups == 0)
    return success();
  return op->emitOpError() << "operand '" << name << "' has " << groups
                           << " groups, which does not divide " << unitName
                           << " = " << units;
}

/// The state size N (d_state) must be at least 1: a zero-size state has no
/// recurrence, and the compiled kernels index its first element.
LogicalResult checkStateSize(Operation *op, StringRef name, int64_t n) {
  if (n == kDyn || n >= 1)
    return success();
  return op->emitOpError() << "the state size N (d_state, read from '" << name
                           << "') is " << n << "; it must be at least 1";
}

/// A scan over time must have at least one step. A sequence of length 0 is
/// refused: the compiled affine_scan and wkv7 kernels failed on it with
/// Halide error -7 and the wkv4 kernel returned a zero state where the
/// reference returns the initial one (the verifier decides what is legal).
LogicalResult checkSequenceLength(Operation *op, StringRef name, int64_t dim, int64_t len) {
  if (len == kDyn || len >= 1)
    return success();
  return op->emitOpError() << "the sequence length (dim " << dim << " of '" << name
                           << "') is 0; a scan needs at least one step";
}

} // namespace

//===----------------------------------------------------------------------===//
// affine_scan
//===----------------------------------------------------------------------===//

LogicalResult AffineScanOp::verify() {
  Operation *op = getOperation();
  ArrayRef<int64_t> b = shapeOf(getB());
  int64_t rank = b.size();
  int64_t dim = getDim();
  if (dim < 0 || dim >= rank)
    return emitOpError() << "scan dimension " << dim << " is out of range for "
                         << "operand 'b' of shape " << shapeString(b);
  if (failed(checkSequenceLength(op, "b", dim, b[dim])))
    return failure();
  ArrayRef<int64_t> a = shapeOf(getA());
  if ((int64_t)a.size() != rank)
    return emitOpError() << "operand 'a' has shape " << shapeString(a)
                         << " but must have the rank of 'b' " << shapeString(b)
                         << " (use size-1 dims to broadcast)";
  for (int64_t i = 0; i < rank; ++i)
    if (a[i] != 1 && a[i] != kDyn && b[i] != kDyn && a[i] != b[i])
      return emitOpError() << "operand 'a' has shape " << shapeString(a)
                           << " which does not broadcast to 'b' "
                           << shapeString(b) << " in dim " << i;
  SmallVector<int64_t> reduced(b.begin(), b.end());
  reduced.erase(reduced.begin() + dim);
  if (getH0() && failed(checkShape(op, "h0", getH0(), reduced,
                                   "the shape of 'b' without the scan dim")))
    return failure();
  if (getReset() &&
      failed(checkShape(op, "reset", getReset(), b, "the shape of 'b'")))
    return failure();
  if (failed(checkResultShape(op, "h", getH(), b, "the shape of 'b'")) ||
      failed(checkResultShape(op, "h_last", getHLast(), reduced,
                              "the shape of 'b' without the scan dim")))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// selective_scan
//===----------------------------------------------------------------------===//

LogicalResult SelectiveScanOp::verify() {
  Operation *op = getOperation();
  bool timeMajor = getLayout() == Layout::time_major;
  StringRef seq = timeMajor ? "(batch, L, dim)" : "(batch, dim, L)";
  if (failed(checkRank(op, "u", getU(), {3}, "rank 3 " + seq.str())))
    return failure();
  ArrayRef<int64_t> u = shapeOf(getU());
  int64_t batch = u[0];
  int64_t dim = timeMajor ? u[2] : u[1];
  int64_t len = timeMajor ? u[1] : u[2];
  if (failed(checkShape(op, "delta", getDelta(), u, "the shape of 'u' " + seq.str())))
    return failure();
  if (failed(checkRank(op, "A", getA(), {2}, "rank 2 (dim, N)")))
    return failure();
  int64_t n = shapeOf(getA())[1];
  if (failed(checkShape(op, "A", getA(), {dim, n}, "(dim, N)")) ||
      failed(checkStateSize(op, "A", n)))
    return failure();

  for (auto [name, v] : {std::pair<StringRef, Value>{"B", getB()}, {"C", getC()}}) {
    ArrayRef<int64_t> s = shapeOf(v);
    if (s.size() == 2) {
      if (failed(checkShape(op, name, v, {dim, n}, "constant (dim, N)")))
        return failure();
    } else if (s.size() == 3) {
      if (timeMajor ? failed(checkShape(op, name, v, {batch, len, n}, "(batch, L, N)"))
                    : failed(checkShape(op, name, v, {batch, n, len}, "(batch, N, L)")))
        return failure();
    } else if (s.size() == 4) {
      int64_t g = timeMajor ? s[2] : s[1];
      if (timeMajor ? failed(checkShape(op, name, v, {batch, len, g, n}, "(batch, L, G, N)"))
                    : failed(checkShape(op, name, v, {batch, g, n, len}, "(batch, G, N, L)")))
        return failure();
      if (failed(checkGroups(op, name, g, dim, "dim")))
        return failure();
    } else {
      return checkRank(op, name, v, {},
                       timeMajor ? "(dim, N), (batch, L, N) or (batch, L, G, N)"
                                 : "(dim, N), (batch, N, L) or (batch, G, N, L)");
    }
  }
  if (getD() && failed(checkShape(op, "D", getD(), {dim}, "(dim)")))
    return failure();
  if (getZ() && failed(checkShape(op, "z", getZ(), u, "the shape of 'u' " + seq.str())))
    return failure();
  if (getDeltaBias() &&
      failed(checkShape(op, "delta_bias", getDeltaBias(), {dim}, "(dim)")))
    return failure();
  if (getH0() && failed(checkShape(op, "h0", getH0(), {batch, dim, n}, "(batch, dim, N)")))
    return failure();
  if (failed(checkResultShape(op, "y", getY(), u, "the shape of 'u' " + seq.str())) ||
      failed(checkResultShape(op, "h_last", getHLast(), {batch, dim, n}, "(batch, dim, N)")))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// selective_update
//===----------------------------------------------------------------------===//

LogicalResult SelectiveUpdateOp::verify() {
  Operation *op = getOperation();
  if (failed(checkRank(op, "state", getState(), {3, 4},
                       "(batch, dim, N) or, with heads, (batch, H, P, N)")))
    return failure();
  ArrayRef<int64_t> st = shapeOf(getState());
  bool heads = st.size() == 4;
  int64_t n = st.back();
  if (failed(checkStateSize(op, "state", n)))
    return failure();
  // Shapes without the trailing N: (batch, dim) or (batch, H, P).
  SmallVector<int64_t> xShape(st.begin(), st.end() - 1);
  SmallVector<int64_t> chShape(xShape.begin() + 1, xShape.end());
  SmallVector<int64_t> aShape(chShape);
  aShape.push_back(n);
  StringRef xWhat = heads ? "(batch, H, P)" : "(batch, dim)";
  StringRef chWhat = heads ? "(H, P)" : "(dim)";
  if (failed(checkShape(op, "x", getX(), xShape, xWhat)) ||
      failed(checkShape(op, "dt", getDt(), xShape, xWhat)) ||
      failed(checkShape(op, "A", getA(), aShape, heads ? "(H, P, N)" : "(dim, N)")))
    return failure();
  for (auto [name, v] : {std::pair<StringRef, Value>{"B", getB()}, {"C", getC()}}) {
    if (!heads) {
      if (failed(checkShape(op, name, v, {st[0], n}, "(batch, N)")))
        return failure();
      continue;
    }
    if (failed(checkRank(op, name, v, {3}, "rank 3 (batch, G, N)")))
      return failure();
    int64_t g = shapeOf(v)[1];
    if (failed(checkShape(op, name, v, {st[0], g, n}, "(batch, G, N)")) ||
        failed(checkGroups(op, name, g, st[1], "heads")))
      return failure();
  }
  if (getD() && failed(checkShape(op, "D", getD(), chShape, chWhat)))
    return failure();
  if (getZ() && failed(checkShape(op, "z", getZ(), xShape, xWhat)))
    return failure();
  if (getDtBias() && failed(checkShape(op, "dt_bias", getDtBias(), chShape, chWhat)))
    return failure();
  if (failed(checkResultShape(op, "y", getY(), xShape, xWhat)) ||
      failed(checkResultShape(op, "new_state", getNewState(), st, "the shape of 'state'")))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// lti_kernel
//===----------------------------------------------------------------------===//

LogicalResult LtiKernelOp::verify() {
  Operation *op = getOperation();
  if (failed(checkRank(op, "A", getA(), {2, 3}, "(H, N) real or (H, N, 2) complex")))
    return failure();
  ArrayRef<int64_t> a = shapeOf(getA());
  bool complex = a.size() == 3;
  if (complex && a[2] != 2 && a[2] != kDyn)
    return emitOpError() << "operand 'A' has shape " << shapeString(a)
                         << " but a complex A must be (H, N, 2) holding (real, imaginary) pairs";
  int64_t h = a[0], n = a[1];
  if (failed(checkStateSize(op, "A", n)))
    return failure();
  for (auto [name, v] : {std::pair<StringRef, Value>{"B", getB()}, {"C", getC()}}) {
    if (!v)
      continue;
    ArrayRef<int64_t> s = shapeOf(v);
    if (s.size() == 3 && !complex)
      return emitOpError() << "operand '" << name << "' has complex shape "
                           << shapeString(s) << " but 'A' " << shapeString(a)
                           << " is real";
    if (s.size() == 3 ? failed(checkShape(op, name, v, {h, n, 2}, "complex (H, N, 2)"))
                      : failed(checkShape(op, name, v, {h, n}, "(H, N)")))
      return failure();
  }
  if (failed(checkShape(op, "delta", getDelta(), {h}, "(H)")))
    return failure();
  ArrayRef<int64_t> k = shapeOf(getK());
  if (k.size() != 2 || k[1] == kDyn)
    return emitOpError() << "result 'K' has shape " << shapeString(k)
                         << " but must be (H, length) with a static length";
  return checkResultShape(op, "K", getK(), {h, k[1]}, "(H, length)");
}

//===----------------------------------------------------------------------===//
// lti_conv
//===----------------------------------------------------------------------===//

LogicalResult LtiConvOp::verify() {
  Operation *op = getOperation();
  if (failed(checkRank(op, "u", getU(), {3}, "rank 3 (batch, H, L)")) ||
      failed(checkRank(op, "K", getK(), {2}, "rank 2 (H, Lk)")))
    return failure();
  ArrayRef<int64_t> u = shapeOf(getU());
  int64_t h = u[1];
  if (failed(checkShape(op, "K", getK(), {h, shapeOf(getK())[1]}, "(H, Lk)")))
    return failure();
  if (getD() && failed(checkShape(op, "D", getD(), {h}, "(H)")))
    return failure();
  return checkResultShape(op, "y", getY(), u, "the shape of 'u' (batch, H, L)");
}

//===----------------------------------------------------------------------===//
// causal_conv1d
//===----------------------------------------------------------------------===//

LogicalResult CausalConv1dOp::verify() {
  Operation *op = getOperation();
  if (failed(checkRank(op, "x", getX(), {3}, "rank 3 (batch, dim, L)")) ||
      failed(checkRank(op, "weight", getWeight(), {2}, "rank 2 (dim, width)")))
    return failure();
  ArrayRef<int64_t> x = shapeOf(getX());
  ArrayRef<int64_t> w = shapeOf(getWeight());
  if (w[1] != kDyn && (w[1] < 2 || w[1] > 4))
    return emitOpError() << "operand 'weight' has shape " << shapeString(w)
                         << ": width " << w[1] << " is outside 2..4";
  if (failed(checkShape(op, "weight", getWeight(), {x[1], w[1]}, "(dim, width)")))
    return failure();
  int64_t win = w[1] == kDyn ? kDyn : w[1] - 1;
  if (getBias() && failed(checkShape(op, "bias", getBias(), {x[1]}, "(dim)")))
    return failure();
  if (getInitialStates() &&
      failed(checkShape(op, "initial_states", getInitialStates(), {x[0], x[1], win},
                        "(batch, dim, width-1)")))
    return failure();
  if (failed(checkResultShape(op, "out", getOut(), x, "the shape of 'x' (batch, dim, L)")) ||
      failed(checkResultShape(op, "final_states", getFinalStates(), {x[0], x[1], win},
                              "(batch, dim, width-1)")))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// ssd_scan
//===----------------------------------------------------------------------===//

LogicalResult SsdScanOp::verify() {
  Operation *op = getOperation();
  if (failed(checkRank(op, "X", getX(), {4}, "rank 4 (batch, L, H, P)")) ||
      failed(checkRank(op, "B", getB(), {4}, "rank 4 (batch, L, G, N)")))
    return failure();
  ArrayRef<int64_t> x = shapeOf(getX());
  ArrayRef<int64_t> b = shapeOf(getB());
  int64_t batch = x[0], len = x[1], h = x[2], p = x[3], g = b[2], n = b[3];
  if (failed(checkShape(op, "B", getB(), {batch, len, g, n}, "(batch, L, G, N)")) ||
      failed(checkGroups(op, "B", g, h, "heads")) ||
      failed(checkShape(op, "C", getC(), {batch, len, g, n}, "(batch, L, G, N), the shape of 'B'")) ||
      failed(checkStateSize(op, "B", n)))
    return failure();
  if (failed(checkRank(op, "A", getA(), {3, 4}, "(batch, L, H) or (batch, L, H, N)")))
    return failure();
  if (shapeOf(getA()).size() == 3
          ? failed(checkShape(op, "A", getA(), {batch, len, h}, "(batch, L, H)"))
          : failed(checkShape(op, "A", getA(), {batch, len, h, n}, "(batch, L, H, N)")))
    return failure();
  if (getInitialState() &&
      failed(checkShape(op, "initial_state", getInitialState(), {batch, h, p, n},
                        "(batch, H, P, N)")))
    return failure();
  if (getBonus() && failed(checkShape(op, "bonus", getBonus(), {h, n}, "(H, N)")))
    return failure();
  // I64Attr's getter is unsigned: read it signed so that negative sizes are caught.
  int64_t chunk = static_cast<int64_t>(getChunkSize());
  if (chunk <= 0)
    return emitOpError() << "chunk_size must be positive, got " << chunk;
  if (failed(checkResultShape(op, "Y", getY(), x, "the shape of 'X' (batch, L, H, P)")) ||
      failed(checkResultShape(op, "final_state", getFinalState(), {batch, h, p, n},
                              "(batch, H, P, N)")))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// wkv4
//===----------------------------------------------------------------------===//

LogicalResult Wkv4Op::verify() {
  Operation *op = getOperation();
  if (failed(checkRank(op, "k", getK(), {3}, "rank 3 (batch, L, C)")))
    return failure();
  ArrayRef<int64_t> k = shapeOf(getK());
  int64_t batch = k[0], c = k[2];
  if (failed(checkSequenceLength(op, "k", 1, k[1])))
    return failure();
  if (failed(checkShape(op, "v", getV(), k, "the shape of 'k' (batch, L, C)")) ||
      failed(checkShape(op, "w", getW(), {c}, "(C)")) ||
      failed(checkShape(op, "u", getU(), {c}, "(C)")))
    return failure();
  int given = (getAa() ? 1 : 0) + (getBb() ? 1 : 0) + (getPp() ? 1 : 0);
  if (given != 0 && given != 3)
    return emitOpError() << "takes the state operands 'aa', 'bb' and 'pp' together: "
                         << given << " of 3 given";
  for (auto [name, v] : {std::pair<StringRef, Value>{"aa", getAa()}, {"bb", getBb()},
                         {"pp", getPp()}})
    if (v && failed(checkShape(op, name, v, {batch, c}, "(batch, C)")))
      return failure();
  if (failed(checkResultShape(op, "wkv", getWkv(), k, "the shape of 'k' (batch, L, C)")))
    return failure();
  for (auto [name, v] : {std::pair<StringRef, Value>{"aa_out", getAaOut()},
                         {"bb_out", getBbOut()}, {"pp_out", getPpOut()}})
    if (failed(checkResultShape(op, name, v, {batch, c}, "(batch, C)")))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// wkv7
//===----------------------------------------------------------------------===//

LogicalResult Wkv7Op::verify() {
  Operation *op = getOperation();
  if (failed(checkRank(op, "r", getR(), {4}, "rank 4 (batch, L, H, N)")))
    return failure();
  ArrayRef<int64_t> r = shapeOf(getR());
  int64_t batch = r[0], h = r[2], n = r[3];
  if (failed(checkSequenceLength(op, "r", 1, r[1])))
    return failure();
  for (auto [name, v] : {std::pair<StringRef, Value>{"w", getW()}, {"k", getK()}, {"v", getV()},
                         {"a", getA()}, {"b", getB()}})
    if (failed(checkShape(op, name, v, r, "the shape of 'r' (batch, L, H, N)")))
      return failure();
  if (getInitialState() &&
      failed(checkShape(op, "initial_state", getInitialState(), {batch, h, n, n},
                        "(batch, H, N, N)")))
    return failure();
  if (failed(checkResultShape(op, "y", getY(), r, "the shape of 'r' (batch, L, H, N)")) ||
      failed(checkResultShape(op, "final_state", getFinalState(), {batch, h, n, n},
                              "(batch, H, N, N)")))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// gated_delta_rule
//===----------------------------------------------------------------------===//

LogicalResult GatedDeltaRuleOp::verify() {
  Operation *op = getOperation();
  if (failed(checkRank(op, "q", getQ(), {4}, "rank 4 (batch, L, Hk, Dk)")) ||
      failed(checkRank(op, "v", getV(), {4}, "rank 4 (batch, L, Hv, Dv)")) ||
      failed(checkRank(op, "g", getG(), {3, 4},
                       "rank 3 (batch, L, Hv): one log decay per value head, or rank 4 "
                       "(batch, L, Hv, Dk): one per key channel")))
    return failure();
  ArrayRef<int64_t> q = shapeOf(getQ()), v = shapeOf(getV());
  int64_t batch = q[0], len = q[1], hk = q[2], dk = q[3], hv = v[2], dv = v[3];
  if (failed(checkSequenceLength(op, "q", 1, len)) ||
      failed(checkShape(op, "k", getK(), q, "the shape of 'q' (batch, L, Hk, Dk)")) ||
      failed(checkShape(op, "v", getV(), {batch, len, hv, dv}, "(batch, L, Hv, Dv)")))
    return failure();
  if (hk != kDyn && hv != kDyn && (hk <= 0 || hv % hk != 0))
    return emitOpError() << "operand 'v' has " << hv << " value heads, which is not a multiple of the "
                         << hk << " key heads of 'q' and 'k' (key head i serves value heads i*r .. "
                            "i*r+r-1)";
  if (dk == 0)
    return emitOpError() << "operand 'q' has key head size Dk = 0; the state (Dk, Dv) needs at "
                            "least one key row";
  if (shapeOf(getG()).size() == 3) {
    if (failed(checkShape(op, "g", getG(), {batch, len, hv},
                          "(batch, L, Hv) (one log decay per value head per token)")))
      return failure();
  } else if (failed(checkShape(op, "g", getG(), {batch, len, hv, dk},
                               "(batch, L, Hv, Dk) (one log decay per key channel per token)"))) {
    return failure();
  }
  if (failed(checkShape(op, "beta", getBeta(), {batch, len, hv}, "(batch, L, Hv)")))
    return failure();
  if (getInitialState() &&
      failed(checkShape(op, "initial_state", getInitialState(), {batch, hv, dk, dv},
                        "(batch, Hv, Dk, Dv)")))
    return failure();
  double scale = getScale().convertToDouble();
  if (!(scale > 0.0) || std::isinf(scale))
    return emitOpError() << "'scale' is " << scale << " but must be positive and finite";
  if (failed(checkResultShape(op, "out", getOut(), {batch, len, hv, dv}, "(batch, L, Hv, Dv)")) ||
      failed(checkResultShape(op, "final_state", getFinalState(), {batch, hv, dk, dv},
                              "(batch, Hv, Dk, Dv)")))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// dequantize
//===----------------------------------------------------------------------===//

LogicalResult DequantizeOp::verify() {
  Operation *op = getOperation();
  Type elem = cast<RankedTensorType>(getInput().getType()).getElementType();
  ArrayRef<int64_t> in = shapeOf(getInput());
  if (elem.isInteger(8)) {
    if (!getScale())
      return emitOpError() << "an i8 'input' needs a 'scale' operand (one per block of "
                           << getBlockSize() << " along the last dim)"
                           << (getMin() ? "; 'min' alone is not enough" : "");
    if (in.empty())
      return emitOpError() << "an i8 'input' must have rank 1 or more, got a rank-0 tensor";
    if (getBlockSize() < 1)
      return emitOpError() << "'block_size' must be positive, got " << getBlockSize();
    SmallVector<int64_t> want(in.begin(), in.end());
    if (!ShapedType::isDynamic(want.back()))
      want.back() = (want.back() + getBlockSize() - 1) / getBlockSize();
    if (failed(checkShape(op, "scale", getScale(), want,
                          "the shape of 'input' with its last dim in blocks of block_size")))
      return failure();
    if (getMin() && failed(checkShape(op, "min", getMin(), want,
                                      "the shape of 'scale' (one min per block of block_size)")))
      return failure();
  } else if (getMin() && !getScale()) {
    return emitOpError() << "'min' needs an i8 'input' with a 'scale' (w = q * scale - min)";
  } else if (getScale()) {
    return emitOpError() << "'scale' applies to an i8 'input' only; a " << elem
                         << " 'input' is widened without one";
  }
  return checkResultShape(op, "result", getResult(), in, "the shape of 'input'");
}

//===----------------------------------------------------------------------===//
// quantize_activations
//===----------------------------------------------------------------------===//

LogicalResult QuantizeActivationsOp::verify() {
  int64_t block = activationQuantBlock(getFormat());
  if (block < 0)
    return emitOpError() << "'format' is '" << getFormat()
                         << "' but must be one of q8_0, q8_1, q8_K, f16, bf16";
  ArrayRef<int64_t> in = shapeOf(getInput());
  if (in.empty())
    return emitOpError() << "'input' must have rank 1 or more (rows along its last dim), got a "
                            "rank-0 tensor";
  if (block > 0 && !ShapedType::isDynamic(in.back()) && in.back() % block != 0)
    return emitOpError() << "'input' has a last dim of " << in.back() << ", not a multiple of "
                         << block << " (the blocks of " << getFormat() << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// rope
//===----------------------------------------------------------------------===//

LogicalResult RopeOp::verify() {
  Operation *op = getOperation();
  if (failed(checkRank(op, "x", getX(), {4}, "rank 4 (batch, L, H, D)")))
    return failure();
  ArrayRef<int64_t> x = shapeOf(getX());
  if (failed(checkShape(op, "position", getPosition(), {x[0]}, "(batch)")))
    return failure();
  int64_t r = static_cast<int64_t>(getRotaryDim()), d = x[3];
  if (r <= 0 || r % 2 != 0 || (d != kDyn && r > d))
    return emitOpError() << "'rotary_dim' is " << r
                         << " but must be even and in 1 .. D = " << (d == kDyn ? -1 : d)
                         << " (the channels that rotate, in pairs)";
  if (!(getTheta().convertToDouble() > 0.0))
    return emitOpError() << "'theta' is " << getTheta().convertToDouble()
                         << " but must be positive (the base of the rotary frequencies)";
  return success();
}

//===----------------------------------------------------------------------===//
// attention
//===----------------------------------------------------------------------===//

LogicalResult AttentionOp::verify() {
  Operation *op = getOperation();
  if (failed(checkRank(op, "q", getQ(), {4}, "rank 4 (batch, L, H, D)")) ||
      failed(checkRank(op, "k", getK(), {4}, "rank 4 (batch, L, Hkv, D)")) ||
      failed(checkRank(op, "v", getV(), {4}, "rank 4 (batch, L, Hkv, Dv)")) ||
      failed(checkRank(op, "k_cache", getKCache(), {4}, "rank 4 (batch, C, Hkv, D)")))
    return failure();
  ArrayRef<int64_t> q = shapeOf(getQ()), k = shapeOf(getK()), v = shapeOf(getV()),
                    kc = shapeOf(getKCache());
  int64_t batch = q[0], len = q[1], heads = q[2], d = q[3], hkv = k[2], dv = v[3], cap = kc[1];
  if (failed(checkSequenceLength(op, "q", 1, len)) ||
      failed(checkShape(op, "k", getK(), {batch, len, hkv, d}, "(batch, L, Hkv, D)")) ||
      failed(checkShape(op, "v", getV(), {batch, len, hkv, dv}, "(batch, L, Hkv, Dv)")) ||
      failed(checkShape(op, "k_cache", getKCache(), {batch, cap, hkv, d}, "(batch, C, Hkv, D)")) ||
      failed(checkShape(op, "v_cache", getVCache(), {batch, cap, hkv, dv},
                        "(batch, C, Hkv, Dv)")) ||
      failed(checkShape(op, "position", getPosition(), {batch}, "(batch)")))
    return failure();
  if (heads != kDyn && hkv != kDyn && (hkv <= 0 || heads % hkv != 0))
    return emitOpError() << "operand 'q' has " << heads << " heads, which is not a multiple of the "
                         << hkv << " KV heads of 'k' (grouped-query attention)";
  if (len != kDyn && cap != kDyn && len > cap)
    return emitOpError() << "operand 'q' has " << len << " tokens but the caches hold only C = "
                         << cap << " positions";
  if (static_cast<int64_t>(getWindow()) < 0)
    return emitOpError() << "'window' is " << static_cast<int64_t>(getWindow())
                         << " but must be 0 (no sliding window) or positive";
  if (!(getScale().convertToDouble() > 0.0) || std::isinf(getScale().convertToDouble()))
    return emitOpError() << "'scale' is " << getScale().convertToDouble()
                         << " but must be positive and finite";
  if (failed(checkResultShape(op, "out", getOut(), {batch, len, heads, dv},
                              "(batch, L, H, Dv)")) ||
      failed(checkResultShape(op, "k_cache_new", getKCacheNew(), kc, "the shape of 'k_cache'")) ||
      failed(checkResultShape(op, "v_cache_new", getVCacheNew(), shapeOf(getVCache()),
                              "the shape of 'v_cache'")))
    return failure();
  return success();
}
