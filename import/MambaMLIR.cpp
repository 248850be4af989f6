// The Mamba-1 model graph as MLIR text: @forward_sequence (prefill, selective scan), @forward_step (decode) and optionally @forward_step_batched (decode of B streams at once).
//
// The structure follows examples/mamba1_block_130m.mlir (transformers'
// MambaBlock: RMSNorm, in_proj split into x and z, causal conv + silu,
// x_proj into (dt, B, C), dt_proj, the selective scan with D, silu(z) and
// softplus(dt + dt_proj.bias), out_proj, residual), with the embedding
// lookup in front, norm_f and lm_head behind, and the per-layer conv and
// SSM states threaded through as function arguments and results. The decode
// form runs the same conv op on one token with the carried window as
// initial_states (its final_states is the updated window) and the SSM
// step as ssm.selective_update. The batched decode form is the decode form
// with B rows instead of one (B streams, one token each): the matmuls read
// each weight once for the B rows, and the conv and SSM states carry a
// leading batch dim B (the ops' own batch dim).
//
// Text rather than builder calls: the importer then needs no MLIR context,
// and the output reads like the hand-written examples. Tests parse and verify
// it with ssm-opt.
#include "import/MambaModel.h"

#include <cmath>
#include <cstdio>
#include <cctype>
#include <cstdlib>
#include <map>
#include <sstream>

