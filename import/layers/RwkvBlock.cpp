// The RWKV-4 / 5.1 / 5.2 / 6 / 7 block (time mixing and channel mixing) as a layer of the model skeleton (import/layers/RwkvBlock.h).
//
// Conventions (import/ModelBuilder.h): arguments (tokens, states, weights),
// results (logits, states); everything f32 except the i32 tokens. The math
// is ../shared/models/rwkv/README.md; per block
//   x += TimeMix(LayerNorm(x; ln1)); x += ChannelMix(LayerNorm(x; ln2))
// with token shift through the carried normalised inputs att_xx / ffn_xx.
//
// Sequence form: token shift is concat(state row, x[0 : L-1]) and the new
// carry x[L-1]; RWKV-4's WKV is ssm.wkv4 (the stabilised scan); RWKV-5's
// is ssm.ssd_scan with a per-key log decay A = log w broadcast over time,
// X = v, B = k, C = r and bonus u (the op's state is (value j, key i), so
// the (head, i, j) state is transposed in and out by linalg.generic).
// Step form: the same with L = 1, the WKV written out as linalg.generic
// (RWKV-4: rwkv.cpp's update with the running maximum exponent; RWKV-5:
// out_j = sum_i r_i (u_i k_i v_j + M_ij), M_ij = w_i M_ij + k_i v_j).
// RWKV-6 is RWKV-5.2 with a data-dependent token shift (ddlerp: five mixes
// time_maa_{w,k,v,r,g} + a low-rank tanh adapter of x + (prev - x) time_maa_x)
// and a per-token decay w_t = exp(-exp(time_decay + lora(xw))): ssm.ssd_scan
// with A_t = -exp(...) per token and key. RWKV-7's WKV is ssm.wkv7 (the
// generalised delta rule, state (head, value i, key j) as rwkv.cpp keeps it),
// written out as three generics when stepping; layer 0's v is carried to the
// others as v_first (the first block function returns it, the others take it).
// The batched sequence form (B streams of T tokens, rows stream-major) is
// the sequence form with the ops' batch dim B: each stream's token shift
// starts from its own carried row, and its states are row b of each state.
// Per-head views of (C)-vectors (decay, bonus, ln_x, r/k/v when stepping,
// the group norm's (L, C) output) are indexing maps (h * S + i, c floordiv
// S, c mod S) rather than reshape ops: every op becomes a Halide stage, and
// Halide's compile time grows with the square of their number.
#include "import/layers/RwkvBlock.h"
#include "import/layers/Layers.h"

#include <algorithm>
#include <functional>
#include <cctype>
#include <map>
#include <stdexcept>

namespace ssm::importer {

namespace {

class RwkvGraph {
public:
  RwkvGraph(const RwkvConfig &c, MlirEmitter &e) : c(c), e(e) {}

  /// One block on s.h (rows, n_embed): x += TimeMix(LayerNorm(x; ln1));
  /// x += ChannelMix(LayerNorm(x; ln2)), reading the block's weights and
  /// states (model.json names after "blocks.<l>."). RWKV-7's first block
  /// (`layer` 0) sets the carry "v_first" (rows, n_embed); the others
  /// (`layer` 1) read it.
  void block(graph::BlockScope &s, int64_t layer);
  /// emb + ln0: the residual stream of `tokens`.
  TValue embed(const graph::ModelScope &s, const TValue &tokens);
  /// ln_out + head on the rows that get logits.
  TValue head(const graph::ModelScope &s, const TValue &x);
  /// Names of block `layer`'s weights after "blocks.<layer>." (ln0
  /// excluded): the block function's weight arguments, in the model's
  /// parameter order (every layer but RWKV-7's first has block 1's).
  std::vector<std::string> blockParamSuffixes(int64_t layer = 0) const;
  /// Names of the states of one block after "blocks.<l>.".
  std::vector<std::string> blockStateSuffixes() const;

private:
  using Body = GenericBody;
  const RwkvConfig &c;
  MlirEmitter &e;
  std::map<std::string, TValue> params;
  std::map<std::string, TValue> states;
  std::vector<TValue> newStates; // in rwkvStates order
  TValue vFirst;                 // RWKV-7: layer 0's v, (L, C)
  int64_t L = 1;
  bool step = false;
  /// The batched decode form: L = batch rows, each a different stream's
  /// one token; `step` is false (the sequence form's ops, with their batch
  /// dim = batch and length 1). 0 otherwise.
  int64_t batch = 0;
  /// The batched sequence form: L = streams * T rows, stream-major (row
  /// b * T + t is stream b's token t); `step` is false and the states have
  /// a leading dim `streams`. 0 otherwise.
  int64_t streams = 0, T = 1;

  /// The leading dim of the states: `batch` or `streams`; 0 when they have none.
  int64_t stateBatch() const { return batch > 0 ? batch : streams; }
  /// The (batch, length, tail...) shape of the recurrent ops: (1, L, ...) in
  /// the sequence form, (batch, 1, ...) in the batched form, (streams, T,
  /// ...) in the batched sequence.
  std::vector<int64_t> opShape(std::vector<int64_t> tail) const {
    std::vector<int64_t> s = batch > 0     ? std::vector<int64_t>{batch, 1}
                             : streams > 0 ? std::vector<int64_t>{streams, T}
                                           : std::vector<int64_t>{1, L};
    s.insert(s.end(), tail.begin(), tail.end());
    return s;
  }
  /// The map of a (batch, length, ...) op result over loops whose first
  /// is the row (the token, or in the batched form the stream): ("0", d0),
  /// (d0, "0") or (d0 floordiv T, d0 mod T), then `rest`.
  std::vector<std::string> opRowMap(std::vector<std::string> rest) const {
    const std::string t = std::to_string(T);
    std::vector<std::string> m =
        batch > 0     ? std::vector<std::string>{"d0", "0"}
        : streams > 0 ? std::vector<std::string>{"d0 floordiv " + t, "d0 mod " + t}
                      : std::vector<std::string>{"0", "d0"};
    m.insert(m.end(), rest.begin(), rest.end());
    return m;
  }

  const TValue &param(const std::string &n) { return params.at(n); }
  static std::string layerHint(int64_t layer) {
    return layer < 0 ? "blk" : "l" + std::to_string(layer);
  }

