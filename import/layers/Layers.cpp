// The layer library of the model graphs (see Layers.h).
#include "import/layers/Layers.h"

namespace ssm::importer::layers {

using Body = GenericBody;

TValue embedding(MlirEmitter &e, const TValue &tokens, const TValue &table,
                 const std::string &hint) {
  const int64_t rows = tokens.shape[0], width = table.shape[1];
  return e.generic(hint, {{tokens, {"d0"}}}, {rows, width}, {"d0", "d1"},
                   {"parallel", "parallel"}, [&](Body &b) {
                     std::string i = b.fresh("tok_index");
                     b.raw(i + " = arith.index_cast " + b.arg(0) + " : i32 to index");
                     std::string j = b.index(1);
                     std::string v = b.fresh("emb_value");
                     b.raw(v + " = tensor.extract " + table.name + "[" + i + ", " + j + "] : " +
                           tensorType(table.shape));
                     return v;
                   });
}

TValue lastDimScale(MlirEmitter &e, const GenericOperand &x, const std::vector<int64_t> &shape,
                    const std::string &hint) {
  const size_t r = shape.size();
  std::vector<std::string> loops, outMap, iterators;
  for (size_t i = 0; i < r; ++i) {
    loops.push_back("d" + std::to_string(i));
    iterators.push_back(i + 1 < r ? "parallel" : "reduction");
  }
  outMap.assign(loops.begin(), loops.end() - 1);
  std::vector<int64_t> outShape(shape.begin(), shape.end() - 1);
  TValue amaxInit = e.zeros(outShape, hint + "_amax_zero");
  TValue amax = e.generic(hint + "_amax", {{x.value, x.map.empty() ? loops : x.map}}, outShape,
                          outMap, iterators,
                          [](Body &b) { return b.max(b.arg(1), b.max(b.arg(0), b.neg(b.arg(0)))); },
                          &amaxInit);
  return e.map(hint + "_inv", {{amax, {}}}, outShape, [](Body &b) {
    return b.div(b.cst(1.0), b.max(b.arg(0), b.cst(1.0)));
  });
}

namespace {
/// lastDimScale of the rows of x (rows, cols).
TValue rowScale(MlirEmitter &e, const TValue &x, const std::string &hint) {
  return lastDimScale(e, {x, {}}, x.shape, hint);
}
} // namespace

TValue rmsNorm(MlirEmitter &e, const TValue &x, const TValue &w, double eps,
               const std::string &hint, double weightOffset) {
  // A scaled sum of squares: each row is divided by s = max(1, max |x|)
  // first, so a row past 1.8e19 (whose squares overflow float32; an
  // embedding row of 1e30) normalizes as the float64 reference does, and
  // x * rsqrt(mean(x^2) + eps) = (x / s) * rsqrt(mean((x / s)^2) + eps / s^2).
  // For rows within 1 (s = 1) every product is the unscaled one, bit for bit.
  const int64_t cols = x.shape[1];
  TValue inv = rowScale(e, x, hint);
  TValue ss = e.reduceLast(hint + "_sumsq", {{x, {}}, {inv, {"d0"}}}, x.shape, [](Body &b) {
    std::string v = b.mul(b.arg(0), b.arg(1));
    return b.mul(v, v);
  });
  return e.map(hint, {{x, {}}, {ss, {"d0"}}, {w, {"d1"}}, {inv, {"d0"}}}, x.shape, [&](Body &b) {
    std::string mean = b.div(b.arg(1), b.cst(double(cols)));
    std::string epsScaled = b.mul(b.mul(b.cst(eps), b.arg(3)), b.arg(3));
    std::string r = rsqrt(b, b.add(mean, epsScaled));
    std::string wv = weightOffset != 0.0 ? b.add(b.arg(2), b.cst(weightOffset)) : b.arg(2);
    return b.mul(b.mul(b.mul(b.arg(0), b.arg(3)), r), wv);
  });
}

TValue layerNorm(MlirEmitter &e, const TValue &x, const TValue &w, const TValue &b, double eps,
                 const std::string &hint) {
  // Biased variance, eps inside the square root, then weight and bias; on
  // the row divided by s = max(1, max |x|) (rowScale), as rmsNorm:
  // (x - mean) / sqrt(var + eps) = (x/s - mean/s) / sqrt(var/s^2 + eps/s^2).
  // A row of 1e30 (an embedding row: RWKV's ln0), whose squares overflow
  // float32, normalized to the bias alone without it. Rows within 1 (s = 1)
  // compute exactly the plain formula. The denominator is kept >= the least
  // normal float, so a constant row past 1 (var 0, eps/s^2 flushed to 0)
  // gives the bias, as the reference does, not 0/0.
  const int64_t n = x.shape[1];
  TValue wv = e.flatten(w, hint + "_w");
  TValue bv = e.flatten(b, hint + "_b");
  TValue inv = rowScale(e, x, hint);
  TValue sum = e.reduceLast(hint + "_sum", {{x, {}}, {inv, {"d0"}}}, x.shape,
                            [&](Body &bd) { return bd.mul(bd.arg(0), bd.arg(1)); });
  TValue sq = e.reduceLast(hint + "_sq", {{x, {}}, {sum, {"d0"}}, {inv, {"d0"}}}, x.shape,
                           [&](Body &bd) {
                             std::string d = bd.sub(bd.mul(bd.arg(0), bd.arg(2)),
                                                    bd.div(bd.arg(1), bd.cst(double(n))));
                             return bd.mul(d, d);
                           });
  return e.map(hint, {{x, {}}, {sum, {"d0"}}, {sq, {"d0"}}, {wv, {"d1"}}, {bv, {"d1"}}, {inv, {"d0"}}},
               x.shape, [&](Body &bd) {
                 std::string nn = bd.cst(double(n));
                 std::string mean = bd.div(bd.arg(1), nn);
                 std::string var = bd.div(bd.arg(2), nn);
                 std::string epsScaled = bd.mul(bd.mul(bd.cst(eps), bd.arg(5)), bd.arg(5));
                 std::string den =
                     bd.sqrt(bd.max(bd.add(var, epsScaled), bd.cst(1.1754943508222875e-38)));
                 std::string y = bd.div(bd.sub(bd.mul(bd.arg(0), bd.arg(5)), mean), den);
                 return bd.add(bd.mul(y, bd.arg(3)), bd.arg(4));
               });
}

TValue transpose(MlirEmitter &e, const TValue &x, const std::string &hint) {
  return e.map(hint, {{x, {"d1", "d0"}}}, {x.shape[1], x.shape[0]},
               [](Body &b) { return b.arg(0); });
}

ShortConv shortConv(MlirEmitter &e, const graph::Form &form, const TValue &x,
                    const TValue &weight, const TValue *bias, const TValue &window, bool silu) {
  const int64_t rows = x.shape[0], C = x.shape[1], W = weight.shape[2];
  const bool step = form.step() || form.batched(), seqs = form.batchedSequence();
  // The op's (batch, channels, length): (1, C, rows), (rows, C, 1) stepping,
  // (streams, C, T) in the batched sequence (rows stream-major).
  const int64_t nb = step ? rows : seqs ? form.batch : 1,
                len = step ? 1 : seqs ? form.length : rows;
  TValue xc;
  if (seqs)
    xc = e.map("conv_in", {{e.expand(x, {{0, 1}, {2}}, {nb, len, C}, "conv_in3"), {"d0", "d2", "d1"}}},
               {nb, C, len}, [](GenericBody &b) { return b.arg(0); });
  else
    xc = step ? e.expand(x, {{0}, {1, 2}}, {nb, C, 1}, "conv_in")
              : e.expand(transpose(e, x, "conv_in_t"), {{0, 1}, {2}}, {1, C, rows}, "conv_in");
  TValue cw = e.collapse(weight, {{0, 1}, {2}}, {C, W}, "conv_w");
  TValue w0 = form.hasBatchDim()
                  ? window
                  : e.expand(window, {{0, 1}, {2}}, {1, C, W - 1}, "conv_window");
  TValue conv{e.fresh("conv"), {nb, C, len}}, final{e.fresh("conv_final"), {nb, C, W - 1}};
  std::string line = conv.name + ", " + final.name + " = ssm.causal_conv1d " + (silu ? "silu " : "identity ") + xc.name +
                     ", " + cw.name;
  std::string types = tensorType(xc.shape) + ", " + tensorType(cw.shape);
  if (bias) {
    line += " bias(" + bias->name + ")";
    types += ", " + tensorType(bias->shape);
  }
  e.line(line + " initial_states(" + w0.name + ") : (" + types + ", " + tensorType(w0.shape) +
         ") -> (" + tensorType(conv.shape) + ", " + tensorType(final.shape) + ")");
  ShortConv out;
  out.window = form.hasBatchDim()
                   ? final
                   : e.collapse(final, {{0, 1}, {2}}, {C, W - 1}, "conv_state_new");
  if (seqs)
    out.y = e.collapse(e.map("conv_out3", {{conv, {"d0", "d2", "d1"}}}, {nb, len, C},
                             [](GenericBody &b) { return b.arg(0); }),
                       {{0, 1}, {2}}, {rows, C}, "conv_out");
  else
    out.y = step ? e.collapse(conv, {{0}, {1, 2}}, {nb, C}, "conv_out")
                 : transpose(e, e.collapse(conv, {{0, 1}, {2}}, {C, rows}, "conv_cm"), "conv_out");
  return out;
}

std::string rsqrt(Body &b, const std::string &v) {
  std::string r = b.fresh("rsqrt");
  b.raw(r + " = math.rsqrt " + v + " : f32");
  return r;
}

std::string silu(Body &b, const std::string &v) { return b.mul(v, b.sigmoid(v)); }

std::string softplus(Body &b, const std::string &v) {
  std::string absV = b.fresh("abs");
  b.raw(absV + " = math.absf " + v + " : f32");
  std::string e = b.exp(b.neg(absV));
  std::string l = b.fresh("log1p");
  b.raw(l + " = math.log1p " + e + " : f32");
  return b.add(b.max(v, b.cst(0.0)), l);
}

} // namespace ssm::importer::layers
