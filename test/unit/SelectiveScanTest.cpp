// Unit tests for the reference ssm.selective_scan: hand values, decomposition, layouts, B/C forms.
#include "reference/kernels/SelectiveScan.h"
#include "reference/kernels/Activations.h"
#include "reference/kernels/AffineScan.h"
#include "reference/kernels/Discretize.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ssm::ref;
using namespace ssm; // the ops' enums (dialect/SsmEnums.h)
using ssm::ref::test::arraysNear;
using ssm::ref::test::randomArray;
using ssm::ref::test::swapLast2;

namespace {

/// Random channel-major problem: batch 2, dim 4, N 3, L 6.
struct Problem {
  int64_t batch = 2, dim = 4, n = 3, len = 6;
  Array u = randomArray({2, 4, 6}, -1, 1, 11);
  Array delta = randomArray({2, 4, 6}, -2, 1, 12);
  Array A = randomArray({4, 3}, -2, -0.1, 13);
  Array B = randomArray({2, 3, 6}, -1, 1, 14);
  Array C = randomArray({2, 3, 6}, -1, 1, 15);
  Array D = randomArray({4}, -1, 1, 16);
  Array z = randomArray({2, 4, 6}, -2, 2, 17);
  Array bias = randomArray({4}, -1, 1, 18);

  SelectiveScanArgs args() const {
    SelectiveScanArgs a;
    a.u = &u;
    a.delta = &delta;
    a.A = &A;
    a.B = &B;
    a.C = &C;
    a.D = &D;
    a.z = &z;
    a.deltaBias = &bias;
    a.deltaSoftplus = true;
    return a;
  }
};

} // namespace

TEST(SelectiveScanTest, WorkedExample) {
  // exp(delta A) = 0.8 with delta 1, B = C = 1, u = (1, 0, 2): y = (1, 0.8, 2.64).
  Array u({1, 1, 3}, {1, 0, 2}), delta({1, 1, 3}, {1, 1, 1});
  Array A({1, 1}, {std::log(0.8)}), B({1, 1}, {1}), C({1, 1}, {1});
  SelectiveScanArgs args;
  args.u = &u;
  args.delta = &delta;
  args.A = &A;
  args.B = &B;
  args.C = &C;
  Array y, hLast;
  ASSERT_EQ(selectiveScan(args, y, hLast), "");
  EXPECT_TRUE(arraysNear(y, Array({1, 1, 3}, {1, 0.8, 2.64}), 1e-14));
  EXPECT_NEAR(hLast[0], 2.64, 1e-14);
  // D adds D u; z = 0 gates everything to 0 since silu(0) = 0.
  Array D({1}, {0.5}), z({1, 1, 3});
  args.D = &D;
  ASSERT_EQ(selectiveScan(args, y, hLast), "");
  EXPECT_TRUE(arraysNear(y, Array({1, 1, 3}, {1.5, 0.8, 3.64}), 1e-14));
  args.z = &z;
  ASSERT_EQ(selectiveScan(args, y, hLast), "");
  EXPECT_TRUE(arraysNear(y, Array({1, 1, 3}), 0));
  EXPECT_NEAR(hLast[0], 2.64, 1e-14); // the gate does not touch the state
}

TEST(SelectiveScanTest, EqualsDiscretizePlusAffineScan) {
  // ssm-decompose's view: zoh A, euler B, an affine scan per state, a readout.
  Problem p;
  Array y, hLast;
  ASSERT_EQ(selectiveScan(p.args(), y, hLast), "");
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t d = 0; d < p.dim; ++d) {
      std::vector<double> acc(p.len, 0.0);
      for (int64_t i = 0; i < p.n; ++i) {
        Array aBar({p.len}), bx({p.len});
        for (int64_t t = 0; t < p.len; ++t) {
          double dt = softplus(p.delta.at(b, d, t) + p.bias[d]);
          aBar[t] = discretizeA(Discretization::zoh, p.A.at(d, i), dt);
          bx[t] = discretizeB(Discretization::euler, p.A.at(d, i), p.B.at(b, i, t), dt) *
                  p.u.at(b, d, t);
        }
        AffineScanArgs sa;
        sa.a = &aBar;
        sa.b = &bx;
        Array h, last;
        ASSERT_EQ(affineScan(sa, h, last), "");
        for (int64_t t = 0; t < p.len; ++t)
          acc[t] += h[t] * p.C.at(b, i, t);
        EXPECT_NEAR(hLast.at(b, d, i), last[0], 1e-13);
      }
      for (int64_t t = 0; t < p.len; ++t) {
        double x = p.u.at(b, d, t);
        EXPECT_NEAR(y.at(b, d, t), (acc[t] + p.D[d] * x) * silu(p.z.at(b, d, t)), 1e-13);
      }
    }
}

