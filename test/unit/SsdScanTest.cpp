// Unit tests for the reference ssm.ssd_scan: by hand, the quadratic dual form, Mamba-1 equivalence, RWKV-5 bonus.
#include "reference/kernels/SsdScan.h"
#include "reference/kernels/SelectiveScan.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace ssm::ref;
using namespace ssm; // the ops' enums (dialect/SsmEnums.h)
using ssm::ref::test::arraysNear;
using ssm::ref::test::randomArray;

namespace {

std::string ssd(const Array &X, const Array &A, const Array &B, const Array &C,
                const Array *init, const Array *bonus, Array &Y, Array &fin) {
  SsdScanArgs args;
  args.X = &X, args.A = &A, args.B = &B, args.C = &C;
  args.initialState = init, args.bonus = bonus;
  return ssdScan(args, Y, fin);
}

} // namespace

TEST(SsdScanTest, ScalarByHand) {
  // p = n = 1, decay 0.5, X = (1, 2), B = C = 1: S = (1, 2.5) = Y.
  // With bonus u = 3 (RWKV-5): Y_t = S_{t-1} + 3 X_t = (3, 1 + 6).
  Array X({1, 2, 1, 1}, {1, 2}), A({1, 2, 1}, {std::log(0.5), std::log(0.5)});
  Array B({1, 2, 1, 1}, {1, 1}), C({1, 2, 1, 1}, {1, 1}), u({1, 1}, {3});
  Array Y, fin;
  ASSERT_EQ(ssd(X, A, B, C, nullptr, nullptr, Y, fin), "");
  EXPECT_TRUE(arraysNear(Y, Array({1, 2, 1, 1}, {1, 2.5}), 1e-15));
  EXPECT_NEAR(fin[0], 2.5, 1e-15);
  ASSERT_EQ(ssd(X, A, B, C, nullptr, &u, Y, fin), "");
  EXPECT_TRUE(arraysNear(Y, Array({1, 2, 1, 1}, {3, 7}), 1e-15));
  EXPECT_NEAR(fin[0], 2.5, 1e-15);
}

TEST(SsdScanTest, MatchesTheQuadraticDualForm) {
  // The reference runs the recurrence S_t = exp(A_t) S_{t-1} + X_t B_t^T,
  // y_t = S_t C_t. This checks it against the other form of the same map,
  // the "state space dual" of the Mamba-2 paper (Dao and Gu 2024, section
  // 4; ssd_minimal_discrete's quadratic path): with the decay products
  // Lmask[t][s] = exp(A_{s+1} + ... + A_t) for s <= t,
  //   y_t = sum_{s <= t} Lmask[t][s] (C_t . B_s) X_s + exp(A_1 + ... + A_t) S_0 C_t,
  //   S_L = sum_s Lmask[L][s] X_s B_s^T + exp(A_1 + ... + A_L) S_0,
  // an attention-like sum over positions that never forms a running state.
  int64_t bs = 2, L = 6, h = 4, g = 2, p = 3, n = 2;
  Array X = randomArray({bs, L, h, p}, -1, 1, 111), A = randomArray({bs, L, h}, -1, 0, 112);
  Array B = randomArray({bs, L, g, n}, -1, 1, 113), C = randomArray({bs, L, g, n}, -1, 1, 114);
  Array init = randomArray({bs, h, p, n}, -1, 1, 115);
  Array Y, fin;
  ASSERT_EQ(ssd(X, A, B, C, &init, nullptr, Y, fin), "");
  for (int64_t b = 0; b < bs; ++b)
    for (int64_t hd = 0; hd < h; ++hd) {
      int64_t grp = hd * g / h; // head hd reads group hd / (h / g)
      // cum[t] = A_0 + ... + A_{t-1} (cum[0] = 0): Lmask[t][s] = exp(cum[t+1] - cum[s+1]).
      std::vector<double> cum(L + 1, 0.0);
      for (int64_t t = 0; t < L; ++t)
        cum[t + 1] = cum[t] + A.at(b, t, hd);
      for (int64_t t = 0; t < L; ++t)
        for (int64_t j = 0; j < p; ++j) {
          double y = 0;
          for (int64_t s = 0; s <= t; ++s) {
            double cb = 0;
            for (int64_t i = 0; i < n; ++i)
              cb += C.at(b, t, grp, i) * B.at(b, s, grp, i);
            y += std::exp(cum[t + 1] - cum[s + 1]) * cb * X.at(b, s, hd, j);
          }
          double s0c = 0;
          for (int64_t i = 0; i < n; ++i)
            s0c += init.at(b, hd, j, i) * C.at(b, t, grp, i);
          y += std::exp(cum[t + 1]) * s0c;
          EXPECT_NEAR(Y.at(b, t, hd, j), y, 1e-13) << "b " << b << " t " << t << " head " << hd;
        }
      for (int64_t j = 0; j < p; ++j)
        for (int64_t i = 0; i < n; ++i) {
          double s = std::exp(cum[L]) * init.at(b, hd, j, i);
          for (int64_t u = 0; u < L; ++u)
            s += std::exp(cum[L] - cum[u + 1]) * X.at(b, u, hd, j) * B.at(b, u, grp, i);
          EXPECT_NEAR(fin.at(b, hd, j, i), s, 1e-13);
        }
    }
}

