// Unit tests for the reference ssm.wkv7 kernel (reference/kernels/Wkv7.h):
// with a = b = 0 it is ssm.ssd_scan's per-key decayed recurrence (another
// kernel), the delta rule overwrites the value stored under a unit key, the
// whole-matrix form, and state carry across calls.
#include "reference/kernels/SsdScan.h"
#include "reference/kernels/Wkv7.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ssm::ref;
using ssm::ref::test::arraysNear;
using ssm::ref::test::randomArray;

namespace {

struct Inputs {
  Array r, w, k, v, a, b;
  Wkv7Args args() const {
    Wkv7Args x;
    x.r = &r;
    x.w = &w;
    x.k = &k;
    x.v = &v;
    x.a = &a;
    x.b = &b;
    return x;
  }
};

Inputs randomInputs(int64_t batch, int64_t len, int64_t heads, int64_t n, unsigned seed) {
  std::vector<int64_t> sh = {batch, len, heads, n};
  Inputs in{randomArray(sh, -1, 1, seed),        randomArray(sh, -0.6, -0.01, seed + 1),
            randomArray(sh, -1, 1, seed + 2),    randomArray(sh, -1, 1, seed + 3),
            randomArray(sh, -0.5, 0.5, seed + 4), randomArray(sh, -0.5, 0.5, seed + 5)};
  return in;
}

/// (b, L, h, n) -> the (b, t, h) slice as a vector.
std::vector<double> row(const Array &x, int64_t b, int64_t t, int64_t h) {
  std::vector<double> out(x.shape[3]);
  for (int64_t i = 0; i < x.shape[3]; ++i)
    out[i] = x.at(b, t, h, i);
  return out;
}

} // namespace

TEST(Wkv7, WithoutTheRankOneTermIsTheDecayedOuterProductScan) {
  Inputs in = randomInputs(2, 7, 3, 4, 11);
  in.a = Array(in.r.shape);
  in.b = Array(in.r.shape);
  Array y, s;
  ASSERT_EQ(wkv7(in.args(), y, s), "");
  // ssd_scan: S_t = exp(A_t) S_{t-1} + X_t B_t^T, Y_t = S_t C_t with the
  // state (P = value, N = key), as wkv7's [value i][key j].
  SsdScanArgs sa;
  sa.X = &in.v;
  sa.A = &in.w;
  sa.B = &in.k;
  sa.C = &in.r;
  Array y2, s2;
  ASSERT_EQ(ssdScan(sa, y2, s2), "");
  EXPECT_TRUE(arraysNear(y, y2, 1e-12));
  EXPECT_TRUE(arraysNear(s, s2, 1e-12));
}

TEST(Wkv7, DeltaRuleReplacesTheValueUnderAUnitKey) {
  // No decay (w = 0), a = -kk, b = kk with |kk| = 1: S <- S - (S kk) kk^T + v kk^T,
  // so S kk = v after each step, whatever was stored under kk before.
  const int64_t n = 3;
  Array r({1, 2, 1, n}), w({1, 2, 1, n}), k({1, 2, 1, n}), v({1, 2, 1, n}), a({1, 2, 1, n}),
      b({1, 2, 1, n});
  double kk[n] = {0.6, 0.0, 0.8};
  double vals[2][n] = {{1.0, -2.0, 0.5}, {3.0, 0.25, -1.0}};
  for (int64_t t = 0; t < 2; ++t)
    for (int64_t j = 0; j < n; ++j) {
      k.at(0, t, 0, j) = kk[j];
      a.at(0, t, 0, j) = -kk[j];
      b.at(0, t, 0, j) = kk[j];
      r.at(0, t, 0, j) = kk[j]; // read back under the same key
      v.at(0, t, 0, j) = vals[t][j];
    }
  Wkv7Args x{&r, &w, &k, &v, &a, &b, nullptr};
  Array y, s;
  ASSERT_EQ(wkv7(x, y, s), "");
  for (int64_t t = 0; t < 2; ++t)
    for (int64_t i = 0; i < n; ++i)
      EXPECT_NEAR(y.at(0, t, 0, i), vals[t][i], 1e-12) << "t " << t << " i " << i;
}

