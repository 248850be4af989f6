// Self-attention with a KV cache and the SwiGLU feed-forward (import/layers/Attention.h).
#include "import/layers/Attention.h"
#include "import/layers/Layers.h"

#include <cstdio>

namespace ssm::importer::layers {

using graph::BlockScope;
using Body = GenericBody;

namespace {

std::string f64(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos)
    s += ".0";
  return s + " : f64";
}

/// RMSNorm over the last dim of x (rows, heads, D) with weight offset + w (D).
TValue headNorm(MlirEmitter &e, const TValue &x, const TValue &w, double eps, double offset,
                const std::string &hint) {
  // Each head divided by s = max(1, max |x|) first (lastDimScale): a head
  // past 1.8e19 (extreme projection weights) normalizes as the reference
  // does instead of to zeros; heads within 1 compute the plain formula.
  const int64_t d = x.shape[2];
  TValue inv = lastDimScale(e, {x, {}}, x.shape, hint);
  TValue ss = e.reduceLast(hint + "_sumsq", {{x, {}}, {inv, {"d0", "d1"}}}, x.shape, [](Body &b) {
    std::string v = b.mul(b.arg(0), b.arg(1));
    return b.mul(v, v);
  });
  return e.map(hint, {{x, {}}, {ss, {"d0", "d1"}}, {w, {"d2"}}, {inv, {"d0", "d1"}}}, x.shape,
               [&](Body &b) {
                 std::string mean = b.div(b.arg(1), b.cst(double(d)));
                 std::string epsScaled = b.mul(b.mul(b.cst(eps), b.arg(3)), b.arg(3));
                 std::string wv = offset != 0.0 ? b.add(b.arg(2), b.cst(offset)) : b.arg(2);
                 return b.mul(b.mul(b.mul(b.arg(0), b.arg(3)), rsqrt(b, b.add(mean, epsScaled))),
                              wv);
               });
}

TValue project(BlockScope &s, const TValue &x, const std::string &w, bool bias,
               const std::string &hint) {
  TValue y = s.e.linear(x, s.param(w), hint);
  if (!bias)
    return y;
  std::string b = w.substr(0, w.size() - std::string("weight").size()) + "bias";
  return s.e.map(hint + "_b", {{y, {}}, {s.param(b), {"d1"}}}, y.shape,
                 [](Body &bd) { return bd.add(bd.arg(0), bd.arg(1)); });
}

} // namespace

std::vector<graph::TensorDecl> attentionParams(const AttentionConfig &c, int64_t width) {
  const int64_t qRows = c.heads * c.headDim * (c.outputGate ? 2 : 1);
  std::vector<graph::TensorDecl> p = {{c.q, {qRows, width}},
                                      {c.k, {c.kvHeads * c.headDim, width}},
                                      {c.v, {c.kvHeads * c.valueDim, width}},
                                      {c.o, {width, c.heads * c.valueDim}}};
  if (c.bias) {
    auto biasOf = [](const std::string &w) {
      return w.substr(0, w.size() - std::string("weight").size()) + "bias";
    };
    p.push_back({biasOf(c.q), {qRows}});
    p.push_back({biasOf(c.k), {c.kvHeads * c.headDim}});
    p.push_back({biasOf(c.v), {c.kvHeads * c.valueDim}});
    p.push_back({biasOf(c.o), {width}});
  }
  if (c.qkNorm) {
    p.push_back({c.qNorm, {c.headDim}});
    p.push_back({c.kNorm, {c.headDim}});
  }
  return p;
}

std::vector<graph::TensorDecl> attentionStates(const AttentionConfig &c) {
  return {{"k_cache", {c.capacity, c.kvHeads, c.headDim}},
          {"v_cache", {c.capacity, c.kvHeads, c.valueDim}}};
}

