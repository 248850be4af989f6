// Halide kernel of ssm.attention: the algorithm only (codegen/schedules/AttentionSchedule.cpp schedules it).
#include "codegen/kernels/AttentionKernel.h"
#include "codegen/kernels/MathExt.h"

#include <algorithm>
#include <limits>

namespace ssm::codegen {

using namespace Halide;

AttentionKernel buildAttention(const AttentionKernelInputs &in) {
  const char *op = "ssm.attention kernel";
  checkOperandRank(op, in.q, "q", 4);
  checkOperandRank(op, in.k, "k", 4);
  checkOperandRank(op, in.v, "v", 4);
  checkOperandRank(op, in.kCache, "k_cache", 4);
  checkOperandRank(op, in.vCache, "v_cache", 4);
  checkOperandRank(op, in.position, "position", 1);
  auto need = [&](const Expr &e, const char *what) {
    std::optional<int64_t> c = constInt(e);
    if (!c || *c <= 0)
      throw CompileError(std::string(op) + ": " + what + " must be a positive constant extent");
    return static_cast<int>(*c);
  };
  AttentionKernel k;
  // The caches' rows: C, or, where the caches are an in-place function's
  // arguments (Translate.cpp), the rows the runtime passes, 0 .. p + L - 1,
  // so that the key tiles cover what the queries can read, not the whole
  // capacity.
  const Expr C = in.kCache.shape[1];
  k.capacity = constInt(C).value_or(0);
  k.heads = need(in.q.shape[2], "the query heads H");
  k.kvHeads = need(in.k.shape[2], "the KV heads Hkv");
  k.headDim = need(in.q.shape[3], "the head size D");
  k.valueDim = need(in.v.shape[3], "the value head size Dv");
  if (k.heads % k.kvHeads)
    throw CompileError(std::string(op) + ": H must be a multiple of Hkv");
  const int group = k.heads / k.kvHeads;
  const int Dv = k.valueDim;
  const Expr len = in.q.shape[1];
  k.decode = constInt(len) == std::optional<int64_t>(1);
  const int Tq = k.decode ? 1 : std::max(1, in.queryTile);
  const int Tk = in.keyTile > 0 ? in.keyTile
                                : (k.decode ? kAttentionDecodeKeyTile : kAttentionKeyTile);
  k.queryTile = Tq;
  k.keyTile = Tk;

  Var d("d"), c("c"), g("g"), h("h"), b("b"), i("i"), ii("ii"), io("io"), jj("jj"), t("t");
  Expr p0 = clamp(in.position.func(b), 0, max(C - len, 0));
  auto written = [&](Expr row) { return row >= p0 && row < p0 + len; };
  // The keys and values the queries read: this call's rows from k and v,
  // the others from the caches as given. The kernel's results, the caches
  // with this call's rows written, are the same expressions, but nothing in
  // the kernel reads them: a runtime that passes the caches' new rows alone
  // as the result buffers, written in place, gets exactly those rows
  // computed.
  auto key = [&](Expr ch, Expr kvHead, Expr row) {
    return select(written(row), in.k.func(ch, kvHead, clamp(row - p0, 0, len - 1), b),
                  in.kCache.func(ch, kvHead, row, b));
  };
  auto value = [&](Expr ch, Expr kvHead, Expr row) {
    return select(written(row), in.v.func(ch, kvHead, clamp(row - p0, 0, len - 1), b),
                  in.vCache.func(ch, kvHead, row, b));
  };
  k.kNew = Func("attn_k_cache");
  k.kNew(d, g, i, b) = key(d, g, i);
  k.vNew = Func("attn_v_cache");
  k.vNew(d, g, i, b) = value(d, g, i);

  const float scale = static_cast<float>(in.scale);
  // The max of no readable score: finite (Halide's Float(32).min() is
  // -inf, and the max row's weight times a zero value must stay 0, not NaN).
  const Expr lowest = Expr(-std::numeric_limits<float>::max());
  k.qs = Func("attn_q");
  k.qs(ii, d, h, io, b) = in.q.func(d, h, min(io * Tq + ii, len - 1), b) * scale;
  Expr row = min(t * Tk + jj, C - 1);
  k.kt = Func("attn_k_tile");
  k.kt(d, jj, g, t, b) = key(d, g, row);
  k.vt = Func("attn_v_tile");
  // Row Tk of the value tile is the unit vector of column Dv + 1: its
  // weight (below) is the tile's max, which the weighted sums then carry.
  k.vt(c, jj, g, t, b) =
      select(jj < Tk, select(c < Dv, value(min(c, Dv - 1), g, row), select(c == Dv, 1.0f, 0.0f)),
             select(c == Dv + 1, 1.0f, 0.0f));

  // The key tiles query tile io can read (the others' partials are never
  // combined): their reductions are predicated on it, so that where the
  // caches' rows are a constant C (several streams per call, each at its
  // own position) the tiles past a stream's position cost no loads.
  Expr tileRead = t * Tk <= min(p0 + io * Tq + (Tq - 1), C - 1);
  if (in.window > 0)
    tileRead = tileRead && t * Tk + (Tk - 1) > p0 + io * Tq - static_cast<int>(in.window);
  k.s = Func("attn_score");
  k.s(ii, jj, t, h, io, b) = 0.0f;
  const int lanes = std::max(1, in.lanes);
  if (k.decode && lanes > 1 && k.headDim % lanes == 0) {
    // One query: each key row's dot product as lanes partial sums over the
    // row's vectors (read in place, contiguous), then one horizontal sum.
    Var l("l");
    k.channels = RDom(0, k.headDim / lanes, "dvec");
    k.channels.where(tileRead);
    k.sp = Func("attn_score_lanes");
    k.sp(l, jj, t, h, io, b) = 0.0f;
    Expr ch = k.channels * lanes + l;
    k.sp(l, jj, t, h, io, b) += k.qs(0, ch, h, io, b) * key(ch, h / group, row);
    k.lanesDom = RDom(0, lanes, "lane");
    k.s(ii, jj, t, h, io, b) += k.sp(k.lanesDom, jj, t, h, io, b);
  } else {
    k.channels = RDom(0, k.headDim, "dch");
    k.channels.where(tileRead);
    k.s(ii, jj, t, h, io, b) += k.qs(ii, k.channels, h, io, b) * k.kt(k.channels, jj, h / group, t, b);
  }

  // Query i reads rows first(i) .. p + i (and never past the caches' rows).
  auto readable = [&](Expr qi, Expr j) {
    Expr last = min(p0 + qi, C - 1);
    Expr ok = j <= last;
    if (in.window > 0)
      ok = ok && j > p0 + qi - static_cast<int>(in.window);
    return ok;
  };
  Expr qi = io * Tq + ii;
  k.keys = RDom(0, Tk, "key");
  k.mt = Func("attn_tile_max");
  k.mt(ii, t, h, io, b) = lowest;
  k.mt(ii, t, h, io, b) = max(k.mt(ii, t, h, io, b),
                              select(readable(qi, t * Tk + k.keys), k.s(ii, k.keys, t, h, io, b), lowest));
  k.pt = Func("attn_tile_weight");
  Expr mtHere = k.mt(ii, t, h, io, b);
  k.pt(ii, jj, t, h, io, b) =
      select(jj < Tk,
             select(readable(qi, t * Tk + jj),
                    accurateExp(k.s(ii, min(jj, Tk - 1), t, h, io, b) - mtHere), 0.0f),
             mtHere);
  // The weighted sums over the Tk keys and the extra row Tk, whose weight
  // is mt and whose value is the unit vector of column Dv + 1: the tile's
  // max lands in column Dv + 1 with no stage of its own (so the scores are
  // computed once, inside the one loop over the tiles).
  k.part = Func("attn_tile_part");
  k.part(ii, c, t, h, io, b) = 0.0f;
  k.partKeys = RDom(0, Tk + 1, "keyx");
  k.partKeys.where(tileRead);
  k.part(ii, c, t, h, io, b) += k.pt(ii, k.partKeys, t, h, io, b) * k.vt(c, k.partKeys, h / group, t, b);

  // The key tiles query tile io reads: from its first query's window start
  // to its last query's row.
  Expr nTiles = (C + (Tk - 1)) / Tk;
  Expr tLast = min(p0 + io * Tq + (Tq - 1), C - 1) / Tk;
  Expr tFirst = in.window > 0 ? max(p0 + io * Tq - static_cast<int>(in.window) + 1, 0) / Tk : Expr(0);
  k.tiles = RDom(0, nTiles, "tile");
  k.tiles.where(k.tiles <= tLast);
  if (in.window > 0)
    k.tiles.where(k.tiles >= tFirst);
  k.m = Func("attn_max");
  k.m(ii, h, io, b) = lowest;
  k.m(ii, h, io, b) = max(k.m(ii, h, io, b), k.part(ii, Dv + 1, k.tiles, h, io, b));
  k.comb = Func("attn_comb");
  k.comb(ii, c, h, io, b) = 0.0f;
  k.fac = Func("attn_tile_factor");
  k.fac(ii, t, h, io, b) = accurateExp(k.part(ii, Dv + 1, t, h, io, b) - k.m(ii, h, io, b));
  k.comb(ii, c, h, io, b) += k.fac(ii, k.tiles, h, io, b) * k.part(ii, c, k.tiles, h, io, b);
  k.out = Func("attn_out");
  Var dv("dv");
  k.out(dv, h, i, b) = k.comb(i % Tq, dv, h, i / Tq, b) / k.comb(i % Tq, Dv, h, i / Tq, b);

  std::vector<Expr> outShape = {in.q.shape[0], len, in.q.shape[2], in.v.shape[3]};
  k.result = {{TensorFunc{k.out, outShape}, TensorFunc{k.kNew, in.kCache.shape},
               TensorFunc{k.vNew, in.vCache.shape}}};
  return k;
}

} // namespace ssm::codegen