TEST(Wkv7, MatchesTheMatrixForm) {
  // S_t = S_{t-1} (diag(exp w_t) + a_t b_t^T) + v_t k_t^T, y_t = S_t r_t,
  // from a random initial state.
  Inputs in = randomInputs(1, 5, 2, 3, 23);
  Array s0 = randomArray({1, 2, 3, 3}, -1, 1, 29);
  Wkv7Args x = in.args();
  x.initialState = &s0;
  Array y, s;
  ASSERT_EQ(wkv7(x, y, s), "");
  for (int64_t h = 0; h < 2; ++h) {
    double S[3][3];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        S[i][j] = s0.at(0, h, i, j);
    for (int64_t t = 0; t < 5; ++t) {
      std::vector<double> w = row(in.w, 0, t, h), a = row(in.a, 0, t, h),
                          b = row(in.b, 0, t, h), k = row(in.k, 0, t, h),
                          v = row(in.v, 0, t, h), r = row(in.r, 0, t, h);
      double T[3][3], N[3][3];
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          T[i][j] = (i == j ? std::exp(w[i]) : 0.0) + a[i] * b[j];
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          N[i][j] = v[i] * k[j];
          for (int l = 0; l < 3; ++l)
            N[i][j] += S[i][l] * T[l][j];
        }
      for (int i = 0; i < 3; ++i) {
        double out = 0;
        for (int j = 0; j < 3; ++j) {
          S[i][j] = N[i][j];
          out += S[i][j] * r[j];
        }
        EXPECT_NEAR(y.at(0, t, h, i), out, 1e-12);
      }
    }
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        EXPECT_NEAR(s.at(0, h, i, j), S[i][j], 1e-12);
  }
}

TEST(Wkv7, StateCarriesAcrossCalls) {
  Inputs in = randomInputs(2, 6, 2, 4, 31);
  Array y, s;
  ASSERT_EQ(wkv7(in.args(), y, s), "");
  auto part = [&](const Array &x, int64_t t0, int64_t t1) {
    Array o({x.shape[0], t1 - t0, x.shape[2], x.shape[3]});
    for (int64_t b = 0; b < x.shape[0]; ++b)
      for (int64_t t = t0; t < t1; ++t)
        for (int64_t h = 0; h < x.shape[2]; ++h)
          for (int64_t i = 0; i < x.shape[3]; ++i)
            o.at(b, t - t0, h, i) = x.at(b, t, h, i);
    return o;
  };
  Inputs first{part(in.r, 0, 4), part(in.w, 0, 4), part(in.k, 0, 4),
               part(in.v, 0, 4), part(in.a, 0, 4), part(in.b, 0, 4)};
  Inputs second{part(in.r, 4, 6), part(in.w, 4, 6), part(in.k, 4, 6),
                part(in.v, 4, 6), part(in.a, 4, 6), part(in.b, 4, 6)};
  Array y1, s1, y2, s2;
  ASSERT_EQ(wkv7(first.args(), y1, s1), "");
  Wkv7Args x2 = second.args();
  x2.initialState = &s1;
  ASSERT_EQ(wkv7(x2, y2, s2), "");
  EXPECT_TRUE(arraysNear(y2, part(y, 4, 6), 1e-12));
  EXPECT_TRUE(arraysNear(s2, s, 1e-12));
}

TEST(Wkv7, ShapeErrorsNameTheOperand) {
  Inputs in = randomInputs(1, 3, 2, 4, 41);
  Array bad({1, 3, 2, 5}), s({1, 2, 4, 5});
  Array y, fs;
  Wkv7Args x = in.args();
  x.a = &bad;
  EXPECT_NE(wkv7(x, y, fs).find("operand 'a' has shape (1, 3, 2, 5)"), std::string::npos);
  x = in.args();
  x.initialState = &s;
  EXPECT_NE(wkv7(x, y, fs).find("'initial_state'"), std::string::npos);
  x = in.args();
  x.k = nullptr;
  EXPECT_NE(wkv7(x, y, fs).find("missing required operand 'k'"), std::string::npos);
  Array r3({3, 2, 4});
  x = in.args();
  x.r = &r3;
  EXPECT_NE(wkv7(x, y, fs).find("'r'"), std::string::npos);
}