TValue attention(BlockScope &s, const AttentionConfig &c, const TValue &x) {
  MlirEmitter &e = s.e;
  const int64_t rows = x.shape[0], H = c.heads, G = c.kvHeads, D = c.headDim, Dv = c.valueDim;
  // The op's (streams, tokens): (1, rows) for a sequence or a step, (rows, 1)
  // batched, (streams, T) in the batched sequence (rows stream-major).
  const int64_t nb = s.form.streams(), len = rows / nb;
  e.line("// Attention: q, k, v projections (" + std::to_string(H) + " query heads, " +
         std::to_string(G) + " KV heads of " + std::to_string(D) + ").");
  TValue q, gate;
  if (c.outputGate) {
    e.line("// The query projection holds a query and an output gate per head: [q (D) | gate (D)].");
    TValue qg = e.expand(project(s, x, c.q, c.bias, "q_gate"), {{0}, {1, 2}}, {rows, H, 2 * D},
                         "q_gate_heads");
    q = e.slice(qg, {0, 0, 0}, {rows, H, D}, {rows, H, D}, "q_heads");
    gate = e.collapse(e.slice(qg, {0, 0, D}, {rows, H, D}, {rows, H, D}, "gate_heads"),
                      {{0}, {1, 2}}, {rows, H * D}, "gate");
  } else {
    q = e.expand(project(s, x, c.q, c.bias, "q"), {{0}, {1, 2}}, {rows, H, D}, "q_heads");
  }
  TValue k = e.expand(project(s, x, c.k, c.bias, "k"), {{0}, {1, 2}}, {rows, G, D}, "k_heads");
  TValue v = e.expand(project(s, x, c.v, c.bias, "v"), {{0}, {1, 2}}, {rows, G, Dv}, "v_heads");
  if (c.qkNorm) {
    e.line("// Per-head RMSNorm of q and k.");
    q = headNorm(e, q, s.param(c.qNorm), c.normEpsilon, c.normWeightOffset, "q_normed");
    k = headNorm(e, k, s.param(c.kNorm), c.normEpsilon, c.normWeightOffset, "k_normed");
  }
  TValue q4 = e.expand(q, {{0, 1}, {2}, {3}}, {nb, len, H, D}, "q4");
  TValue k4 = e.expand(k, {{0, 1}, {2}, {3}}, {nb, len, G, D}, "k4");
  TValue v4 = e.expand(v, {{0, 1}, {2}, {3}}, {nb, len, G, Dv}, "v4");
  const std::string posType = tensorType(s.position.shape, "i32");
  if (c.rope) {
    e.line("// Rotary embedding (" + std::string(c.ropeNeox ? "neox" : "normal") +
           " pairing, theta " + std::to_string(c.ropeTheta) + ") at the stream's positions.");
    for (TValue *t : {&q4, &k4}) {
      TValue r{e.fresh(t == &q4 ? "q_rope" : "k_rope"), t->shape};
      e.line(r.name + " = ssm.rope " + (c.ropeNeox ? "neox " : "normal ") + t->name + ", " +
             s.position.name + " {theta = " + f64(c.ropeTheta) +
             ", rotary_dim = " + std::to_string(c.rotaryDim) + " : i64} : (" +
             tensorType(t->shape) + ", " + posType + ") -> " + tensorType(r.shape));
      *t = r;
    }
  }
  const TValue &kc = s.state("k_cache"), &vc = s.state("v_cache");
  TValue kc4 = s.form.hasBatchDim() ? kc : e.expand(kc, {{0, 1}, {2}, {3}}, {1, c.capacity, G, D}, "k_cache4");
  TValue vc4 = s.form.hasBatchDim() ? vc : e.expand(vc, {{0, 1}, {2}, {3}}, {1, c.capacity, G, Dv}, "v_cache4");
  TValue o{e.fresh("attn"), {nb, len, H, Dv}}, kn{e.fresh("k_cache_new"), kc4.shape},
      vn{e.fresh("v_cache_new"), vc4.shape};
  std::string attrs = "{scale = " + f64(c.scale);
  if (c.window > 0)
    attrs += ", window = " + std::to_string(c.window) + " : i64";
  attrs += "}";
  e.line(o.name + ", " + kn.name + ", " + vn.name + " = ssm.attention " + q4.name + ", " +
         k4.name + ", " + v4.name + ", " + kc4.name + ", " + vc4.name + ", " + s.position.name +
         " " + attrs + " : (" + tensorType(q4.shape) + ", " + tensorType(k4.shape) + ", " +
         tensorType(v4.shape) + ", " + tensorType(kc4.shape) + ", " + tensorType(vc4.shape) +
         ", " + posType + ") -> (" + tensorType(o.shape) + ", " + tensorType(kn.shape) + ", " +
         tensorType(vn.shape) + ")");
  if (s.form.hasBatchDim()) {
    s.newStates.push_back(kn);
    s.newStates.push_back(vn);
  } else {
    s.newStates.push_back(e.collapse(kn, {{0, 1}, {2}, {3}}, kc.shape, "k_cache_out"));
    s.newStates.push_back(e.collapse(vn, {{0, 1}, {2}, {3}}, vc.shape, "v_cache_out"));
  }
  TValue flat = e.collapse(o, {{0, 1}, {2, 3}}, {rows, H * Dv}, "attn_flat");
  if (c.outputGate) {
    e.line("// The attention output times sigmoid(gate).");
    flat = e.map("attn_gated", {{flat, {}}, {gate, {}}}, flat.shape,
                 [](Body &b) { return b.mul(b.arg(0), b.sigmoid(b.arg(1))); });
  }
  return project(s, flat, c.o, c.bias, "attn_out");
}

TValue swiglu(BlockScope &s, const TValue &x, const std::string &gate, const std::string &up,
              const std::string &down, const TValue *addTo) {
  MlirEmitter &e = s.e;
  const int64_t rows = x.shape[0];
  TValue g, u;
  if (up.empty()) {
    TValue gu = e.linear(x, s.param(gate), "gate_up");
    const int64_t F = gu.shape[1] / 2;
    g = e.slice(gu, {0, 0}, {rows, F}, {rows, F}, "gate");
    u = e.slice(gu, {0, F}, {rows, F}, {rows, F}, "up");
  } else {
    g = e.linear(x, s.param(gate), "gate");
    u = e.linear(x, s.param(up), "up");
  }
  TValue a = e.map("swiglu", {{g, {}}, {u, {}}}, g.shape,
                   [](Body &b) { return b.mul(silu(b, b.arg(0)), b.arg(1)); });
  return e.linear(a, s.param(down), addTo ? "h_ffn" : "ffn_out", addTo);
}

} // namespace ssm::importer::layers
