// Halide kernel of ssm.ssd_scan: chunked SSD, register-blocked small matrix products per chunk.
#include "codegen/kernels/SsdScanKernel.h"
#include "codegen/kernels/MathExt.h"

#include <initializer_list>
#include <string>

namespace ssm::codegen {

using namespace Halide;

namespace {

int64_t constExtent(const Expr &e, const char *what) {
  const int64_t *c = Internal::as_const_int(e);
  if (!c || *c <= 0)
    throw CompileError(std::string("ssm.ssd_scan kernel: ") + what +
                       " must be a positive constant extent");
  return *c;
}

/// The first candidate that divides `extent`, else 1.
int pickDivisor(int64_t extent, std::initializer_list<int> candidates) {
  for (int c : candidates)
    if (c > 0 && extent % c == 0)
      return c;
  return 1;
}

} // namespace

SsdScanKernel buildSsdScan(const SsdScanKernelInputs &in, int vectorWidth) {
  if (in.X.rank() != 4 || in.B.rank() != 4 || in.C.rank() != 4 ||
      (in.A.rank() != 3 && in.A.rank() != 4))
    throw CompileError("ssm.ssd_scan kernel: X, B, C must be rank 4 and A rank 3 or 4");
  if (in.chunkSize <= 0)
    throw CompileError("ssm.ssd_scan kernel: chunk_size must be positive");
  const int Q = in.chunkSize;
  const bool perKey = in.A.rank() == 4;
  const bool hasBonus = in.bonus.has_value();
  const int64_t P = constExtent(in.X.shape[3], "the head dim P");
  const int64_t N = constExtent(in.B.shape[3], "the state dim N");
  Expr len = in.X.shape[1];
  Expr nHeads = in.X.shape[2];
  Expr nGroups = in.B.shape[2];
  Expr nChunks = (len + (Q - 1)) / Q;
  Expr lastT = max(len - 1, 0);

  // Register blocks: pT x (second dim) accumulators, vectors of pV along P.
  const int vw = vectorWidth;
  int pV = pickDivisor(P, {vw, 8, 4, 2});
  int pT = P % (2 * pV) == 0 ? 2 * pV : pV;
  int accs = pT == 2 * pV ? 4 : 8; // second-dim block: about 8 accumulators
  int nT = pickDivisor(N, {accs, 4, 2});
  int iT = pickDivisor(Q, {accs, 4, 2});
  int jV = pickDivisor(Q, {vw, 8, 4, 2});
  int jT = Q % (2 * jV) == 0 ? 2 * jV : jV;
  int iTg = pickDivisor(Q, {jT == 2 * jV ? 4 : 8, 4, 2});
  int nV = pickDivisor(N, {vw, 8, 4, 2});

  Var p("p"), n("n"), i("i"), j("j"), c("c"), hh("hh"), g("g"), bb("bb"), k("k"), t("t");
  Var io("io"), ii("ii");
  auto tOf = [&](Expr chunk, Expr pos) { return chunk * Q + pos; };
  auto groupOf = [&](Expr head) { return head / (nHeads / nGroups); };

  // ---- Log decays, padded with 0 past L; inclusive cumulative sum per chunk.
  Func ac("ssd_logdecay"), cum("ssd_cum");
  RDom ri(1, Q - 1, "i");
  if (perKey) {
    Expr tt = tOf(c, i);
    ac(n, i, hh, c, bb) = select(tt < len, in.A.func(n, hh, clamp(tt, 0, lastT), bb), 0.0f);
    cum(n, i, hh, c, bb) = ac(n, i, hh, c, bb);
    cum(n, ri, hh, c, bb) = cum(n, ri - 1, hh, c, bb) + ac(n, ri, hh, c, bb);
  } else {
    Expr tt = tOf(c, i);
    ac(i, hh, c, bb) = select(tt < len, in.A.func(hh, clamp(tt, 0, lastT), bb), 0.0f);
    cum(i, hh, c, bb) = ac(i, hh, c, bb);
    cum(ri, hh, c, bb) = cum(ri - 1, hh, c, bb) + ac(ri, hh, c, bb);
  }
  // Decay seen by the output at position i: S_i (inclusive) without bonus,
  // S_{i-1} (exclusive) with it.
  auto cumAt = [&](Expr nn, Expr pos, Expr head, Expr chunk, Expr batch) {
    return perKey ? cum(nn, pos, head, chunk, batch) : cum(pos, head, chunk, batch);
  };
  auto cqAt = [&](Expr nn, Expr pos, Expr head, Expr chunk, Expr batch) {
    Expr v = cumAt(nn, pos, head, chunk, batch);
    if (hasBonus)
      v -= perKey ? ac(nn, pos, head, chunk, batch) : ac(pos, head, chunk, batch);
    return v;
  };

  // Per-head decay factors (scalar decay): to the chunk end (keys), from the
  // chunk start (queries), over the whole chunk (state).
  Func wB("ssd_decay_to_end"), wC("ssd_decay_from_start"), dC("ssd_chunk_decay");
  if (perKey) {
    dC(n, hh, c, bb) = accurateExp(cum(n, Q - 1, hh, c, bb));
  } else {
    wB(j, hh, c, bb) = accurateExp(cum(Q - 1, hh, c, bb) - cum(j, hh, c, bb));
    wC(i, hh, c, bb) = accurateExp(cqAt(Expr(), i, hh, c, bb));
    dC(hh, c, bb) = accurateExp(cum(Q - 1, hh, c, bb));
  }

  // Padded views of the inputs for one chunk (each consumer gets its own copy
  // computed per chunk, so the matrix products read dense, unguarded data).
  auto makeXc = [&](const std::string &name) {
    Func f(name);
    Expr tt = tOf(c, j);
    f(p, j, hh, c, bb) = select(tt < len, in.X.func(p, hh, clamp(tt, 0, lastT), bb), 0.0f);
    return f;
  };
  auto bAt = [&](Expr nn, Expr pos, Expr grp, Expr chunk, Expr batch) {
    return in.B.func(nn, grp, clamp(tOf(chunk, pos), 0, lastT), batch);
  };
  auto cAt = [&](Expr nn, Expr pos, Expr grp, Expr chunk, Expr batch) {
    return in.C.func(nn, grp, clamp(tOf(chunk, pos), 0, lastT), batch);
  };

  // ---- Chunk-boundary states St(p, n, k) = S after k chunks (k = 0: h0).
  Func xcS = makeXc("ssd_x_state");
  Func bd("ssd_b_decayed");
  if (perKey)
    bd(n, j, hh, c, bb) = bAt(n, j, groupOf(hh), c, bb) *
                          accurateExp(cum(n, Q - 1, hh, c, bb) - cum(n, j, hh, c, bb));
  else
    bd(n, j, hh, c, bb) = bAt(n, j, groupOf(hh), c, bb) * wB(j, hh, c, bb);

  Func accS("ssd_chunk_state");
  RDom rjS(0, Q, "j");
  accS(p, n, hh, c, bb) = 0.0f;
  accS(p, n, hh, c, bb) += xcS(p, rjS, hh, c, bb) * bd(n, rjS, hh, c, bb);

  Func st("ssd_states");
  RDom rc(0, nChunks, "c");
  // No pure step: k = 0 is written by the first update, k > 0 by the scan.
  st(p, n, k, hh, bb) = undef<float>();
  st(p, n, 0, hh, bb) = in.initialState ? Expr(in.initialState->func(n, p, hh, bb)) : Expr(0.0f);
  Expr decay = perKey ? dC(n, hh, rc, bb) : dC(hh, rc, bb);
  st(p, n, rc + 1, hh, bb) = decay * st(p, n, rc, hh, bb) + accS(p, n, hh, rc, bb);

  Func fin("ssd_final_state");
  fin(n, p, hh, bb) = st(p, n, nChunks, hh, bb);

  // ---- Output: Y = Gm^T-weighted X within the chunk + decayed C . S_{c-1}.
  Func gm("ssd_intra_weights"); // gm(j, i): weight of X_j in Y_i
  Func gg("ssd_cb");            // C_i . B_j per group (scalar decay only)
  Func ggAcc("ssd_cb_block");
  Func bt("ssd_b_transposed");  // bt(j, n) = B(n, j)
  Func diag("ssd_bonus_diag");  // sum_n C u B at j == i (bonus)
  Func cumT("ssd_cum_transposed");
  RDom rn(0, int(N), "n");
  if (hasBonus) {
    diag(i, hh, c, bb) = 0.0f;
    diag(i, hh, c, bb) += cAt(rn, i, groupOf(hh), c, bb) * in.bonus->func(rn, hh) *
                          bAt(rn, i, groupOf(hh), c, bb);
  }
  Expr keep = hasBonus ? j < i : j <= i;
  Expr diagTerm = hasBonus ? select(j == i, diag(i, hh, c, bb), 0.0f) : Expr(0.0f);
  Func gk("ssd_intra_perkey");
  if (perKey) {
    bt(j, n, hh, c, bb) = bAt(n, j, groupOf(hh), c, bb);
    cumT(j, n, hh, c, bb) = cum(n, j, hh, c, bb);
    gk(j, i, hh, c, bb) = 0.0f;
    gk(j, i, hh, c, bb) += bt(j, rn, hh, c, bb) * cAt(rn, i, groupOf(hh), c, bb) *
                           accurateExp(cqAt(rn, i, hh, c, bb) - cumT(j, rn, hh, c, bb));
    gm(j, i, hh, c, bb) = select(keep, gk(j, i, hh, c, bb), diagTerm);
  } else {
    bt(j, n, g, c, bb) = bAt(n, j, g, c, bb);
    ggAcc(j, i, g, c, bb) = 0.0f;
    ggAcc(j, i, g, c, bb) += bt(j, rn, g, c, bb) * cAt(rn, i, g, c, bb);
    gg(j, i, g, c, bb) = ggAcc(j, i, g, c, bb);
    gm(j, i, hh, c, bb) =
        select(keep,
               gg(j, i, groupOf(hh), c, bb) *
                   accurateExp(cqAt(Expr(), i, hh, c, bb) - cum(j, hh, c, bb)),
               diagTerm);
  }
  Func cd("ssd_c_decayed");
  if (perKey)
    cd(n, i, hh, c, bb) =
        cAt(n, i, groupOf(hh), c, bb) * accurateExp(cqAt(n, i, hh, c, bb));
  else
    cd(n, i, hh, c, bb) = cAt(n, i, groupOf(hh), c, bb) * wC(i, hh, c, bb);

  Func xcY = makeXc("ssd_x_out");
  // accY(p, ii, io) is the block of output rows i = io * iT + ii. Indexing by
  // the block lets the causal mask (gm is 0 for j > i) trim the j loop to
  // j < (io + 1) * iT: the where clause depends on io only.
  Func accY("ssd_y_block");
  RDom rjY(0, Q, "j");
  Expr iOf = io * iT + ii;
  rjY.where(rjY < io * iT + iT);
  accY(p, ii, io, hh, c, bb) = 0.0f;
  accY(p, ii, io, hh, c, bb) += xcY(p, rjY, hh, c, bb) * gm(rjY, iOf, hh, c, bb);
  accY(p, ii, io, hh, c, bb) += st(p, rn, c, hh, bb) * cd(rn, iOf, hh, c, bb);

  Func yc("ssd_y_chunk"); // one chunk of Y, (P, Q), block by block
  yc(p, i, hh, c, bb) = accY(p, i % iT, i / iT, hh, c, bb);
  Func y("ssd_Y");
  y(p, hh, t, bb) = yc(p, t % Q, hh, t / Q, bb);

  std::vector<Expr> finShape = {in.X.shape[0], in.X.shape[2], in.X.shape[3], in.B.shape[3]};
  SsdScanKernel kernel;
  kernel.ac = ac;
  kernel.cum = cum;
  kernel.wB = wB;
  kernel.wC = wC;
  kernel.dC = dC;
  kernel.xcS = xcS;
  kernel.bd = bd;
  kernel.accS = accS;
  kernel.st = st;
  kernel.fin = fin;
  kernel.gm = gm;
  kernel.gg = gg;
  kernel.ggAcc = ggAcc;
  kernel.bt = bt;
  kernel.diag = diag;
  kernel.cumT = cumT;
  kernel.gk = gk;
  kernel.cd = cd;
  kernel.xcY = xcY;
  kernel.accY = accY;
  kernel.yc = yc;
  kernel.y = y;
  kernel.ri = ri;
  kernel.rjS = rjS;
  kernel.rc = rc;
  kernel.rn = rn;
  kernel.rjY = rjY;
  kernel.perKey = perKey;
  kernel.hasBonus = hasBonus;
  kernel.P = P;
  kernel.N = N;
  kernel.Q = Q;
  kernel.pV = pV;
  kernel.pT = pT;
  kernel.nT = nT;
  kernel.iT = iT;
  kernel.jV = jV;
  kernel.jT = jT;
  kernel.iTg = iTg;
  kernel.nV = nV;
  kernel.result = {{TensorFunc{y, in.X.shape}, TensorFunc{fin, finShape}}};
  return kernel;
}

} // namespace ssm::codegen
