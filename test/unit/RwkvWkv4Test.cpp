// Unit tests for the reference ssm.wkv4 kernel (reference/kernels/Wkv4.h):
// the stabilised recurrence against the plain weighted sums it stands for,
// overflow-free operation at large k, and state carry across calls.
#include "reference/kernels/Wkv4.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ssm::ref;
using ssm::ref::test::arraysNear;
using ssm::ref::test::randomArray;

namespace {

/// wkv_t = (sum_{s<t} e^{(t-1-s) w + k_s} v_s + e^{u + k_t} v_t) / (same with v = 1).
Array naiveWkv(const Array &w, const Array &u, const Array &k, const Array &v) {
  Array out(k.shape);
  for (int64_t b = 0; b < k.shape[0]; ++b)
    for (int64_t c = 0; c < k.shape[2]; ++c)
      for (int64_t t = 0; t < k.shape[1]; ++t) {
        double num = std::exp(u[c] + k.at(b, t, c)) * v.at(b, t, c);
        double den = std::exp(u[c] + k.at(b, t, c));
        for (int64_t s = 0; s < t; ++s) {
          double e = std::exp(double(t - 1 - s) * w[c] + k.at(b, s, c));
          num += e * v.at(b, s, c);
          den += e;
        }
        out.at(b, t, c) = num / den;
      }
  return out;
}

} // namespace

TEST(Wkv4, MatchesThePlainWeightedSums) {
  Array w = randomArray({6}, -2.0, -0.05, 1);
  Array u = randomArray({6}, -0.5, 0.5, 2);
  Array k = randomArray({2, 9, 6}, -3.0, 3.0, 3);
  Array v = randomArray({2, 9, 6}, -1.0, 1.0, 4);
  Wkv4Args a;
  a.w = &w;
  a.u = &u;
  a.k = &k;
  a.v = &v;
  Array wkv, aa, bb, pp;
  ASSERT_EQ(wkv4(a, wkv, aa, bb, pp), "");
  EXPECT_TRUE(arraysNear(wkv, naiveWkv(w, u, k, v), 1e-12));
  // The state is the running sums scaled by e^-pp.
  for (int64_t c = 0; c < 6; ++c) {
    double den = 0;
    for (int64_t s = 0; s < 9; ++s)
      den += std::exp(double(8 - s) * w[c] + k.at(1, s, c));
    EXPECT_NEAR(bb.at(1, c) * std::exp(pp.at(1, c)), den, 1e-9 * den);
  }
}

TEST(Wkv4, LargeExponentsStayFinite) {
  // k around 100 overflows exp in f32 and f64 alike without the running maximum.
  Array w({2}, {-0.5, -1.0});
  Array u({2}, {0.3, -0.2});
  Array k({1, 4, 2}, {100, 700, 95, 710, 120, 690, 100, 720});
  Array v({1, 4, 2}, {1, -1, 2, 3, 0.5, 1, -2, 0});
  Wkv4Args a;
  a.w = &w;
  a.u = &u;
  a.k = &k;
  a.v = &v;
  Array wkv, aa, bb, pp;
  ASSERT_EQ(wkv4(a, wkv, aa, bb, pp), "");
  for (double x : wkv.data)
    EXPECT_TRUE(std::isfinite(x));
  // Dominated by the largest exponent: token 2 of channel 0 (k = 120).
  EXPECT_NEAR(wkv.at(0, 2, 0), 0.5, 1e-6);
}

TEST(Wkv4, StateCarriesAcrossCalls) {
  Array w = randomArray({5}, -1.5, -0.1, 11);
  Array u = randomArray({5}, -0.5, 0.5, 12);
  Array k = randomArray({1, 8, 5}, -2.0, 2.0, 13);
  Array v = randomArray({1, 8, 5}, -1.0, 1.0, 14);
  Wkv4Args a;
  a.w = &w;
  a.u = &u;
  a.k = &k;
  a.v = &v;
  Array whole, aa, bb, pp;
  ASSERT_EQ(wkv4(a, whole, aa, bb, pp), "");
  // The same 8 tokens as 3 + 5, the second call starting from the first's state.
  Array k1({1, 3, 5}), v1({1, 3, 5}), k2({1, 5, 5}), v2({1, 5, 5});
  for (int64_t t = 0; t < 8; ++t)
    for (int64_t c = 0; c < 5; ++c) {
      (t < 3 ? k1.at(0, t, c) : k2.at(0, t - 3, c)) = k.at(0, t, c);
      (t < 3 ? v1.at(0, t, c) : v2.at(0, t - 3, c)) = v.at(0, t, c);
    }
  Array y1, a1, b1, p1, y2, a2, b2, p2;
  a.k = &k1;
  a.v = &v1;
  ASSERT_EQ(wkv4(a, y1, a1, b1, p1), "");
  a.k = &k2;
  a.v = &v2;
  a.aa = &a1;
  a.bb = &b1;
  a.pp = &p1;
  ASSERT_EQ(wkv4(a, y2, a2, b2, p2), "");
  for (int64_t t = 0; t < 8; ++t)
    for (int64_t c = 0; c < 5; ++c)
      EXPECT_NEAR(t < 3 ? y1.at(0, t, c) : y2.at(0, t - 3, c), whole.at(0, t, c), 1e-12);
  EXPECT_TRUE(arraysNear(a2, aa, 1e-12));
  EXPECT_TRUE(arraysNear(b2, bb, 1e-12));
  EXPECT_TRUE(arraysNear(p2, pp, 1e-12));
}

TEST(Wkv4, ShapeErrorsNameTheOperand) {
  Array w({3}), u({4}), k({1, 2, 3}), v({1, 2, 3}), s({1, 3});
  Wkv4Args a;
  a.w = &w;
  a.u = &u;
  a.k = &k;
  a.v = &v;
  Array o0, o1, o2, o3;
  EXPECT_NE(wkv4(a, o0, o1, o2, o3).find("'u'"), std::string::npos);
  u = Array({3});
  a.aa = &s;
  EXPECT_NE(wkv4(a, o0, o1, o2, o3).find("go together"), std::string::npos);
  Array bad({2, 3});
  a.bb = &bad;
  a.pp = &s;
  EXPECT_NE(wkv4(a, o0, o1, o2, o3).find("'bb'"), std::string::npos);
}
