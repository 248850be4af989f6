// Reference ssm.attention: the definition, in f64 (two passes per query: the maximum, then the weights).
#include "reference/kernels/Attention.h"
#include "reference/kernels/ShapeCheck.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ssm::ref {

std::string attention(const AttentionArgs &args, Array &out, Array &kCacheNew, Array &vCacheNew) {
  const char *op = "ssm.attention";
  for (auto [name, a] : {std::pair<const char *, const Array *>{"q", args.q}, {"k", args.k},
                         {"v", args.v}, {"k_cache", args.kCache}})
    if (std::string e = detail::checkData(op, name, a); !e.empty())
      return e;
    else if (a->rank() != 4)
      return detail::badShape(op, name, *a, "rank 4");
  const Array &q = *args.q;
  const int64_t batch = q.shape[0], len = q.shape[1], heads = q.shape[2], d = q.shape[3];
  const int64_t hkv = args.k->shape[2], dv = args.v->shape[3], cap = args.kCache->shape[1];
  if (std::string e = detail::checkShape(op, "k", args.k, {batch, len, hkv, d}); !e.empty())
    return e;
  if (std::string e = detail::checkShape(op, "v", args.v, {batch, len, hkv, dv}); !e.empty())
    return e;
  if (std::string e = detail::checkShape(op, "k_cache", args.kCache, {batch, cap, hkv, d});
      !e.empty())
    return e;
  if (std::string e = detail::checkShape(op, "v_cache", args.vCache, {batch, cap, hkv, dv});
      !e.empty())
    return e;
  if (std::string e = detail::checkShape(op, "position", args.position, {batch}); !e.empty())
    return e;
  if (hkv <= 0 || heads % hkv != 0)
    return std::string(op) + ": " + std::to_string(heads) + " query heads are not a multiple of " +
           std::to_string(hkv) + " KV heads";
  const int64_t group = heads / hkv;
  kCacheNew = *args.kCache;
  vCacheNew = *args.vCache;
  out = Array({batch, len, heads, dv});
  std::vector<double> s(cap);
  for (int64_t b = 0; b < batch; ++b) {
    const double pd = args.position->data[b];
    if (!(pd >= 0.0) || pd + double(len) > double(cap))
      return std::string(op) + ": stream " + std::to_string(b) + " at position " +
             std::to_string(int64_t(pd)) + " with " + std::to_string(len) +
             " new tokens passes the caches' capacity C = " + std::to_string(cap);
    const int64_t p0 = int64_t(pd);
    for (int64_t t = 0; t < len; ++t)
      for (int64_t g = 0; g < hkv; ++g) {
        for (int64_t c = 0; c < d; ++c)
          kCacheNew.at(b, p0 + t, g, c) = args.k->at(b, t, g, c);
        for (int64_t c = 0; c < dv; ++c)
          vCacheNew.at(b, p0 + t, g, c) = args.v->at(b, t, g, c);
      }
    for (int64_t t = 0; t < len; ++t) {
      const int64_t p = p0 + t;
      const int64_t first = args.window > 0 ? std::max<int64_t>(0, p - args.window + 1) : 0;
      for (int64_t h = 0; h < heads; ++h) {
        const int64_t g = h / group;
        double m = -INFINITY;
        for (int64_t j = first; j <= p; ++j) {
          double dot = 0.0;
          for (int64_t c = 0; c < d; ++c)
            dot += q.at(b, t, h, c) * kCacheNew.at(b, j, g, c);
          s[j] = args.scale * dot;
          m = std::max(m, s[j]);
        }
        double sum = 0.0;
        for (int64_t j = first; j <= p; ++j)
          sum += (s[j] = std::exp(s[j] - m));
        for (int64_t c = 0; c < dv; ++c) {
          double acc = 0.0;
          for (int64_t j = first; j <= p; ++j)
            acc += s[j] * vCacheNew.at(b, j, g, c);
          out.at(b, t, h, c) = acc / sum;
        }
      }
    }
  }
  return "";
}

} // namespace ssm::ref
