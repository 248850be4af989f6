// The Mamba-1 block as a layer of the model skeleton (import/layers/MambaBlock.h).
#include "import/layers/MambaBlock.h"
#include "import/layers/Layers.h"

namespace ssm::importer::layers {

using graph::BlockScope;
using Body = GenericBody;

void mambaBlock(BlockScope &s, const MambaConfig &c) {
  MlirEmitter &e = s.e;
  const TValue h = s.h;
  const int64_t L = s.form.rows(), batch = s.form.batched() ? s.form.batch : 0;
  const int64_t nb = batch > 0 ? batch : 1; // the ops' batch dim
  const bool step = s.form.step() || s.form.batched();
  // The scan's (streams, tokens): (1, L), or (B, T) in the batched sequence
  // (rows stream-major: row b * T + t is stream b's token t).
  const int64_t sb = s.form.batchedSequence() ? s.form.batch : 1, T = L / sb;
  const int64_t di = c.intermediateSize, n = c.stateSize, r = c.timeStepRank, w = c.convKernel;
  const TValue &convState = s.state("conv_state"), &ssmState = s.state("ssm_state");
  auto param = [&](const std::string &suffix) -> const TValue & {
    return s.param("mixer." + suffix);
  };
  auto addBias = [&](const TValue &x, const TValue &b, const std::string &hint) {
    return e.map(hint, {{x, {}}, {b, {"d1"}}}, x.shape,
                 [](Body &bd) { return bd.add(bd.arg(0), bd.arg(1)); });
  };

  e.line("// RMSNorm, then the mixer's in_proj, split into x and z.");
  TValue xn = rmsNorm(e, h, s.param("norm.weight"), c.layerNormEpsilon, "normed");
  TValue xz = e.linear(xn, param("in_proj.weight"), "xz");
  if (c.useBias)
    xz = addBias(xz, param("in_proj.bias"), "xz_b");
  TValue x = e.slice(xz, {0, 0}, {L, di}, {L, di}, "x");
  TValue z = e.slice(xz, {0, di}, {L, di}, {L, di}, "zgate");

  e.line("// Depthwise causal conv (width " + std::to_string(w) +
         ") + silu, channel-major, from the carried window.");
  ShortConv conv = shortConv(e, s.form, x, param("conv1d.weight"),
                             c.useConvBias ? &param("conv1d.bias") : nullptr, convState);
  s.newStates.push_back(conv.window);
  const TValue &u = conv.y;

  e.line("// x_proj -> (dt, B, C); dt_proj lifts dt to d_inner (its bias goes to the scan).");
  TValue xdbl = e.linear(u, param("x_proj.weight"), "xdbl");
  TValue dtr = e.slice(xdbl, {0, 0}, {L, r}, {L, r}, "dtr");
  TValue B = e.slice(xdbl, {0, r}, {L, n}, {L, n}, "B");
  TValue C = e.slice(xdbl, {0, r + n}, {L, n}, {L, n}, "C");
  TValue dt = e.linear(dtr, param("dt_proj.weight"), "dt");

  e.line("// A = -exp(A_log).");
  TValue A = e.map("A", {{param("A_log"), {}}}, {di, n},
                   [](Body &b) { return b.neg(b.exp(b.arg(0))); });
  const TValue &D = param("D"), &dtBias = param("dt_proj.bias");
  TValue y2;
  if (step) {
    e.line("// One step of the selective scan: softplus(dt + bias), D skip, silu(z) gate.");
    TValue st = batch > 0 ? ssmState : e.expand(ssmState, {{0, 1}, {2}}, {1, di, n}, "h0");
    TValue y{e.fresh("y"), {nb, di}}, hNew{e.fresh("ssm_final"), {nb, di, n}};
    e.line(y.name + ", " + hNew.name + " = ssm.selective_update " + st.name + ", " + u.name +
           ", " + dt.name + ", " + A.name + ", " + B.name + ", " + C.name + " D(" + D.name +
           ") z(" + z.name + ") dt_bias(" + dtBias.name + ") {dt_softplus} : (" +
           tensorType(st.shape) + ", " + tensorType(u.shape) + ", " + tensorType(dt.shape) +
           ", " + tensorType(A.shape) + ", " + tensorType(B.shape) + ", " +
           tensorType(C.shape) + ", " + tensorType(D.shape) + ", " + tensorType(z.shape) +
           ", " + tensorType(dtBias.shape) + ") -> (" + tensorType(y.shape) + ", " +
           tensorType(hNew.shape) + ")");
    s.newStates.push_back(batch > 0 ? hNew
                                    : e.collapse(hNew, {{0, 1}, {2}}, {di, n}, "ssm_state_new"));
    y2 = y;
  } else {
    e.line("// The selective scan from the carried state: softplus(dt + bias), D skip, silu(z) "
           "gate.");
    TValue u3 = e.expand(u, {{0, 1}, {2}}, {sb, T, di}, "u3");
    TValue dt3 = e.expand(dt, {{0, 1}, {2}}, {sb, T, di}, "dt3");
    TValue z3 = e.expand(z, {{0, 1}, {2}}, {sb, T, di}, "z3");
    TValue B3 = e.expand(B, {{0, 1}, {2}}, {sb, T, n}, "B3");
    TValue C3 = e.expand(C, {{0, 1}, {2}}, {sb, T, n}, "C3");
    TValue h0 = s.form.batchedSequence() ? ssmState
                                         : e.expand(ssmState, {{0, 1}, {2}}, {1, di, n}, "h0");
    TValue y{e.fresh("y"), {sb, T, di}}, hLast{e.fresh("ssm_final"), {sb, di, n}};
    e.line(y.name + ", " + hLast.name + " = ssm.selective_scan time_major " + u3.name + ", " +
           dt3.name + ", " + A.name + ", " + B3.name + ", " + C3.name + " D(" + D.name + ") z(" +
           z3.name + ") delta_bias(" + dtBias.name + ") h0(" + h0.name +
           ") {delta_softplus} : (" + tensorType(u3.shape) + ", " + tensorType(dt3.shape) +
           ", " + tensorType(A.shape) + ", " + tensorType(B3.shape) + ", " +
           tensorType(C3.shape) + ", " + tensorType(D.shape) + ", " + tensorType(z3.shape) +
           ", " + tensorType(dtBias.shape) + ", " + tensorType(h0.shape) + ") -> (" +
           tensorType(y.shape) + ", " + tensorType(hLast.shape) + ")");
    s.newStates.push_back(s.form.batchedSequence()
                              ? hLast
                              : e.collapse(hLast, {{0, 1}, {2}}, {di, n}, "ssm_state_new"));
    y2 = e.collapse(y, {{0, 1}, {2}}, {L, di}, "y2");
  }

  e.line("// out_proj, accumulated onto the residual stream.");
  if (!c.useBias) {
    s.h = e.linear(y2, param("out_proj.weight"), "h_out", &h);
    return;
  }
  TValue o = e.linear(y2, param("out_proj.weight"), "out");
  s.h = e.map("h_out", {{h, {}}, {o, {}}, {param("out_proj.bias"), {"d1"}}}, h.shape,
              [](Body &b) { return b.add(b.arg(0), b.add(b.arg(1), b.arg(2))); });
}

} // namespace ssm::importer::layers