  TValue layerNorm(const TValue &x, const std::string &w, const std::string &b,
                   const std::string &hint);
  /// The previous-token rows of `xn` (L, C) given the carried row `state`
  /// (C), or per stream (streams, C) in the batched forms.
  TValue shifted(const TValue &xn, const TValue &state, const std::string &hint);
  /// The new carried row: xn[L-1] (each stream's last row when batched).
  TValue lastRow(const TValue &xn, const std::string &hint);
  TValue mix(const TValue &xn, const TValue &prev, const std::string &m, const std::string &hint);
  /// x + TimeMix(xn): the residual is the output matmul's accumulator.
  TValue timeMix4(const std::string &p, const TValue &x, const TValue &xn, int64_t layer);
  TValue timeMix5(const std::string &p, const TValue &x, const TValue &xn, int64_t layer);
  TValue timeMix6(const std::string &p, const TValue &x, const TValue &xn, int64_t layer);
  TValue timeMix7(const std::string &p, const TValue &x, const TValue &xn, int64_t layer,
                  bool first);
  /// The WKV of RWKV-5/6 from r, k, v (L, C), then ln_x and the gate
  /// silu(gz) (when given), then x + Wo(.). `logDecay` (L, C): RWKV-6's
  /// per-token log decay; null: the time_decay parameter (RWKV-5).
  TValue wkv5(const std::string &p, const std::string &h, const TValue &x, const TValue &r,
              const TValue &k, const TValue &v, const TValue *gz, const TValue *logDecay);
  /// ln_x of a WKV output y (per-head outputs read through yMap over loops
  /// (l, h, j)): each head normalised on its own (mean, biased variance,
  /// eps), then ln_x weight and bias over (l, c); `post` maps the result z
  /// with the block arguments of `extra` (operands over (l, c)) from 5 on.
  TValue groupNorm(const std::string &p, const std::string &h, const TValue &y,
                   const std::vector<std::string> &yMap, const std::vector<GenericOperand> &extra,
                   const std::function<std::string(Body &, const std::string &)> &post);
  /// W2 f(W1 x): a low-rank adapter, f = "tanh", "sigmoid" or "" (none).
  TValue lowRank(const TValue &in, const std::string &w1, const std::string &w2,
                 const std::string &act, const std::string &hint);
  /// x + ChannelMix(xn), one generic for the gate and the residual.
  TValue channelMix(const std::string &p, const TValue &x, const TValue &xn, int64_t layer);
};

TValue RwkvGraph::layerNorm(const TValue &x, const std::string &w, const std::string &b,
                            const std::string &hint) {
  return layers::layerNorm(e, x, param(w), param(b), c.layerNormEps, hint);
}

TValue RwkvGraph::embed(const graph::ModelScope &s, const TValue &tokens) {
  params = s.params;
  TValue x = layers::embedding(e, tokens, param("emb.weight"), "x_emb");
  return layerNorm(x, "blocks.0.ln0.weight", "blocks.0.ln0.bias", "x_ln0");
}

TValue RwkvGraph::head(const graph::ModelScope &s, const TValue &x) {
  params = s.params;
  TValue xo = layerNorm(x, "ln_out.weight", "ln_out.bias", "x_ln_out");
  return e.linear(xo, param("head.weight"), "logits");
}

TValue RwkvGraph::shifted(const TValue &xn, const TValue &state, const std::string &hint) {
  if (batch > 0 || (streams > 0 && T == 1))
    return state; // (batch, C): row b is stream b's previous token
  int64_t C = xn.shape[1];
  if (streams > 0) {
    // Per stream: its carried row, then its first T - 1 rows.
    TValue x3 = e.expand(xn, {{0, 1}, {2}}, {streams, T, C}, hint + "_rows3");
    TValue head = e.slice(x3, {0, 0, 0}, {streams, T - 1, C}, {streams, T - 1, C}, hint + "_head");
    TValue carry = e.expand(state, {{0}, {1, 2}}, {streams, 1, C}, hint + "_carry");
    return e.collapse(e.concat(1, {carry, head}, hint + "3"), {{0, 1}, {2}}, {L, C}, hint);
  }
  TValue row = e.expand(state, {{0, 1}}, {1, C}, hint + "_carry");
  if (L == 1)
    return row;
  TValue head = e.slice(xn, {0, 0}, {L - 1, C}, {L - 1, C}, hint + "_head");
  return e.concat(0, {row, head}, hint);
}

TValue RwkvGraph::lastRow(const TValue &xn, const std::string &hint) {
  if (batch > 0 || (streams > 0 && T == 1))
    return xn; // every row is a stream's last token
  int64_t C = xn.shape[1];
  if (streams > 0) {
    TValue x3 = e.expand(xn, {{0, 1}, {2}}, {streams, T, C}, hint + "_rows3");
    TValue last = e.slice(x3, {0, T - 1, 0}, {streams, 1, C}, {streams, 1, C}, hint + "3");
    return e.collapse(last, {{0}, {1, 2}}, {streams, C}, hint);
  }
  if (L == 1)
    return e.collapse(xn, {{0, 1}}, {C}, hint);
  return e.slice(xn, {L - 1, 0}, {1, C}, {C}, hint);
}

TValue RwkvGraph::mix(const TValue &xn, const TValue &prev, const std::string &m,
                      const std::string &hint) {
  TValue mv = e.flatten(param(m), hint + "_m");
  return e.map(hint, {{xn, {}}, {prev, {}}, {mv, {"d1"}}}, xn.shape, [&](Body &bd) {
    std::string one = bd.cst(1.0);
    return bd.add(bd.mul(bd.arg(0), bd.arg(2)), bd.mul(bd.arg(1), bd.sub(one, bd.arg(2))));
  });
}

TValue RwkvGraph::timeMix4(const std::string &p, const TValue &x, const TValue &xn,
                           int64_t layer) {
  std::string h = layerHint(layer) + "_att";
  int64_t C = c.nEmbed;
  TValue prev = shifted(xn, states.at(p + "att_xx"), h + "_prev");
  TValue carry = lastRow(xn, h + "_xx_new");
  TValue xk = mix(xn, prev, p + "att.time_mix_k", h + "_xk");
  TValue xv = mix(xn, prev, p + "att.time_mix_v", h + "_xv");
  TValue xr = mix(xn, prev, p + "att.time_mix_r", h + "_xr");
  TValue k = e.linear(xk, param(p + "att.key.weight"), h + "_k");
  TValue v = e.linear(xv, param(p + "att.value.weight"), h + "_v");
  TValue rz = e.linear(xr, param(p + "att.receptance.weight"), h + "_rz");
  TValue w = e.flatten(param(p + "att.time_decay"), h + "_w");
  TValue u = e.flatten(param(p + "att.time_first"), h + "_u");
  const TValue &aa = states.at(p + "aa"), &bb = states.at(p + "bb"), &pp = states.at(p + "pp");
  TValue wkv, aaN, bbN, ppN;
  if (!step) {
    const std::vector<int64_t> seq3 = opShape({C}), st2 = {stateBatch() > 0 ? stateBatch() : 1, C};
    TValue k3 = e.expand(k, {{0, 1}, {2}}, seq3, h + "_k3");
    TValue v3 = e.expand(v, {{0, 1}, {2}}, seq3, h + "_v3");
    TValue aa2 = stateBatch() > 0 ? aa : e.expand(aa, {{0, 1}}, {1, C}, h + "_aa0");
    TValue bb2 = stateBatch() > 0 ? bb : e.expand(bb, {{0, 1}}, {1, C}, h + "_bb0");
    TValue pp2 = stateBatch() > 0 ? pp : e.expand(pp, {{0, 1}}, {1, C}, h + "_pp0");
    std::string seqT = tensorType(seq3), stT = tensorType(st2), vecT = tensorType({C});
    std::string wkvName = e.fresh(h + "_wkv3"), aaName = e.fresh(h + "_aa1"),
                bbName = e.fresh(h + "_bb1"), ppName = e.fresh(h + "_pp1");
    e.line(wkvName + ", " + aaName + ", " + bbName + ", " + ppName + " = ssm.wkv4 " + w.name +
           ", " + u.name + ", " + k3.name + ", " + v3.name + " state(" + aa2.name + ", " +
           bb2.name + ", " + pp2.name + ") : (" + vecT + ", " + vecT + ", " + seqT + ", " + seqT +
           ", " + stT + ", " + stT + ", " + stT + ") -> (" + seqT + ", " + stT + ", " + stT +
           ", " + stT + ")");
    wkv = e.collapse({wkvName, seq3}, {{0, 1}, {2}}, {L, C}, h + "_wkv");
    if (stateBatch() > 0) {
      aaN = TValue{aaName, st2};
      bbN = TValue{bbName, st2};
      ppN = TValue{ppName, st2};
    } else {
      aaN = e.collapse({aaName, {1, C}}, {{0, 1}}, {C}, h + "_aa_new");
      bbN = e.collapse({bbName, {1, C}}, {{0, 1}}, {C}, h + "_bb_new");
      ppN = e.collapse({ppName, {1, C}}, {{0, 1}}, {C}, h + "_pp_new");
    }
  } else {
    // rwkv.cpp's update, one token: wkv from the state and the bonus, then
    // the state decays by w with the running maximum exponent pp.
    TValue k1 = e.collapse(k, {{0, 1}}, {C}, h + "_k1");
    TValue v1 = e.collapse(v, {{0, 1}}, {C}, h + "_v1");
    TValue wkv1 = e.map(h + "_wkv1", {{k1, {}}, {v1, {}}, {aa, {}}, {bb, {}}, {pp, {}}, {u, {}}},
                        {C}, [&](Body &bd) {
                          std::string uk = bd.add(bd.arg(5), bd.arg(0));
                          std::string q = bd.max(bd.arg(4), uk);
                          std::string e1 = bd.exp(bd.sub(bd.arg(4), q));
                          std::string e2 = bd.exp(bd.sub(uk, q));
                          std::string num = bd.add(bd.mul(e1, bd.arg(2)), bd.mul(e2, bd.arg(1)));
                          std::string den = bd.add(bd.mul(e1, bd.arg(3)), e2);
                          return bd.div(num, den);
                        });
    auto decayed = [&](const std::string &hint, bool isA) {
      // e1 * (aa or bb) + e2 * (v or 1) with q2 = max(pp + w, k)
      return e.map(hint, {{k1, {}}, {v1, {}}, {isA ? aa : bb, {}}, {pp, {}}, {w, {}}}, {C},
                   [&](Body &bd) {
                     std::string pw = bd.add(bd.arg(3), bd.arg(4));
                     std::string q = bd.max(pw, bd.arg(0));
                     std::string e1 = bd.exp(bd.sub(pw, q));
                     std::string e2 = bd.exp(bd.sub(bd.arg(0), q));
                     std::string keep = bd.mul(e1, bd.arg(2));
                     return bd.add(keep, isA ? bd.mul(e2, bd.arg(1)) : e2);
                   });
    };
    aaN = decayed(h + "_aa_new", true);
    bbN = decayed(h + "_bb_new", false);
    ppN = e.map(h + "_pp_new", {{k1, {}}, {pp, {}}, {w, {}}}, {C}, [&](Body &bd) {
      return bd.max(bd.add(bd.arg(1), bd.arg(2)), bd.arg(0));
    });
    wkv = e.expand(wkv1, {{0, 1}}, {1, C}, h + "_wkv");
  }
  TValue rw = e.map(h + "_rwkv", {{rz, {}}, {wkv, {}}}, {L, C},
                    [&](Body &bd) { return bd.mul(bd.sigmoid(bd.arg(0)), bd.arg(1)); });
  TValue out = e.linear(rw, param(p + "att.output.weight"), h + "_x", &x);
  newStates.push_back(carry);
  newStates.push_back(aaN);
  newStates.push_back(bbN);
  newStates.push_back(ppN);
  return out;
}

TValue RwkvGraph::lowRank(const TValue &in, const std::string &w1, const std::string &w2,
                          const std::string &act, const std::string &hint) {
  TValue z = e.linear(in, param(w1), hint + "_lo");
  if (act == "tanh")
    z = e.map(hint + "_act", {{z, {}}}, z.shape, [&](Body &bd) {
      std::string t = bd.fresh("tanh");
      bd.raw(t + " = math.tanh " + bd.arg(0) + " : f32");
      return t;
    });
  else if (act == "sigmoid")
    z = e.map(hint + "_act", {{z, {}}}, z.shape, [&](Body &bd) { return bd.sigmoid(bd.arg(0)); });
  return e.linear(z, param(w2), hint);
}

TValue RwkvGraph::groupNorm(const std::string &p, const std::string &h, const TValue &y,
                            const std::vector<std::string> &yMap,
                            const std::vector<GenericOperand> &extra,
                            const std::function<std::string(Body &, const std::string &)> &post) {
  const int64_t C = c.nEmbed, H = c.heads, S = c.headSize;
  double eps = c.groupNormEps;
  std::vector<int64_t> lhs = {L, H, S};
  // Each head divided by s = max(1, max |y|) first, as layers::layerNorm
  // does with a row (docs/numerics.md): a head past 1.8e19 (an att.value
  // of 1e25) normalizes as the reference does; heads within 1 compute the
  // plain formula.
  TValue inv = layers::lastDimScale(e, {y, yMap}, lhs, h + "_gn");
  TValue sum = e.reduceLast(h + "_gn_sum", {{y, yMap}, {inv, {"d0", "d1"}}}, lhs,
                            [&](Body &bd) { return bd.mul(bd.arg(0), bd.arg(1)); });
  TValue sq = e.reduceLast(h + "_gn_sq", {{y, yMap}, {sum, {"d0", "d1"}}, {inv, {"d0", "d1"}}},
                           lhs, [&](Body &bd) {
                             std::string d = bd.sub(bd.mul(bd.arg(0), bd.arg(2)),
                                                    bd.div(bd.arg(1), bd.cst(double(S))));
                             return bd.mul(d, d);
                           });
  std::string rowOf = "d1 floordiv " + std::to_string(S); // head of channel d1
  std::string jOf = "d1 mod " + std::to_string(S);
  std::vector<std::string> yFlat = y.shape.size() == 2
                                       ? std::vector<std::string>{rowOf, jOf}
                                       : opRowMap({rowOf, jOf});
  std::vector<GenericOperand> ins = {{y, yFlat},
                                     {sum, {"d0", rowOf}},
                                     {sq, {"d0", rowOf}},
                                     {param(p + "att.ln_x.weight"), {"d1"}},
                                     {param(p + "att.ln_x.bias"), {"d1"}}};
  ins.insert(ins.end(), extra.begin(), extra.end());
  const int invArg = static_cast<int>(ins.size()); // after the extras, whose indices post() uses
  ins.push_back({inv, {"d0", rowOf}});
  (void)H;
  return e.map(h + "_gn", ins, {L, C}, [&](Body &bd) {
    std::string n = bd.cst(double(S));
    std::string s = bd.arg(invArg);
    std::string mean = bd.div(bd.arg(1), n);
    std::string var = bd.div(bd.arg(2), n);
    std::string epsScaled = bd.mul(bd.mul(bd.cst(eps), s), s);
    std::string den = bd.sqrt(bd.max(bd.add(var, epsScaled), bd.cst(1.1754943508222875e-38)));
    std::string z = bd.add(
        bd.mul(bd.div(bd.sub(bd.mul(bd.arg(0), s), mean), den), bd.arg(3)), bd.arg(4));
    return post(bd, z);
  });
}

TValue RwkvGraph::timeMix5(const std::string &p, const TValue &x, const TValue &xn,
                           int64_t layer) {
  std::string h = layerHint(layer) + "_att";
  const bool gated = c.architecture == "rwkv5.2";
  TValue prev = shifted(xn, states.at(p + "att_xx"), h + "_prev");
  newStates.push_back(lastRow(xn, h + "_xx_new"));
  TValue xk = mix(xn, prev, p + "att.time_mix_k", h + "_xk");
  TValue xv = mix(xn, prev, p + "att.time_mix_v", h + "_xv");
  TValue xr = mix(xn, prev, p + "att.time_mix_r", h + "_xr");
  TValue r = e.linear(xr, param(p + "att.receptance.weight"), h + "_r");
  TValue k = e.linear(xk, param(p + "att.key.weight"), h + "_k");
  TValue v = e.linear(xv, param(p + "att.value.weight"), h + "_v");
  TValue gz;
  if (gated) {
    TValue xg = mix(xn, prev, p + "att.time_mix_g", h + "_xg");
    gz = e.linear(xg, param(p + "att.gate.weight"), h + "_gz");
  }
  return wkv5(p, h, x, r, k, v, gated ? &gz : nullptr, nullptr);
}

TValue RwkvGraph::timeMix6(const std::string &p, const TValue &x, const TValue &xn,
                           int64_t layer) {
  // ddlerp (RWKV-6 reference code, rwkv.cpp): sx = prev - x,
  // xxx = tanh((x + sx maa_x) W1) split in 5 of rank R, m_i = xxx_i W2_i,
  // x_i = x + sx (maa_i + m_i) for i in (w, k, v, r, g).
  std::string h = layerHint(layer) + "_att";
  const int64_t C = c.nEmbed;
  TValue prev = shifted(xn, states.at(p + "att_xx"), h + "_prev");
  newStates.push_back(lastRow(xn, h + "_xx_new"));
  TValue sx = e.map(h + "_sx", {{prev, {}}, {xn, {}}}, xn.shape,
                    [&](Body &bd) { return bd.sub(bd.arg(0), bd.arg(1)); });
  TValue mx = e.flatten(param(p + "att.time_maa_x"), h + "_maa_x");
  TValue xxx = e.map(h + "_xxx", {{xn, {}}, {sx, {}}, {mx, {"d1"}}}, xn.shape, [&](Body &bd) {
    return bd.add(bd.arg(0), bd.mul(bd.arg(1), bd.arg(2)));
  });
  TValue t1 = e.linear(xxx, param(p + "att.time_maa_w1"), h + "_maa_lo");
  t1 = e.map(h + "_maa_tanh", {{t1, {}}}, t1.shape, [&](Body &bd) {
    std::string t = bd.fresh("tanh");
    bd.raw(t + " = math.tanh " + bd.arg(0) + " : f32");
    return t;
  });
  const TValue &w2 = param(p + "att.time_maa_w2"); // (5, C, R)
  const int64_t R = w2.shape[2];
  TValue zero5 = e.zeros({5, L, C}, h + "_maa_zero");
  TValue m5 = e.generic(h + "_maa", {{t1, {"d1", "d0 * " + std::to_string(R) + " + d3"}},
                                     {w2, {"d0", "d2", "d3"}}},
                        {5, L, C}, {"d0", "d1", "d2"},
                        {"parallel", "parallel", "parallel", "reduction"}, [&](Body &bd) {
                          return bd.add(bd.arg(2), bd.mul(bd.arg(0), bd.arg(1)));
                        }, &zero5);
  auto mixOf = [&](int i, const std::string &n) {
    TValue mv = e.flatten(param(p + "att.time_maa_" + n), h + "_maa_" + n);
    return e.map(h + "_x" + n, {{xn, {}}, {sx, {}}, {mv, {"d1"}}, {m5, {std::to_string(i), "d0", "d1"}}},
                 xn.shape, [&](Body &bd) {
                   return bd.add(bd.arg(0), bd.mul(bd.arg(1), bd.add(bd.arg(2), bd.arg(3))));
                 });
  };
  TValue xw = mixOf(0, "w"), xk = mixOf(1, "k"), xv = mixOf(2, "v"), xr = mixOf(3, "r"),
         xg = mixOf(4, "g");
  TValue r = e.linear(xr, param(p + "att.receptance.weight"), h + "_r");
  TValue k = e.linear(xk, param(p + "att.key.weight"), h + "_k");
  TValue v = e.linear(xv, param(p + "att.value.weight"), h + "_v");
  TValue gz = e.linear(xg, param(p + "att.gate.weight"), h + "_gz");
  // Per-token log decay: log w_t = -exp(time_decay + W2 tanh(W1 xw)).
  TValue dz = lowRank(xw, p + "att.time_decay_w1", p + "att.time_decay_w2", "tanh", h + "_dw");
  TValue td = e.flatten(param(p + "att.time_decay"), h + "_td");
  TValue logw = e.map(h + "_logw", {{dz, {}}, {td, {"d1"}}}, xn.shape, [&](Body &bd) {
    return bd.neg(bd.exp(bd.add(bd.arg(1), bd.arg(0))));
  });
  return wkv5(p, h, x, r, k, v, &gz, &logw);
}

TValue RwkvGraph::wkv5(const std::string &p, const std::string &h, const TValue &x,
                       const TValue &r, const TValue &k, const TValue &v, const TValue *gz,
                       const TValue *logDecay) {
  const int64_t C = c.nEmbed, H = c.heads, S = c.headSize;
  // Decay w and bonus u, read in place through indexing maps (no reshape
  // ops): per channel (5.2, 6; 5.1 files may have either), stored (H, S, 1),
  // (H, S) or (C); or per head (5.1), stored (H, 1, 1) or (H), broadcast
  // over the head's channels.
  std::string bonusName = c.architecture == "rwkv5.1" ? "att.time_first" : "att.time_faaaa";
  TValue wv = param(p + "att.time_decay"), uv = param(p + bonusName);
  // The map results reading `t` at head `hd`, key channel `kd`.
  auto headKey = [&](TValue &t, const std::string &hint, const std::string &hd,
                     const std::string &kd) {
    int64_t n = 1;
    std::vector<size_t> big;
    for (size_t i = 0; i < t.shape.size(); ++i) {
      n *= t.shape[i];
      if (t.shape[i] != 1)
        big.push_back(i);
    }
    bool perHead = n == H && H != C;
    std::vector<std::string> m(t.shape.size(), "0");
    if (perHead && big.size() <= 1) {
      if (!big.empty())
        m[big[0]] = hd;
      return m;
    }
    if (!perHead && big.size() == 2 && t.shape[big[0]] == H && t.shape[big[1]] == S) {
      m[big[0]] = hd;
      m[big[1]] = kd;
      return m;
    }
    if (t.shape.size() != 1)
      t = e.flatten(t, hint); // an unusual layout: read it flat
    return std::vector<std::string>{perHead ? hd : hd + " * " + std::to_string(S) + " + " + kd};
  };
  const TValue &M = states.at(p + "att_state"); // (H, key i, value j)

  TValue y;                      // per-head outputs: (1, L, H, S) or, stepping, (H, S)
  std::vector<std::string> yMap; // y over GN loops (l, h, j)
  TValue mNew;                   // (H, i, j)
  if (!step) {
    const std::vector<int64_t> seq4 = opShape({H, S}),
                               st4 = {stateBatch() > 0 ? stateBatch() : 1, H, S, S};
    TValue X = e.expand(v, {{0, 1}, {2, 3}}, seq4, h + "_X");
    TValue B = e.expand(k, {{0, 1}, {2, 3}}, seq4, h + "_B");
    TValue Cq = e.expand(r, {{0, 1}, {2, 3}}, seq4, h + "_C");
    // A = log w per key dim, broadcast over time (RWKV-5; w is clamped to
    // the smallest normal float so that a decay stored as 0 stays finite),
    // or RWKV-6's per-token log decay.
    TValue A;
    if (logDecay) {
      A = e.expand(*logDecay, {{0, 1}, {2, 3}}, seq4, h + "_A");
    } else {
      std::vector<std::string> wMap = headKey(wv, h + "_w", "d2", "d3");
      A = e.map(h + "_A", {{wv, wMap}}, seq4, [&](Body &bd) {
        return bd.log(bd.max(bd.arg(0), bd.cst(1.17549435e-38)));
      });
    }
    std::vector<std::string> uMap = headKey(uv, h + "_u", "d0", "d1");
    TValue bonus = uv.shape == std::vector<int64_t>{H, S}
                       ? uv
                       : e.map(h + "_bonus", {{uv, uMap}}, {H, S},
                               [&](Body &bd) { return bd.arg(0); });
    // The op's state is (batch, H, value j, key i).
    TValue init = e.map(h + "_S0",
                        {{M, stateBatch() > 0 ? std::vector<std::string>{"d0", "d1", "d3", "d2"}
                                       : std::vector<std::string>{"d1", "d3", "d2"}}},
                        st4, [&](Body &bd) { return bd.arg(0); });
    // Chunk size: the per-key decay makes the intra-chunk part cost
    // ~Q * S per token (a decay factor per pair and key) and the state
    // pass ~S * S / Q, so small heads want small chunks: Q = S, between 8
    // and 64 (S = 8: 13.5 ms for 512 tokens of the 12-block tiny model, vs
    // 24.7 ms with Q = 64; measured with ssm-run --repeat).
    const int64_t target = std::clamp<int64_t>(S, 8, 64);
    int64_t chunk = 4;
    while (chunk < seq4[1] && chunk < target)
      chunk *= 2;
    std::string t4 = tensorType(seq4), st4T = tensorType(st4);
    std::string yName = e.fresh(h + "_Y"), sName = e.fresh(h + "_S1");
    e.line(yName + ", " + sName + " = ssm.ssd_scan " + X.name + ", " + A.name + ", " + B.name +
           ", " + Cq.name + " initial_state(" + init.name + ") bonus(" + bonus.name +
           ") {chunk_size = " + std::to_string(chunk) + " : i64} : (" + t4 + ", " + t4 + ", " +
           t4 + ", " + t4 + ", " + st4T + ", " + tensorType({H, S}) + ") -> (" + t4 + ", " +
           st4T + ")");
    y = TValue{yName, seq4};
    yMap = opRowMap({"d1", "d2"});
    mNew = stateBatch() > 0 ? e.map(h + "_state_new", {{TValue{sName, st4}, {"d0", "d1", "d3", "d2"}}},
                             st4, [&](Body &bd) { return bd.arg(0); })
                     : e.map(h + "_state_new", {{TValue{sName, st4}, {"0", "d0", "d2", "d1"}}},
                             {H, S, S}, [&](Body &bd) { return bd.arg(0); });
  } else {
    // r, k, v are (1, C): channel h * S + i of head h.
    auto ch = [&](const std::string &hd, const std::string &kd) {
      return std::vector<std::string>{"0", hd + " * " + std::to_string(S) + " + " + kd};
    };
    // out[h, j] = sum_i r[h,i] (u[h,i] k[h,i] v[h,j] + M[h,i,j]); loops (h, j, i).
    std::vector<std::string> uMap = headKey(uv, h + "_u", "d0", "d2");
    TValue acc = e.zeros({H, S}, h + "_o_zero");
    TValue o = e.generic(h + "_o",
                         {{r, ch("d0", "d2")},
                          {uv, uMap},
                          {k, ch("d0", "d2")},
                          {v, ch("d0", "d1")},
                          {M, {"d0", "d2", "d1"}}},
                         {H, S}, {"d0", "d1"}, {"parallel", "parallel", "reduction"},
                         [&](Body &bd) {
                           std::string ukv = bd.mul(bd.mul(bd.arg(1), bd.arg(2)), bd.arg(3));
                           std::string t = bd.mul(bd.arg(0), bd.add(ukv, bd.arg(4)));
                           return bd.add(bd.arg(5), t);
                         },
                         &acc);
    // M[h, i, j] = w[h, i] M[h, i, j] + k[h, i] v[h, j], w = exp(log decay) for RWKV-6.
    TValue dec;
    std::vector<std::string> wMap;
    if (logDecay) {
      dec = e.map(h + "_w", {{*logDecay, {}}}, logDecay->shape,
                  [&](Body &bd) { return bd.exp(bd.arg(0)); });
      wMap = ch("d0", "d1");
    } else {
      wMap = headKey(wv, h + "_w", "d0", "d1");
      dec = wv;
    }
    mNew = e.map(h + "_state_new",
                 {{dec, wMap}, {M, {}}, {k, ch("d0", "d1")}, {v, ch("d0", "d2")}}, {H, S, S},
                 [&](Body &bd) {
                   return bd.add(bd.mul(bd.arg(0), bd.arg(1)), bd.mul(bd.arg(2), bd.arg(3)));
                 });
    y = o;
    yMap = {"d1", "d2"};
  }

  // ln_x, then the gate silu(g) (5.2, 6).
  std::vector<GenericOperand> extra;
  if (gz)
    extra.push_back({*gz, {"d0", "d1"}});
  TValue flat = groupNorm(p, h, y, yMap, extra, [&](Body &bd, const std::string &z) {
    if (!gz)
      return z;
    std::string g = bd.arg(5);
    return bd.mul(z, bd.mul(g, bd.sigmoid(g)));
  });
  (void)C;
  TValue out = e.linear(flat, param(p + "att.output.weight"), h + "_x", &x);
  newStates.push_back(mNew);
  return out;
}

TValue RwkvGraph::timeMix7(const std::string &p, const TValue &x, const TValue &xn,
                           int64_t layer, bool first) {
  // RWKV-7 (BlinkDL/RWKV-LM RWKV-v7/rwkv_v7_demo.py, rwkv.cpp): with xx =
  // prev - x and x_i = x + xx mix_i (i in r, w, k, v, a, g):
  //   r = Wr xr; w = -exp(-0.5) sigmoid(w0 + w2 tanh(w1 xw)) (log decay)
  //   k = Wk xk; v = Wv xv; a = sigmoid(a0 + a2 a1 xa); g = g2 sigmoid(g1 xg)
  //   kk = L2-normalise per head (k k_k); k = k (1 + (a - 1) k_a)
  //   v = v_first (layer 0) or v + (v_first - v) sigmoid(v0 + v2 v1 xv)
  //   y = wkv7(r, w, k, v, -kk, kk a); y = ln_x(y) + (sum_head r k r_k) v
  //   x += Wo (y g)
  std::string h = layerHint(layer) + "_att";
  const int64_t C = c.nEmbed, H = c.heads, N = c.headSize;
  const std::string Ns = std::to_string(N);
  TValue prev = shifted(xn, states.at(p + "att_xx"), h + "_prev");
  newStates.push_back(lastRow(xn, h + "_xx_new"));
  TValue xx = e.map(h + "_sx", {{prev, {}}, {xn, {}}}, xn.shape,
                    [&](Body &bd) { return bd.sub(bd.arg(0), bd.arg(1)); });
  const TValue &mix6 = param(p + "att.x_rwkvag"); // (6, 1, C) or (6, C)
  auto mixed = [&](int i, const std::string &n) {
    std::vector<std::string> m = mix6.shape.size() == 3
                                     ? std::vector<std::string>{std::to_string(i), "0", "d1"}
                                     : std::vector<std::string>{std::to_string(i), "d1"};
    return e.map(h + "_x" + n, {{xn, {}}, {xx, {}}, {mix6, m}}, xn.shape, [&](Body &bd) {
      return bd.add(bd.arg(0), bd.mul(bd.arg(1), bd.arg(2)));
    });
  };
  TValue xr = mixed(0, "r"), xw = mixed(1, "w"), xk = mixed(2, "k"), xv = mixed(3, "v"),
         xa = mixed(4, "a"), xg = mixed(5, "g");
  auto vec = [&](const std::string &n) { return e.flatten(param(p + "att." + n), h + "_" + n); };
  TValue r = e.linear(xr, param(p + "att.receptance.weight"), h + "_r");
  TValue wz = lowRank(xw, p + "att.w1", p + "att.w2", "tanh", h + "_wz");
  TValue k = e.linear(xk, param(p + "att.key.weight"), h + "_k");
  TValue v = e.linear(xv, param(p + "att.value.weight"), h + "_v");
  TValue az = lowRank(xa, p + "att.a1", p + "att.a2", "", h + "_az");
  TValue a0 = vec("a0");
  TValue a = e.map(h + "_a", {{az, {}}, {a0, {"d1"}}}, xn.shape,
                   [&](Body &bd) { return bd.sigmoid(bd.add(bd.arg(1), bd.arg(0))); });
  TValue g = lowRank(xg, p + "att.g1", p + "att.g2", "sigmoid", h + "_g");
  TValue kkv = vec("k_k");
  TValue kkz = e.map(h + "_kkz", {{k, {}}, {kkv, {"d1"}}}, xn.shape,
                     [&](Body &bd) { return bd.mul(bd.arg(0), bd.arg(1)); });
  // Per-head sums over (l, h, j) read (L, H, N) views: linalg derives the
  // loop bounds from operand dims, so one operand must be indexed by d2 alone.
  auto heads3 = [&](const TValue &t, const std::string &n) {
    return e.expand(t, {{0}, {1, 2}}, {L, H, N}, h + "_" + n + "3");
  };
  TValue kss = e.reduceLast(h + "_kk_ss", {{heads3(kkz, "kkz"), {}}}, {L, H, N},
                            [&](Body &bd) { return bd.mul(bd.arg(0), bd.arg(0)); });
  // F.normalize: x / max(||x||, 1e-12).
  TValue kk = e.map(h + "_kk", {{kkz, {}}, {kss, {"d0", "d1 floordiv " + Ns}}}, xn.shape,
                    [&](Body &bd) {
                      return bd.div(bd.arg(0), bd.max(bd.sqrt(bd.arg(1)), bd.cst(1e-12)));
                    });
  TValue ka = vec("k_a");
  TValue km = e.map(h + "_kmod", {{k, {}}, {a, {}}, {ka, {"d1"}}}, xn.shape, [&](Body &bd) {
    std::string one = bd.cst(1.0);
    return bd.mul(bd.arg(0), bd.add(one, bd.mul(bd.sub(bd.arg(1), one), bd.arg(2))));
  });
  TValue vm = v;
  if (first) {
    vFirst = v;
  } else {
    TValue vz = lowRank(xv, p + "att.v1", p + "att.v2", "", h + "_vz");
    TValue v0 = vec("v0");
    vm = e.map(h + "_vmod", {{v, {}}, {vFirst, {}}, {vz, {}}, {v0, {"d1"}}}, xn.shape,
               [&](Body &bd) {
                 std::string gate = bd.sigmoid(bd.add(bd.arg(3), bd.arg(2)));
                 return bd.add(bd.arg(0), bd.mul(bd.sub(bd.arg(1), bd.arg(0)), gate));
               });
  }
  TValue w0 = vec("w0");
  TValue logw = e.map(h + "_logw", {{wz, {}}, {w0, {"d1"}}}, xn.shape, [&](Body &bd) {
    // exp(-0.5) = 0.606531 of the reference code.
    return bd.mul(bd.cst(-0.60653065971263342), bd.sigmoid(bd.add(bd.arg(1), bd.arg(0))));
  });
  TValue A = e.map(h + "_da", {{kk, {}}}, xn.shape, [&](Body &bd) { return bd.neg(bd.arg(0)); });
  TValue B = e.map(h + "_db", {{kk, {}}, {a, {}}}, xn.shape,
                   [&](Body &bd) { return bd.mul(bd.arg(0), bd.arg(1)); });
  const TValue &M = states.at(p + "att_state"); // (H, value i, key j)

  TValue y;
  std::vector<std::string> yMap;
  TValue mNew;
  if (!step) {
    const std::vector<int64_t> seq4 = opShape({H, N}),
                               st4 = {stateBatch() > 0 ? stateBatch() : 1, H, N, N};
    auto e4 = [&](const TValue &t, const std::string &n) {
      return e.expand(t, {{0, 1}, {2, 3}}, seq4, h + "_" + n + "4");
    };
    TValue r4 = e4(r, "r"), w4 = e4(logw, "w"), k4 = e4(km, "k"), v4 = e4(vm, "v"),
           a4 = e4(A, "a"), b4 = e4(B, "b");
    TValue init = stateBatch() > 0 ? M : e.expand(M, {{0, 1}, {2}, {3}}, st4, h + "_S0");
    std::string t4 = tensorType(seq4), st4T = tensorType(st4);
    std::string yName = e.fresh(h + "_Y"), sName = e.fresh(h + "_S1");
    e.line(yName + ", " + sName + " = ssm.wkv7 " + r4.name + ", " + w4.name + ", " + k4.name +
           ", " + v4.name + ", " + a4.name + ", " + b4.name + " initial_state(" + init.name +
           ") : (" + t4 + ", " + t4 + ", " + t4 + ", " + t4 + ", " + t4 + ", " + t4 + ", " + st4T +
           ") -> (" + t4 + ", " + st4T + ")");
    y = TValue{yName, seq4};
    yMap = opRowMap({"d1", "d2"});
    mNew = stateBatch() > 0 ? TValue{sName, st4}
                     : e.collapse(TValue{sName, st4}, {{0, 1}, {2}, {3}}, {H, N, N},
                                  h + "_state_new");
  } else {
    auto ch = [&](const std::string &hd, const std::string &kd) {
      return std::vector<std::string>{"0", hd + " * " + Ns + " + " + kd};
    };
    TValue dec = e.map(h + "_w", {{logw, {}}}, logw.shape,
                       [&](Body &bd) { return bd.exp(bd.arg(0)); });
    // sa[h, i] = sum_j M[h, i, j] a[h, j]; loops (h, i, j).
    TValue zero = e.zeros({H, N}, h + "_zero");
    TValue sa = e.generic(h + "_sa", {{M, {"d0", "d1", "d2"}}, {A, ch("d0", "d2")}}, {H, N},
                          {"d0", "d1"}, {"parallel", "parallel", "reduction"}, [&](Body &bd) {
                            return bd.add(bd.arg(2), bd.mul(bd.arg(0), bd.arg(1)));
                          }, &zero);
    // M[h, i, j] = M[h, i, j] w[h, j] + sa[h, i] b[h, j] + v[h, i] k[h, j].
    mNew = e.map(h + "_state_new",
                 {{M, {}},
                  {dec, ch("d0", "d2")},
                  {sa, {"d0", "d1"}},
                  {B, ch("d0", "d2")},
                  {vm, ch("d0", "d1")},
                  {km, ch("d0", "d2")}},
                 {H, N, N}, [&](Body &bd) {
                   std::string t = bd.add(bd.mul(bd.arg(0), bd.arg(1)), bd.mul(bd.arg(2), bd.arg(3)));
                   return bd.add(t, bd.mul(bd.arg(4), bd.arg(5)));
                 });
    // y[h, i] = sum_j M[h, i, j] r[h, j].
    y = e.generic(h + "_o", {{mNew, {"d0", "d1", "d2"}}, {r, ch("d0", "d2")}}, {H, N},
                  {"d0", "d1"}, {"parallel", "parallel", "reduction"}, [&](Body &bd) {
                    return bd.add(bd.arg(2), bd.mul(bd.arg(0), bd.arg(1)));
                  }, &zero);
    yMap = {"d1", "d2"};
  }
  // The current token's bonus: (sum over the head of r k r_k) v.
  TValue rkp = param(p + "att.r_k");
  std::vector<std::string> rkMap = {"d1", "d2"};
  if (rkp.shape != std::vector<int64_t>{H, N}) {
    rkp = e.flatten(rkp, h + "_r_k");
    rkMap = {"d1 * " + Ns + " + d2"};
  }
  TValue rk = e.reduceLast(h + "_rk", {{heads3(r, "r"), {}}, {heads3(km, "km"), {}}, {rkp, rkMap}},
                           {L, H, N}, [&](Body &bd) {
                             return bd.mul(bd.mul(bd.arg(0), bd.arg(1)), bd.arg(2));
                           });
  TValue flat = groupNorm(p, h, y, yMap,
                          {{rk, {"d0", "d1 floordiv " + Ns}}, {vm, {"d0", "d1"}}, {g, {"d0", "d1"}}},
                          [&](Body &bd, const std::string &z) {
                            return bd.mul(bd.add(z, bd.mul(bd.arg(5), bd.arg(6))), bd.arg(7));
                          });
  (void)C;
  TValue out = e.linear(flat, param(p + "att.output.weight"), h + "_x", &x);
  newStates.push_back(mNew);
  return out;
}

TValue RwkvGraph::channelMix(const std::string &p, const TValue &x, const TValue &xn,
                             int64_t layer) {
  std::string h = layerHint(layer) + "_ffn";
  TValue prev = shifted(xn, states.at(p + "ffn_xx"), h + "_prev");
  TValue carry = lastRow(xn, h + "_xx_new");
  newStates.insert(newStates.end() - (c.isV5() ? 2 : 4), carry); // ffn_xx comes first
  // RWKV-6/7 mix as x + (prev - x) m; RWKV-4/5 as x m + prev (1 - m): the same lerp.
  auto lerp = [&](const std::string &m, const std::string &hint) {
    if (!c.isV6() && !c.isV7())
      return mix(xn, prev, m, hint);
    TValue mv = e.flatten(param(m), hint + "_m");
    return e.map(hint, {{xn, {}}, {prev, {}}, {mv, {"d1"}}}, xn.shape, [&](Body &bd) {
      return bd.add(bd.arg(0), bd.mul(bd.sub(bd.arg(1), bd.arg(0)), bd.arg(2)));
    });
  };
  TValue xk = lerp(p + (c.isV7() ? "ffn.x_k" : c.isV6() ? "ffn.time_maa_k" : "ffn.time_mix_k"),
                   h + "_xk");
  TValue kz = e.linear(xk, param(p + "ffn.key.weight"), h + "_kz");
  TValue k = e.map(h + "_k", {{kz, {}}}, kz.shape, [&](Body &bd) {
    std::string rl = bd.max(bd.arg(0), bd.cst(0.0));
    return bd.mul(rl, rl);
  });
  if (c.isV7()) // no receptance: x + Wv k
    return e.linear(k, param(p + "ffn.value.weight"), h + "_x", &x);
  TValue xr = lerp(p + (c.isV6() ? "ffn.time_maa_r" : "ffn.time_mix_r"), h + "_xr");
  TValue v = e.linear(k, param(p + "ffn.value.weight"), h + "_v");
  TValue rz = e.linear(xr, param(p + "ffn.receptance.weight"), h + "_rz");
  return e.map(h + "_x", {{x, {}}, {rz, {}}, {v, {}}}, v.shape, [&](Body &bd) {
    return bd.add(bd.arg(0), bd.mul(bd.sigmoid(bd.arg(1)), bd.arg(2)));
  });
}

std::vector<std::string> RwkvGraph::blockParamSuffixes(int64_t layer) const {
  std::vector<std::string> out;
  const std::string p = "blocks." + std::to_string(layer) + ".";
  for (const RwkvParam &q : c.params)
    if (q.name.compare(0, p.size(), p) == 0 && q.name.compare(0, p.size() + 4, p + "ln0.") != 0)
      out.push_back(q.name.substr(p.size()));
  return out;
}

std::vector<std::string> RwkvGraph::blockStateSuffixes() const {
  std::vector<std::string> out;
  const std::string p = "blocks.0.";
  for (const RwkvState &s : rwkvStates(c))
    if (s.name.compare(0, p.size(), p) == 0)
      out.push_back(s.name.substr(p.size()));
  return out;
}

void RwkvGraph::block(graph::BlockScope &s, int64_t layer) {
  batch = s.form.batched() ? s.form.batch : 0;
  streams = s.form.batchedSequence() ? s.form.batch : 0;
  T = s.form.batchedSequence() ? s.form.length : 1;
  L = s.form.rows();
  step = s.form.step();
  params = s.params;
  states = s.states;
  newStates.clear();
  // RWKV-7: the first block makes v_first, the others read it.
  const bool makesVFirst = c.isV7() && layer == 0, readsVFirst = c.isV7() && layer > 0;
  if (readsVFirst)
    vFirst = s.carries.at("v_first");
  const std::string &p = s.paramPrefix;
  const TValue x = s.h;
  TValue xa = layerNorm(x, p + "ln1.weight", p + "ln1.bias", "blk_ln1");
  TValue y = c.isV7()   ? timeMix7(p, x, xa, -1, makesVFirst)
             : c.isV6() ? timeMix6(p, x, xa, -1)
             : c.isV5() ? timeMix5(p, x, xa, -1)
                        : timeMix4(p, x, xa, -1);
  TValue yf = layerNorm(y, p + "ln2.weight", p + "ln2.bias", "blk_ln2");
  s.h = channelMix(p, y, yf, -1);
  s.newStates = newStates;
  if (makesVFirst)
    s.carriesOut["v_first"] = vFirst;
}

} // namespace

namespace layers {

void rwkvBlock(graph::BlockScope &s, const RwkvConfig &c, int64_t layer) {
  RwkvGraph(c, s.e).block(s, layer);
}

TValue rwkvEmbed(graph::ModelScope &s, const RwkvConfig &c, const TValue &tokens) {
  return RwkvGraph(c, s.e).embed(s, tokens);
}

TValue rwkvHead(graph::ModelScope &s, const RwkvConfig &c, const TValue &x) {
  return RwkvGraph(c, s.e).head(s, x);
}

std::vector<std::string> rwkvBlockParamSuffixes(const RwkvConfig &c, int64_t layer) {
  MlirEmitter unused;
  return RwkvGraph(c, unused).blockParamSuffixes(layer);
}

std::vector<std::string> rwkvBlockStateSuffixes(const RwkvConfig &c) {
  MlirEmitter unused;
  return RwkvGraph(c, unused).blockStateSuffixes();
}

} // namespace layers

} // namespace ssm::importer