namespace ssm::importer {

namespace {

using Shape = std::vector<int64_t>;

std::string tensorType(const Shape &shape, const char *elem = "f32") {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + elem + ">";
}

std::string shapeList(const Shape &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

/// An f32 literal MLIR parses back to the same float: shortest round trip,
/// always with a '.' in the mantissa (MLIR's float literal needs one).
std::string f32Literal(double v) {
  float f = float(v);
  char buf[64];
  if (std::fabs(f) < 1e7f && std::floor(f) == f) {
    std::snprintf(buf, sizeof buf, "%.1f", double(f));
    return buf;
  }
  for (int prec = 1; prec <= 9; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*e", prec, double(f));
    if (float(std::strtod(buf, nullptr)) == f)
      break;
  }
  return buf;
}

/// A value in the graph: its SSA name and its tensor shape.
struct Val {
  std::string name;
  Shape shape;
  std::string type() const { return tensorType(shape); }
};

class Writer {
public:
  explicit Writer(const MambaConfig &c) : cfg(c) {}

  std::ostringstream os;

  std::string fresh(const std::string &base) {
    return "%" + prefix + base + std::to_string(counter++);
  }
  void setPrefix(const std::string &p) { prefix = p; }

  Val empty(const Shape &shape) {
    Val v{fresh("e"), shape};
    os << "  " << v.name << " = tensor.empty() : " << v.type() << "\n";
    return v;
  }

  Val zeros(const Shape &shape) {
    Val e = empty(shape);
    Val v{fresh("z"), shape};
    os << "  " << v.name << " = linalg.fill ins(%zero : f32) outs(" << e.name << " : "
       << e.type() << ") -> " << v.type() << "\n";
    return v;
  }

  /// RMSNorm over the last dim of (rows, cols): x * rsqrt(mean(x^2) + eps) * w.
  Val rmsNorm(const Val &x, const Val &w) {
    int64_t rows = x.shape[0], cols = x.shape[1];
    Val acc = zeros({rows});
    Val ss{fresh("sumsq"), {rows}};
    os << "  " << ss.name << " = linalg.generic {indexing_maps = [#rows, #row], "
       << "iterator_types = [\"parallel\", \"reduction\"]}\n"
       << "      ins(" << x.name << " : " << x.type() << ") outs(" << acc.name << " : "
       << acc.type() << ") {\n"
       << "  ^bb0(%v: f32, %acc: f32):\n"
       << "    %sq = arith.mulf %v, %v : f32\n"
       << "    %s = arith.addf %acc, %sq : f32\n"
       << "    linalg.yield %s : f32\n"
       << "  } -> " << ss.type() << "\n";
    Val init = empty(x.shape);
    Val y{fresh("normed"), x.shape};
    os << "  " << y.name << " = linalg.generic {indexing_maps = [#rows, #row, #col, #rows], "
       << "iterator_types = [\"parallel\", \"parallel\"]}\n"
       << "      ins(" << x.name << ", " << ss.name << ", " << w.name << " : " << x.type()
       << ", " << ss.type() << ", " << w.type() << ") outs(" << init.name << " : "
       << init.type() << ") {\n"
       << "  ^bb0(%v: f32, %s: f32, %w: f32, %o: f32):\n"
       << "    %n = arith.constant " << f32Literal(double(cols)) << " : f32\n"
       << "    %eps = arith.constant " << f32Literal(cfg.layerNormEpsilon) << " : f32\n"
       << "    %mean = arith.divf %s, %n : f32\n"
       << "    %me = arith.addf %mean, %eps : f32\n"
       << "    %r = math.rsqrt %me : f32\n"
       << "    %vn = arith.mulf %v, %r : f32\n"
       << "    %y = arith.mulf %vn, %w : f32\n"
       << "    linalg.yield %y : f32\n"
       << "  } -> " << y.type() << "\n";
    return y;
  }

  /// a (M, K) times w (N, K) transposed, accumulated into `init` (M, N), or
  /// into zeros when `init` is null: nn.Linear without its bias.
  Val linear(const Val &a, const Val &w, const Val *init = nullptr) {
    Shape shape{a.shape[0], w.shape[0]};
    Val acc = init ? *init : zeros(shape);
    Val y{fresh("mm"), shape};
    os << "  " << y.name << " = linalg.matmul_transpose_b ins(" << a.name << ", " << w.name
       << " : " << a.type() << ", " << w.type() << ")\n"
       << "      outs(" << acc.name << " : " << acc.type() << ") -> " << y.type() << "\n";
    return y;
  }

  /// x (M, N) + b (N) broadcast over rows.
  Val addBias(const Val &x, const Val &b) {
    Val init = empty(x.shape);
    Val y{fresh("biased"), x.shape};
    os << "  " << y.name << " = linalg.generic {indexing_maps = [#rows, #col, #rows], "
       << "iterator_types = [\"parallel\", \"parallel\"]}\n"
       << "      ins(" << x.name << ", " << b.name << " : " << x.type() << ", " << b.type()
       << ") outs(" << init.name << " : " << init.type() << ") {\n"
       << "  ^bb0(%a: f32, %b: f32, %o: f32):\n"
       << "    %s = arith.addf %a, %b : f32\n"
       << "    linalg.yield %s : f32\n"
       << "  } -> " << y.type() << "\n";
    return y;
  }

  /// Columns [col, col + width) of a rank-2 value.
  Val columns(const Val &x, int64_t col, int64_t width, const std::string &base) {
    Val y{fresh(base), {x.shape[0], width}};
    os << "  " << y.name << " = tensor.extract_slice " << x.name << "[0, " << col << "] ["
       << x.shape[0] << ", " << width << "] [1, 1] : " << x.type() << " to " << y.type()
       << "\n";
    return y;
  }

  Val transpose(const Val &x) {
    Shape shape{x.shape[1], x.shape[0]};
    Val init = empty(shape);
    Val y{fresh("t"), shape};
    os << "  " << y.name << " = linalg.transpose ins(" << x.name << " : " << x.type()
       << ") outs(" << init.name << " : " << init.type() << ") permutation = [1, 0]\n";
    return y;
  }

  Val reshape(const Val &x, const Shape &shape, const std::string &groups,
              const std::string &base = "") {
    bool expanding = shape.size() > x.shape.size();
    Val y{fresh(!base.empty() ? base : expanding ? "ex" : "co"), shape};
    if (expanding)
      os << "  " << y.name << " = tensor.expand_shape " << x.name << " " << groups
         << " output_shape " << shapeList(shape) << " : " << x.type() << " into " << y.type()
         << "\n";
    else
      os << "  " << y.name << " = tensor.collapse_shape " << x.name << " " << groups << " : "
         << x.type() << " into " << y.type() << "\n";
    return y;
  }

  /// Embedding lookup: out[i, j] = table[tokens[i], j].
  Val embed(const Val &tokens, const Val &table) {
    Shape shape{tokens.shape[0], table.shape[1]};
    Val init = empty(shape);
    Val y{fresh("embedded"), shape};
    os << "  " << y.name << " = linalg.generic {indexing_maps = [#row, #rows], "
       << "iterator_types = [\"parallel\", \"parallel\"]}\n"
       << "      ins(" << tokens.name << " : " << tensorType(tokens.shape, "i32") << ") outs("
       << init.name << " : " << init.type() << ") {\n"
       << "  ^bb0(%tok: i32, %o: f32):\n"
       << "    %i = arith.index_cast %tok : i32 to index\n"
       << "    %j = linalg.index 1 : index\n"
       << "    %v = tensor.extract " << table.name << "[%i, %j] : " << table.type() << "\n"
       << "    linalg.yield %v : f32\n"
       << "  } -> " << y.type() << "\n";
    return y;
  }

private:
  const MambaConfig &cfg;
  std::string prefix;
  int counter = 0;
};

/// SSA names of the function arguments: tokens, states, weights.
std::string paramSsaName(const std::string &hfName) {
  std::string s = "%";
  std::string n = hfName;
  for (const char *strip : {"backbone.", "mixer."})
    for (size_t p; (p = n.find(strip)) != std::string::npos;)
      n.erase(p, std::string(strip).size());
  if (n.rfind("layers.", 0) == 0)
    n = "l" + n.substr(7);
  for (char ch : n)
    s += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') ? ch : '_';
  return s;
}

std::string stateSsaName(const std::string &stateName) {
  std::string s = "%";
  std::string n = stateName.rfind("layers.", 0) == 0 ? "l" + stateName.substr(7) : stateName;
  for (char ch : n)
    s += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') ? ch : '_';
  return s;
}

/// One Mamba block on the residual stream `h` (L, d_model): `p` holds the
/// block's weights under their Hugging Face names with prefix `pre`;
/// appends the new conv window and SSM state (state shapes) to `stateOut`.
///
/// `batch` > 0 is the batched decode form (step): h is (batch, d_model), one
/// token per row, and the states come and go with their batch dim (batch,
/// d_inner, W-1) and (batch, d_inner, N); otherwise the states have no batch
/// dim and the ops see a batch of 1.
void writeLayer(Writer &wr, const MambaConfig &c, std::map<std::string, Val> &p,
                const std::string &pre, Val &h, const Val &convState, const Val &ssmState,
                std::vector<Val> &stateOut, int64_t L, bool step, int64_t batch = 0) {
  const int64_t di = c.intermediateSize, n = c.stateSize, r = c.timeStepRank, w = c.convKernel;
  const int64_t nb = batch > 0 ? batch : 1; // the ops' batch dim
  const std::string m = pre + "mixer.";
  std::ostringstream &os = wr.os;
  os << "\n  // RMSNorm, then the mixer's in_proj, split into x and z.\n";
  Val xn = wr.rmsNorm(h, p[pre + "norm.weight"]);
  Val xz = wr.linear(xn, p[m + "in_proj.weight"]);
  if (c.useBias)
    xz = wr.addBias(xz, p[m + "in_proj.bias"]);
  Val x = wr.columns(xz, 0, di, "x");
  Val z = wr.columns(xz, di, di, "zgate");

  os << "  // Depthwise causal conv (width " << w
     << ") + silu, channel-major, from the carried window.\n";
  Val xc = step ? wr.reshape(x, {nb, di, 1}, "[[0], [1, 2]]", "xc")
                : wr.reshape(wr.transpose(x), {1, di, L}, "[[0, 1], [2]]", "xc");
  Val cw = wr.reshape(p[m + "conv1d.weight"], {di, w}, "[[0, 1], [2]]", "conv_w");
  Val cs = batch > 0 ? convState
                     : wr.reshape(convState, {1, di, w - 1}, "[[0, 1], [2]]", "conv_window");
  Val conv{wr.fresh("conv"), {nb, di, step ? 1 : L}},
      convFinal{wr.fresh("conv_state"), {nb, di, w - 1}};
  os << "  " << conv.name << ", " << convFinal.name << " = ssm.causal_conv1d silu " << xc.name
     << ", " << cw.name;
  if (c.useConvBias)
    os << " bias(" << p[m + "conv1d.bias"].name << ")";
  os << " initial_states(" << cs.name << ")\n      : (" << xc.type() << ", " << cw.type()
     << (c.useConvBias ? ", " + p[m + "conv1d.bias"].type() : std::string()) << ", "
     << cs.type() << ") -> (" << conv.type() << ", " << convFinal.type() << ")\n";
  stateOut.push_back(batch > 0 ? convFinal
                               : wr.reshape(convFinal, {di, w - 1}, "[[0, 1], [2]]", "conv_state_out"));
  Val u = step ? wr.reshape(conv, {nb, di}, "[[0], [1, 2]]", "u")
               : wr.transpose(wr.reshape(conv, {di, L}, "[[0, 1], [2]]"));

  os << "  // x_proj -> (dt, B, C); dt_proj lifts dt to d_inner (its bias goes to the "
        "scan).\n";
  Val xdbl = wr.linear(u, p[m + "x_proj.weight"]);
  Val dtr = wr.columns(xdbl, 0, r, "dtr");
  Val B = wr.columns(xdbl, r, n, "B");
  Val C = wr.columns(xdbl, r + n, n, "C");
  Val dt = wr.linear(dtr, p[m + "dt_proj.weight"]);

  os << "  // A = -exp(A_log).\n";
  Val expA{wr.fresh("expA"), {di, n}}, A{wr.fresh("A"), {di, n}};
  os << "  " << expA.name << " = math.exp " << p[m + "A_log"].name << " : " << expA.type()
     << "\n";
  os << "  " << A.name << " = arith.negf " << expA.name << " : " << A.type() << "\n";
  const Val &D = p[m + "D"], &dtBias = p[m + "dt_proj.bias"];
  Val y2;
  if (step) {
    os << "  // One step of the selective scan: softplus(dt + bias), D skip, silu(z) gate.\n";
    Val st = batch > 0 ? ssmState : wr.reshape(ssmState, {1, di, n}, "[[0, 1], [2]]", "h");
    Val y{wr.fresh("y"), {nb, di}}, hNew{wr.fresh("ssm_state"), {nb, di, n}};
    os << "  " << y.name << ", " << hNew.name << " = ssm.selective_update " << st.name << ", "
       << u.name << ", " << dt.name << ", " << A.name << ", " << B.name << ", " << C.name
       << " D(" << D.name << ") z(" << z.name << ") dt_bias(" << dtBias.name
       << ") {dt_softplus}\n      : (" << st.type() << ", " << u.type() << ", " << dt.type()
       << ", " << A.type() << ", " << B.type() << ", " << C.type() << ", " << D.type() << ", "
       << z.type() << ", " << dtBias.type() << ") -> (" << y.type() << ", " << hNew.type()
       << ")\n";
    stateOut.push_back(batch > 0 ? hNew
                                 : wr.reshape(hNew, {di, n}, "[[0, 1], [2]]", "ssm_state_out"));
    y2 = y;
  } else {
    os << "  // The selective scan from the carried state: softplus(dt + bias), D skip, "
          "silu(z) gate.\n";
    Val u3 = wr.reshape(u, {1, L, di}, "[[0, 1], [2]]");
    Val dt3 = wr.reshape(dt, {1, L, di}, "[[0, 1], [2]]");
    Val z3 = wr.reshape(z, {1, L, di}, "[[0, 1], [2]]");
    Val B3 = wr.reshape(B, {1, L, n}, "[[0, 1], [2]]");
    Val C3 = wr.reshape(C, {1, L, n}, "[[0, 1], [2]]");
    Val h0 = wr.reshape(ssmState, {1, di, n}, "[[0, 1], [2]]", "h_init");
    Val y{wr.fresh("y"), {1, L, di}}, hLast{wr.fresh("ssm_state"), {1, di, n}};
    os << "  " << y.name << ", " << hLast.name << " = ssm.selective_scan time_major "
       << u3.name << ", " << dt3.name << ", " << A.name << ", " << B3.name << ", " << C3.name
       << " D(" << D.name << ") z(" << z3.name << ") delta_bias(" << dtBias.name << ") h0("
       << h0.name << ") {delta_softplus}\n      : (" << u3.type() << ", " << dt3.type()
       << ", " << A.type() << ", " << B3.type() << ", " << C3.type() << ", " << D.type()
       << ", " << z3.type() << ", " << dtBias.type() << ", " << h0.type() << ") -> ("
       << y.type() << ", " << hLast.type() << ")\n";
    stateOut.push_back(wr.reshape(hLast, {di, n}, "[[0, 1], [2]]", "ssm_state_out"));
    y2 = wr.reshape(y, {L, di}, "[[0, 1], [2]]");
  }

  os << "  // out_proj, accumulated onto the residual stream.\n";
  if (c.useBias) {
    Val o = wr.linear(y2, p[m + "out_proj.weight"]);
    o = wr.addBias(o, p[m + "out_proj.bias"]);
    Val init = wr.empty(h.shape);
    Val sum{wr.fresh("resid"), h.shape};
    os << "  " << sum.name << " = linalg.add ins(" << h.name << ", " << o.name << " : "
       << h.type() << ", " << o.type() << ") outs(" << init.name << " : " << init.type()
       << ") -> " << sum.type() << "\n";
    h = sum;
  } else {
    h = wr.linear(y2, p[m + "out_proj.weight"], &h);
  }
}

/// The weights of layer 0 (names after "backbone.layers.0."): the block
/// function's weight arguments, in mambaParams order.
std::vector<MambaParam> blockParams(const MambaConfig &c) {
  std::vector<MambaParam> out;
  const std::string pre = "backbone.layers.0.";
  for (MambaParam mp : mambaParams(c))
    if (mp.name.rfind(pre, 0) == 0) {
      mp.name = mp.name.substr(pre.size());
      out.push_back(mp);
    }
  return out;
}

/// `shape` with a leading batch dim when `batch` > 0 (the batched decode form).
Shape withBatch(int64_t batch, const Shape &shape) {
  if (batch <= 0)
    return shape;
  Shape s{batch};
  s.insert(s.end(), shape.begin(), shape.end());
  return s;
}

/// The three forms' private block functions.
const char *blockName(bool step, int64_t batch) {
  return batch > 0 ? "block_step_batched" : step ? "block_step" : "block_sequence";
}

/// The private function of one block, called once per layer:
/// (h, conv window, SSM state, the layer's weights) -> (h, window, state).
/// `batch` > 0: the batched decode form (writeLayer), h (batch, d_model).
void writeBlock(std::ostringstream &out, const MambaConfig &c, int64_t seqLen, bool step,
                int64_t batch = 0) {
  const int64_t L = batch > 0 ? batch : step ? 1 : seqLen;
  std::vector<MambaState> states = mambaStates(c);
  Writer wr(c);
  std::map<std::string, Val> p;
  const std::string pre = "backbone.layers.0.";
  Val h{"%h", {L, c.hiddenSize}}, convState{"%conv_state", withBatch(batch, states[0].shape)},
      ssmState{"%ssm_state", withBatch(batch, states[1].shape)};
  if (batch > 0)
    out << "// One block (RMSNorm, mixer, residual) on one token of each of " << batch
        << " streams, called once per layer.\n";
  else
    out << "// One block (RMSNorm, mixer, residual) on " << L << (L == 1 ? " token" : " tokens")
        << ", called once per layer.\n";
  out << "func.func private @" << blockName(step, batch) << "(\n    "
      << h.name << ": " << h.type() << ", " << convState.name << ": " << convState.type()
      << ", " << ssmState.name << ": " << ssmState.type();
  for (const MambaParam &mp : blockParams(c)) {
    p[pre + mp.name] = Val{paramSsaName("backbone." + mp.name), mp.shape};
    out << ",\n    " << p[pre + mp.name].name << ": " << tensorType(mp.shape);
  }
  out << ")\n    -> (" << h.type() << ", " << convState.type() << ", " << ssmState.type()
      << ") {\n";
  wr.os << "  %zero = arith.constant 0.0 : f32\n";
  std::vector<Val> stateOut;
  writeLayer(wr, c, p, pre, h, convState, ssmState, stateOut, L, step, batch);
  wr.os << "  return " << h.name << ", " << stateOut[0].name << ", " << stateOut[1].name
        << " : " << h.type() << ", " << stateOut[0].type() << ", " << stateOut[1].type()
        << "\n}\n";
  out << wr.os.str();
}

/// One function: `step` selects the decode form (one token,
/// ssm.selective_update) over the prefill form (seqLen tokens, selective
/// scan); `batch` > 0 (with `step`) the batched decode form
/// @forward_step_batched: tokens (batch), one per stream, states with a
/// leading batch dim, logits (batch, vocab).
void writeFunction(std::ostringstream &out, const MambaConfig &c, int64_t seqLen, bool step,
                   LogitsRows rows, int64_t batch = 0) {
  const int64_t L = batch > 0 ? batch : step ? 1 : seqLen;
  const int64_t logitRows = batch > 0 || rows == LogitsRows::All ? L : 1;
  const int64_t di = c.intermediateSize, n = c.stateSize,
                r = c.timeStepRank, w = c.convKernel, v = c.vocabSize;
  std::vector<MambaParam> params = mambaParams(c);
  std::vector<MambaState> states = mambaStates(c);

  Writer wr(c);
  std::map<std::string, Val> p; // by Hugging Face name
  for (const MambaParam &mp : params)
    p[mp.name] = Val{paramSsaName(mp.name), mp.shape};
  std::vector<Val> stateIn;
  for (const MambaState &s : states)
    stateIn.push_back(Val{stateSsaName(s.name), withBatch(batch, s.shape)});
  Val tokens{"%tokens", {L}};

  const char *fn = batch > 0 ? "forward_step_batched" : step ? "forward_step" : "forward_sequence";
  out << "// "
      << (batch > 0 ? "Decode of " + std::to_string(batch) +
                          " streams at once: token i and row i of every state (and of the "
                          "logits) are stream i's;\n// each row as @forward_step computes it."
          : step    ? std::string("Decode: one token through the state-update form.")
                    : "Prefill: " + std::to_string(L) +
                          " tokens through the scan form, from the carried states.")
      << "\n";
  out << "func.func @" << fn << "(\n    %tokens: " << tensorType({L}, "i32")
      << " {ssm.name = \"tokens\"}";
  for (size_t i = 0; i < states.size(); ++i)
    out << ",\n    " << stateIn[i].name << ": " << stateIn[i].type() << " {ssm.state = \""
        << states[i].name << "\"}";
  for (const MambaParam &mp : params)
    out << ",\n    " << p[mp.name].name << ": " << tensorType(mp.shape) << " {ssm.param = \""
        << mp.name << "\"}";
  out << ")\n    -> (" << tensorType({logitRows, v}) << " {ssm.name = \"logits\"}";
  for (size_t i = 0; i < states.size(); ++i)
    out << ",\n        " << stateIn[i].type() << " {ssm.state = \"" << states[i].name << "\"}";
  out << ") {\n";

  std::ostringstream &os = wr.os;
  os << "  %zero = arith.constant 0.0 : f32\n";
  os << "  // Embedding lookup.\n";
  Val h = wr.embed(tokens, p["backbone.embedding.weight"]);
  std::vector<Val> stateOut;
  const std::vector<MambaParam> layerParams = blockParams(c);
  for (int64_t l = 0; l < c.numLayers; ++l) {
    const std::string pre = "backbone.layers." + std::to_string(l) + ".";
    const Val &convState = stateIn[2 * l], &ssmState = stateIn[2 * l + 1];
    std::string operands = h.name + ", " + convState.name + ", " + ssmState.name;
    std::string types = h.type() + ", " + convState.type() + ", " + ssmState.type();
    for (const MambaParam &mp : layerParams) {
      const Val &wv = p.at(pre + mp.name);
      operands += ", " + wv.name;
      types += ", " + wv.type();
    }
    std::string res = "%layer" + std::to_string(l);
    os << "  " << res << ":3 = func.call @" << blockName(step, batch) << "("
       << operands << ")\n      : (" << types << ") -> (" << h.type() << ", "
       << convState.type() << ", " << ssmState.type() << ")\n";
    h = Val{res + "#0", h.shape};
    stateOut.push_back(Val{res + "#1", convState.shape});
    stateOut.push_back(Val{res + "#2", ssmState.shape});
  }

  wr.setPrefix("");
  os << "\n  // Final RMSNorm and the LM head"
     << (c.tieWordEmbeddings ? " (tied: the embedding table)" : "") << ".\n";
  if (logitRows < L) {
    os << "  // Only the last position's logits: its hidden state alone goes on.\n";
    Val last{wr.fresh("h_last"), {1, c.hiddenSize}};
    os << "  " << last.name << " = tensor.extract_slice " << h.name << "[" << L - 1 << ", 0] [1, "
       << c.hiddenSize << "] [1, 1] : " << h.type() << " to " << last.type() << "\n";
    h = last;
  }
  Val hn = wr.rmsNorm(h, p["backbone.norm_f.weight"]);
  Val logits = wr.linear(hn, p[c.tieWordEmbeddings ? "backbone.embedding.weight" : "lm_head.weight"]);
  os << "  return " << logits.name;
  for (const Val &s : stateOut)
    os << ", " << s.name;
  os << "\n      : " << logits.type();
  for (const Val &s : stateOut)
    os << ", " << s.type();
  os << "\n}\n";
  out << os.str();
}

} // namespace

std::string buildMambaModule(const MambaConfig &c, int64_t seqLen, LogitsRows rows,
                             int64_t batch) {
  std::ostringstream out;
  out << "// Mamba-1 language model (Hugging Face MambaForCausalLM): d_model " << c.hiddenSize
      << ", d_inner " << c.intermediateSize << ", d_state " << c.stateSize << ", d_conv "
      << c.convKernel << ", dt_rank " << c.timeStepRank << ", " << c.numLayers
      << " layers, vocabulary " << c.vocabSize << ".\n"
      << "// Generated by ssm-import mamba. Arguments: tokens, the streaming states "
         "(ssm.state),\n"
      << "// the weights (ssm.param, Hugging Face names); results: logits, the updated "
         "states.\n"
      << "#rows = affine_map<(d0, d1) -> (d0, d1)>\n"
      << "#row = affine_map<(d0, d1) -> (d0)>\n"
      << "#col = affine_map<(d0, d1) -> (d1)>\n";
  writeFunction(out, c, seqLen, /*step=*/false, rows);
  out << "\n";
  writeBlock(out, c, seqLen, /*step=*/false);
  out << "\n";
  writeFunction(out, c, seqLen, /*step=*/true, LogitsRows::Last);
  out << "\n";
  writeBlock(out, c, seqLen, /*step=*/true);
  if (batch > 0) {
    out << "\n";
    writeFunction(out, c, seqLen, /*step=*/true, LogitsRows::Last, batch);
    out << "\n";
    writeBlock(out, c, seqLen, /*step=*/true, batch);
  }
  return out.str();
}

bool buildMambaMLIR(const nlohmann::json &config, int64_t seqLen, std::string &mlir,
                    std::string &error, LogitsRows rows, int64_t batch) {
  MambaConfig c;
  if (!parseMambaConfig(config, c, error))
    return false;
  if (seqLen < 1 || seqLen > (int64_t(1) << 24)) {
    error = "sequence length " + std::to_string(seqLen) + " is out of range (1 to 16777216)";
    return false;
  }
  if (batch < 0 || batch > kMaxStepBatch) {
    error = "step batch " + std::to_string(batch) + " is out of range (1 to " +
            std::to_string(kMaxStepBatch) + ")";
    return false;
  }
  mlir = buildMambaModule(c, seqLen, rows, batch);
  return true;
}

} // namespace ssm::importer
