// Halide kernel of ssm.attention: causal grouped-query attention over a KV cache, by tiles of queries against tiles of keys.
#ifndef SSM_CODEGEN_KERNELS_ATTENTIONKERNEL_H
#define SSM_CODEGEN_KERNELS_ATTENTIONKERNEL_H

#include "codegen/kernels/Kernel.h"
#include "codegen/kernels/KernelResult.h"

namespace ssm::codegen {

struct AttentionKernelInputs {
  TensorFunc q, k, v;         // (batch, L, H, D), (batch, L, Hkv, D), (batch, L, Hkv, Dv)
  TensorFunc kCache, vCache;  // (batch, C, Hkv, D), (batch, C, Hkv, Dv); C constant or the rows the runtime passes
  TensorFunc position;        // (batch) i32
  double scale = 1.0;
  int64_t window = 0;
  /// Queries per tile (#ssm.schedule channel_tile) and keys per tile
  /// (#ssm.schedule chunk; 0: the default, kAttentionKeyTile, or
  /// kAttentionDecodeKeyTile for one query). They shape the algorithm (the
  /// tile partials below), so they are read on every target.
  int queryTile = 16;
  int keyTile = 0;
  /// f32 lanes of the target's vectors: the decode form's partial dot
  /// products (#ssm.schedule vector_width).
  int lanes = 8;
};

constexpr int kAttentionKeyTile = 64;
constexpr int kAttentionDecodeKeyTile = 256;

/// outputs = {out (batch, L, H, Dv), k_cache_new, v_cache_new}: the
/// semantics of reference/kernels/Attention.h in f32, in the tiled form of
/// FlashAttention (Dao et al. 2022) and flash-decoding (Dao et al. 2023):
/// queries in tiles of Tq, keys in tiles of Tk; a (query tile, key tile)
/// pair gives, per query, the tile's score max m_t, the sum of
/// exp(score - m_t) and the weighted sum of the values; a query's result
/// combines its tiles with the factors exp(m_t - m), m the max over its
/// tiles. The score matrix exists only as one Tq x Tk tile at a time; the
/// partials, (Dv + 2) per query per key tile, are the only thing kept
/// across tiles. Every tile is independent, so the key tiles of one
/// query can run in parallel (the decode schedule does). Stages
/// (Halide dims, innermost first; i = io * Tq + ii, key j = t * Tk + jj):
///
///   kNew, vNew (d, g, c, b)     the caches with rows p .. p+L-1 replaced
///                               (results 1, 2; nothing below reads them,
///                               so a runtime may ask for the new rows alone)
///   qs(ii, d, h, io, b)         scale * q, queries along the vectors
///   kt(d, jj, g, t, b)          the key tile (this call's rows from k, the
///                               others from k_cache)
///   vt(c, jj, g, t, b)          the value tile, c < Dv; column Dv is 1 (its
///                               weighted sum is the tile's weight sum),
///                               column Dv + 1 is 0; row Tk is the unit
///                               vector of column Dv + 1
///   s(ii, jj, t, h, io, b)      qs . kt over the D channels (decode, D a
///                               multiple of the lanes: the sum of
///                               sp(l, ...), lane l's partial dot product
///                               over channels l, l + lanes, ..., read from
///                               the rows in place; kt is then unused)
///   mt(ii, t, h, io, b)         max of the readable scores of the tile
///                               (first(i) <= j <= p + i), lowest if none
///   pt(ii, jj, t, h, io, b)     exp(s - mt) where readable, else 0; at
///                               jj = Tk, mt
///   part(ii, c, t, h, io, b)    sum over jj <= Tk of pt * vt; so column
///                               Dv + 1 holds mt
///   m(ii, h, io, b)             max over the tiles the query tile reads
///   fac(ii, t, h, io, b)        exp(mt - m)
///   comb(ii, c, h, io, b)       sum over those tiles of fac * part
///   out(dv, h, i, b)            comb(dv) / comb(Dv)
///
/// The tiles a query tile reads are t in [tFirst, tLast] (RDom `tiles`
/// with where-clauses), from its first query's window start to its last
/// query's row p + i: no work above the causal diagonal beyond one tile.
/// The position is clamped to 0 .. C - L (the runtime refuses longer
/// streams first).
struct AttentionKernel {
  KernelResult result;
  Halide::Func kNew, vNew;
  Halide::Func qs, kt, vt, s, mt, pt, part, m, fac, comb, out;
  Halide::Func sp;        // decode: sp(l, jj, t, h, io, b), lanes partial dot products
  Halide::RDom lanesDom;  // decode: the lanes of sp summed into s
  Halide::RDom channels;  // the D channels of the dot products
  Halide::RDom keys;      // the Tk keys of a tile (the tile max)
  Halide::RDom partKeys;  // the Tk keys and the max row (the weighted sums)
  Halide::RDom tiles;     // the key tiles a query tile reads
  int capacity = 0; // C, or 0 where the runtime passes the readable rows (symbolic)
  int heads = 0, kvHeads = 0, headDim = 0, valueDim = 0;
  int queryTile = 0, keyTile = 0;
  bool decode = false; // one query per call (L == 1): the decode schedule
};
AttentionKernel buildAttention(const AttentionKernelInputs &in);

} // namespace ssm::codegen

#endif // SSM_CODEGEN_KERNELS_ATTENTIONKERNEL_H