TEST(SelectiveScanTest, TimeMajorEqualsChannelMajor) {
  Problem p;
  Array y, hLast;
  ASSERT_EQ(selectiveScan(p.args(), y, hLast), "");
  Array u = swapLast2(p.u), delta = swapLast2(p.delta), z = swapLast2(p.z);
  Array B = swapLast2(p.B), C = swapLast2(p.C); // (batch, L, N)
  SelectiveScanArgs a = p.args();
  a.layout = Layout::time_major;
  a.u = &u;
  a.delta = &delta;
  a.z = &z;
  a.B = &B;
  a.C = &C;
  Array yT, hLastT;
  ASSERT_EQ(selectiveScan(a, yT, hLastT), "");
  EXPECT_TRUE(arraysNear(swapLast2(yT), y, 1e-14));
  EXPECT_TRUE(arraysNear(hLastT, hLast, 1e-14));
}

TEST(SelectiveScanTest, ConstantEqualsReplicatedPerChannelGroups) {
  // Constant (dim, N) B/C equal grouped B/C with one group per channel,
  // replicated over batch and time.
  Problem p;
  Array Bc = randomArray({4, 3}, -1, 1, 21), Cc = randomArray({4, 3}, -1, 1, 22);
  Array Bg({2, 4, 3, 6}), Cg({2, 4, 3, 6});
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t d = 0; d < 4; ++d)
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t t = 0; t < 6; ++t) {
          Bg.at(b, d, i, t) = Bc.at(d, i);
          Cg.at(b, d, i, t) = Cc.at(d, i);
        }
  SelectiveScanArgs a = p.args();
  a.B = &Bc;
  a.C = &Cc;
  Array y1, h1, y2, h2;
  ASSERT_EQ(selectiveScan(a, y1, h1), "");
  a.B = &Bg;
  a.C = &Cg;
  ASSERT_EQ(selectiveScan(a, y2, h2), "");
  EXPECT_TRUE(arraysNear(y1, y2, 1e-14));
  EXPECT_TRUE(arraysNear(h1, h2, 1e-14));
  // Mixed: constant B with per-token C is allowed too.
  a.B = &Bc;
  a.C = &p.C;
  ASSERT_EQ(selectiveScan(a, y1, h1), "");
}

TEST(SelectiveScanTest, GroupMapping) {
  // G = 2 over dim 4: channels 0, 1 use group 0 and 2, 3 use group 1. Each
  // group must equal a per-token run on its channels alone.
  Problem p;
  Array Bg = randomArray({2, 2, 3, 6}, -1, 1, 23), Cg = randomArray({2, 2, 3, 6}, -1, 1, 24);
  SelectiveScanArgs a = p.args();
  a.B = &Bg;
  a.C = &Cg;
  Array y, hLast;
  ASSERT_EQ(selectiveScan(a, y, hLast), "");
  for (int64_t g = 0; g < 2; ++g) {
    Array B({2, 3, 6}), C({2, 3, 6});
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t t = 0; t < 6; ++t) {
          B.at(b, i, t) = Bg.at(b, g, i, t);
          C.at(b, i, t) = Cg.at(b, g, i, t);
        }
    a.B = &B;
    a.C = &C;
    Array yg, hg;
    ASSERT_EQ(selectiveScan(a, yg, hg), "");
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t d = 2 * g; d < 2 * g + 2; ++d)
        for (int64_t t = 0; t < 6; ++t)
          EXPECT_NEAR(y.at(b, d, t), yg.at(b, d, t), 1e-14) << "group " << g;
  }
}