TEST(SsdScanTest, EqualsTimeMajorSelectiveScan) {
  // Mamba-2 as Mamba-1: channel d = head * p + j with delta dt[head], A[d, :] =
  // A_head, u = x; SSD gets X = x dt and A_t = dt A_head. Same group mapping.
  int64_t bs = 1, L = 7, h = 4, g = 2, p = 2, n = 3, dim = h * p;
  Array x = randomArray({bs, L, h, p}, -1, 1, 121), dt = randomArray({bs, L, h}, 0.1, 1, 122);
  Array aHead = randomArray({h}, -1, -0.1, 123);
  Array B = randomArray({bs, L, g, n}, -1, 1, 124), C = randomArray({bs, L, g, n}, -1, 1, 125);
  Array X(x.shape), A(dt.shape), u({bs, L, dim}), delta({bs, L, dim}), Ad({dim, n});
  for (int64_t t = 0; t < L; ++t)
    for (int64_t hd = 0; hd < h; ++hd) {
      A.at(0, t, hd) = dt.at(0, t, hd) * aHead[hd];
      for (int64_t j = 0; j < p; ++j) {
        X.at(0, t, hd, j) = x.at(0, t, hd, j) * dt.at(0, t, hd);
        u.at(0, t, hd * p + j) = x.at(0, t, hd, j);
        delta.at(0, t, hd * p + j) = dt.at(0, t, hd);
        for (int64_t i = 0; i < n; ++i)
          Ad.at(hd * p + j, i) = aHead[hd];
      }
    }
  Array Y, fin;
  ASSERT_EQ(ssd(X, A, B, C, nullptr, nullptr, Y, fin), "");
  SelectiveScanArgs sa;
  sa.u = &u, sa.delta = &delta, sa.A = &Ad, sa.B = &B, sa.C = &C;
  sa.layout = Layout::time_major;
  Array y, hLast;
  ASSERT_EQ(selectiveScan(sa, y, hLast), "");
  // (b, L, h, p) is (b, L, h * p) and (b, h, p, n) is (b, h * p, n) in C order.
  EXPECT_TRUE(arraysNear(Array(y.shape, Y.data), y, 1e-14));
  EXPECT_TRUE(arraysNear(Array(hLast.shape, fin.data), hLast, 1e-14));
}

TEST(SsdScanTest, PerKeyDecayWithEqualEntriesEqualsScalar) {
  int64_t bs = 1, L = 6, h = 2, p = 2, n = 3;
  Array X = randomArray({bs, L, h, p}, -1, 1, 131), A = randomArray({bs, L, h}, -1, 0, 132);
  Array B = randomArray({bs, L, h, n}, -1, 1, 133), C = randomArray({bs, L, h, n}, -1, 1, 134);
  Array A4({bs, L, h, n});
  for (int64_t t = 0; t < L; ++t)
    for (int64_t hd = 0; hd < h; ++hd)
      for (int64_t i = 0; i < n; ++i)
        A4.at(0, t, hd, i) = A.at(0, t, hd);
  Array Y1, f1, Y2, f2;
  ASSERT_EQ(ssd(X, A, B, C, nullptr, nullptr, Y1, f1), "");
  ASSERT_EQ(ssd(X, A4, B, C, nullptr, nullptr, Y2, f2), "");
  EXPECT_TRUE(arraysNear(Y1, Y2, 0));
  EXPECT_TRUE(arraysNear(f1, f2, 0));
}

TEST(SsdScanTest, BonusOneWithoutDecayEqualsMamba2Form) {
  // With exp(A) = 1 and u = 1, S_{t-1} + u k v^T is exactly S_t, so the RWKV
  // form reads the same as the Mamba-2 form.
  int64_t bs = 2, L = 5, h = 2, p = 3, n = 4;
  Array X = randomArray({bs, L, h, p}, -1, 1, 141), A({bs, L, h});
  Array B = randomArray({bs, L, h, n}, -1, 1, 142), C = randomArray({bs, L, h, n}, -1, 1, 143);
  Array ones({h, n});
  for (double &v : ones.data)
    v = 1.0;
  Array Y1, f1, Y2, f2;
  ASSERT_EQ(ssd(X, A, B, C, nullptr, nullptr, Y1, f1), "");
  ASSERT_EQ(ssd(X, A, B, C, nullptr, &ones, Y2, f2), "");
  EXPECT_TRUE(arraysNear(Y1, Y2, 1e-14));
  EXPECT_TRUE(arraysNear(f1, f2, 0));
}

TEST(SsdScanTest, Errors) {
  Array X({1, 4, 4, 2}), A({1, 4, 4}), B({1, 4, 3, 2}), C({1, 4, 3, 2}), Y, fin;
  EXPECT_NE(ssd(X, A, B, C, nullptr, nullptr, Y, fin).find("'B'"), std::string::npos);
  Array B2({1, 4, 2, 2}), C2({1, 4, 2, 2}), Abad({1, 4, 2});
  EXPECT_NE(ssd(X, Abad, B2, C2, nullptr, nullptr, Y, fin).find("'A'"), std::string::npos);
  Array bonus({4, 3});
  EXPECT_NE(ssd(X, A, B2, C2, nullptr, &bonus, Y, fin).find("'bonus'"), std::string::npos);
}
