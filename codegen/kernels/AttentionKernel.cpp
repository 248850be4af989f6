// Halide kernel of ssm.attention: the algorithm only (codegen/schedules/AttentionSchedule.cpp schedules it).
#include "codegen/kernels/AttentionKernel.h"
#include "codegen/kernels/MathExt.h"

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
  // so that the keys loop runs over what the queries can read, not the
  // whole capacity.
  const Expr C = in.kCache.shape[1];
  k.capacity = constInt(C).value_or(0);
  k.heads = need(in.q.shape[2], "the query heads H");
  k.kvHeads = need(in.k.shape[2], "the KV heads Hkv");
  k.headDim = need(in.q.shape[3], "the head size D");
  k.valueDim = need(in.v.shape[3], "the value head size Dv");
  if (k.heads % k.kvHeads)
    throw CompileError(std::string(op) + ": H must be a multiple of Hkv");
  const int group = k.heads / k.kvHeads;
  Expr len = in.q.shape[1];

  Var d("d"), g("g"), c("c"), b("b"), j("j"), h("h"), i("i");
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
  k.kNew(d, g, c, b) = key(d, g, c);
  k.vNew = Func("attn_v_cache");
  k.vNew(d, g, c, b) = value(d, g, c);
  k.channels = RDom(0, k.headDim, "dch");
  k.score = Func("attn_score");
  k.score(j, h, i, b) = 0.0f;
  k.score(j, h, i, b) += in.q.func(k.channels, h, i, b) * key(k.channels, h / group, j);

  // The rows query i reads: first(i) .. p0 + i.
  Expr last = p0 + i;
  Expr first = in.window > 0 ? max(last - static_cast<int>(in.window) + 1, 0) : Expr(0);
  k.keys = RDom(0, C, "key");
  k.keys.where(k.keys <= last);
  k.keys.where(k.keys >= first);
  const float scale = static_cast<float>(in.scale);

  k.rowMax = Func("attn_row_max");
  k.rowMax(h, i, b) = Float(32).min();
  k.rowMax(h, i, b) = max(k.rowMax(h, i, b), k.score(k.keys, h, i, b) * scale);
  k.weight = Func("attn_weight");
  k.weight(j, h, i, b) = accurateExp(k.score(j, h, i, b) * scale - k.rowMax(h, i, b));
  k.rowSum = Func("attn_row_sum");
  k.rowSum(h, i, b) = 0.0f;
  k.rowSum(h, i, b) += k.weight(k.keys, h, i, b);
  k.acc = Func("attn_acc");
  k.acc(d, h, i, b) = 0.0f;
  k.acc(d, h, i, b) += k.weight(k.keys, h, i, b) * value(d, h / group, k.keys);
  k.out = Func("attn_out");
  k.out(d, h, i, b) = k.acc(d, h, i, b) / k.rowSum(h, i, b);

  std::vector<Expr> outShape = {in.q.shape[0], len, in.q.shape[2], in.v.shape[3]};
  k.result = {{TensorFunc{k.out, outShape}, TensorFunc{k.kNew, in.kCache.shape},
               TensorFunc{k.vNew, in.vCache.shape}}};
  return k;
}

} // namespace ssm::codegen