TEST(SelectiveScanTest, SoftplusFlagEqualsPrecomputedDelta) {
  Problem p;
  Array y1, h1, y2, h2;
  ASSERT_EQ(selectiveScan(p.args(), y1, h1), "");
  Array delta(p.delta.shape);
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t d = 0; d < 4; ++d)
      for (int64_t t = 0; t < 6; ++t)
        delta.at(b, d, t) = softplus(p.delta.at(b, d, t) + p.bias[d]);
  SelectiveScanArgs a = p.args();
  a.delta = &delta;
  a.deltaBias = nullptr;
  a.deltaSoftplus = false;
  ASSERT_EQ(selectiveScan(a, y2, h2), "");
  EXPECT_TRUE(arraysNear(y1, y2, 1e-15));
  EXPECT_TRUE(arraysNear(h1, h2, 1e-15));
}

TEST(SelectiveScanTest, SplitAtH0EqualsFullSequence) {
  // Chunked prefill: scan the first 4 steps, carry h_last into the last 2.
  Problem p;
  Array y, hLast;
  ASSERT_EQ(selectiveScan(p.args(), y, hLast), "");
  auto slice = [](const Array &x, int64_t t0, int64_t t1) {
    Array r({x.shape[0], x.shape[1], t1 - t0});
    for (int64_t i = 0; i < x.shape[0]; ++i)
      for (int64_t j = 0; j < x.shape[1]; ++j)
        for (int64_t t = t0; t < t1; ++t)
          r.at(i, j, t - t0) = x.at(i, j, t);
    return r;
  };
  Array u1 = slice(p.u, 0, 4), d1 = slice(p.delta, 0, 4), z1 = slice(p.z, 0, 4);
  Array B1 = slice(p.B, 0, 4), C1 = slice(p.C, 0, 4);
  Array u2 = slice(p.u, 4, 6), d2 = slice(p.delta, 4, 6), z2 = slice(p.z, 4, 6);
  Array B2 = slice(p.B, 4, 6), C2 = slice(p.C, 4, 6);
  SelectiveScanArgs a = p.args();
  a.u = &u1, a.delta = &d1, a.z = &z1, a.B = &B1, a.C = &C1;
  Array y1, h1, y2, h2;
  ASSERT_EQ(selectiveScan(a, y1, h1), "");
  a.u = &u2, a.delta = &d2, a.z = &z2, a.B = &B2, a.C = &C2, a.h0 = &h1;
  ASSERT_EQ(selectiveScan(a, y2, h2), "");
  EXPECT_TRUE(arraysNear(h2, hLast, 1e-14));
  EXPECT_TRUE(arraysNear(y2, slice(y, 4, 6), 1e-14));
}

TEST(SelectiveScanTest, SoftplusThreshold) {
  EXPECT_EQ(softplus(25.0), 25.0);
  EXPECT_NEAR(softplus(0.0), std::log(2.0), 1e-15);
  EXPECT_NEAR(softplus(-30.0), std::exp(-30.0), 1e-25);
  EXPECT_NEAR(silu(1.0), 1.0 / (1.0 + std::exp(-1.0)), 1e-15);
}

TEST(SelectiveScanTest, ShapeErrors) {
  Problem p;
  SelectiveScanArgs a = p.args();
  Array y, hLast;
  Array badB({2, 3, 5});
  a.B = &badB;
  std::string err = selectiveScan(a, y, hLast);
  EXPECT_NE(err.find("'B'"), std::string::npos) << err;
  Array threeGroups({2, 3, 3, 6}); // 3 does not divide dim 4
  a.B = &threeGroups;
  EXPECT_NE(selectiveScan(a, y, hLast).find("'B'"), std::string::npos);
  a = p.args();
  Array badD({3});
  a.D = &badD;
  EXPECT_NE(selectiveScan(a, y, hLast).find("'D'"), std::string::npos);
  a = p.args();
  a.C = nullptr;
  EXPECT_NE(selectiveScan(a, y, hLast).find("missing"), std::string::npos);
}
