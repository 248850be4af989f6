// Unit tests for the reference ssm.selective_update: hand values, one scan step, head/group mapping.
#include "reference/kernels/SelectiveUpdate.h"
#include "reference/kernels/SelectiveScan.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ssm::ref;
using ssm::ref::test::arraysNear;
using ssm::ref::test::randomArray;

TEST(SelectiveUpdateTest, HandExample) {
  // state 1, dt 1, exp(dt A) = 0.8, B 1, x 2: new state 0.8 + 2 = 2.8;
  // out = 2.8 * C + D x = 2.8 * 0.5 + 0.25 * 2.
  Array state({1, 1, 1}, {1}), x({1, 1}, {2}), dt({1, 1}, {1});
  Array A({1, 1}, {std::log(0.8)}), B({1, 1}, {1}), C({1, 1}, {0.5}), D({1}, {0.25});
  SelectiveUpdateArgs a;
  a.state = &state, a.x = &x, a.dt = &dt, a.A = &A, a.B = &B, a.C = &C, a.D = &D;
  Array out, newState;
  ASSERT_EQ(selectiveUpdate(a, out, newState), "");
  EXPECT_NEAR(newState[0], 2.8, 1e-15);
  EXPECT_NEAR(out[0], 1.9, 1e-15);
}

TEST(SelectiveUpdateTest, EqualsOneStepOfSelectiveScan) {
  // Decode continues prefill: one update from h0 equals the L = 1 scan from h0.
  int64_t batch = 2, dim = 5, n = 4;
  Array state = randomArray({batch, dim, n}, -1, 1, 31);
  Array x = randomArray({batch, dim}, -1, 1, 32), dt = randomArray({batch, dim}, -2, 1, 33);
  Array z = randomArray({batch, dim}, -2, 2, 34);
  Array A = randomArray({dim, n}, -2, -0.1, 35), D = randomArray({dim}, -1, 1, 36);
  Array bias = randomArray({dim}, -1, 1, 37);
  Array B = randomArray({batch, n}, -1, 1, 38), C = randomArray({batch, n}, -1, 1, 39);
  SelectiveUpdateArgs ua;
  ua.state = &state, ua.x = &x, ua.dt = &dt, ua.A = &A, ua.B = &B, ua.C = &C;
  ua.D = &D, ua.z = &z, ua.dtBias = &bias, ua.dtSoftplus = true;
  Array out, newState;
  ASSERT_EQ(selectiveUpdate(ua, out, newState), "");

  // The same data as an L = 1 channel-major scan: trailing time dimension 1.
  Array u({batch, dim, 1}, x.data), delta({batch, dim, 1}, dt.data), z3({batch, dim, 1}, z.data);
  Array B3({batch, n, 1}, B.data), C3({batch, n, 1}, C.data);
  SelectiveScanArgs sa;
  sa.u = &u, sa.delta = &delta, sa.A = &A, sa.B = &B3, sa.C = &C3, sa.D = &D, sa.z = &z3;
  sa.deltaBias = &bias, sa.h0 = &state, sa.deltaSoftplus = true;
  Array y, hLast;
  ASSERT_EQ(selectiveScan(sa, y, hLast), "");
  EXPECT_TRUE(arraysNear(Array({batch, dim}, y.data), out, 1e-14));
  EXPECT_TRUE(arraysNear(hLast, newState, 1e-14));
}

TEST(SelectiveUpdateTest, HeadsUseTheirGroup) {
  // H 4, G 2: heads 0, 1 read group 0 and heads 2, 3 group 1. Each head must
  // equal the no-heads form run on that head alone with its group's B, C.
  int64_t batch = 2, H = 4, P = 3, n = 5, G = 2;
  Array state = randomArray({batch, H, P, n}, -1, 1, 41);
  Array x = randomArray({batch, H, P}, -1, 1, 42), dt = randomArray({batch, H, P}, -2, 1, 43);
  Array z = randomArray({batch, H, P}, -2, 2, 44);
  Array A = randomArray({H, P, n}, -2, -0.1, 45), D = randomArray({H, P}, -1, 1, 46);
  Array bias = randomArray({H, P}, -1, 1, 47);
  Array B = randomArray({batch, G, n}, -1, 1, 48), C = randomArray({batch, G, n}, -1, 1, 49);
  SelectiveUpdateArgs a;
  a.state = &state, a.x = &x, a.dt = &dt, a.A = &A, a.B = &B, a.C = &C;
  a.D = &D, a.z = &z, a.dtBias = &bias, a.dtSoftplus = true;
  Array out, newState;
  ASSERT_EQ(selectiveUpdate(a, out, newState), "");
  for (int64_t h = 0; h < H; ++h) {
    int64_t g = h / (H / G);
    Array s1({batch, P, n}), x1({batch, P}), dt1({batch, P}), z1({batch, P});
    Array A1({P, n}), D1({P}), bias1({P}), B1({batch, n}), C1({batch, n});
    for (int64_t j = 0; j < P; ++j) {
      D1[j] = D.at(h, j);
      bias1[j] = bias.at(h, j);
      for (int64_t i = 0; i < n; ++i)
        A1.at(j, i) = A.at(h, j, i);
    }
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t i = 0; i < n; ++i) {
        B1.at(b, i) = B.at(b, g, i);
        C1.at(b, i) = C.at(b, g, i);
      }
      for (int64_t j = 0; j < P; ++j) {
        x1.at(b, j) = x.at(b, h, j);
        dt1.at(b, j) = dt.at(b, h, j);
        z1.at(b, j) = z.at(b, h, j);
        for (int64_t i = 0; i < n; ++i)
          s1.at(b, j, i) = state.at(b, h, j, i);
      }
    }
    SelectiveUpdateArgs a1;
    a1.state = &s1, a1.x = &x1, a1.dt = &dt1, a1.A = &A1, a1.B = &B1, a1.C = &C1;
    a1.D = &D1, a1.z = &z1, a1.dtBias = &bias1, a1.dtSoftplus = true;
    Array out1, new1;
    ASSERT_EQ(selectiveUpdate(a1, out1, new1), "");
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t j = 0; j < P; ++j) {
        EXPECT_NEAR(out.at(b, h, j), out1.at(b, j), 1e-14) << "head " << h;
        for (int64_t i = 0; i < n; ++i)
          EXPECT_NEAR(newState.at(b, h, j, i), new1.at(b, j, i), 1e-14);
      }
  }
}

TEST(SelectiveUpdateTest, RankTwoBIsOneGroup) {
  int64_t batch = 1, H = 2, P = 2, n = 3;
  Array state = randomArray({batch, H, P, n}, -1, 1, 51);
  Array x = randomArray({batch, H, P}, -1, 1, 52), dt = randomArray({batch, H, P}, 0, 1, 53);
  Array A = randomArray({H, P, n}, -2, -0.1, 54);
  Array B2 = randomArray({batch, n}, -1, 1, 55), C2 = randomArray({batch, n}, -1, 1, 56);
  Array B3({batch, 1, n}, B2.data), C3({batch, 1, n}, C2.data);
  SelectiveUpdateArgs a;
  a.state = &state, a.x = &x, a.dt = &dt, a.A = &A, a.B = &B2, a.C = &C2;
  Array o1, s1, o2, s2;
  ASSERT_EQ(selectiveUpdate(a, o1, s1), "");
  a.B = &B3, a.C = &C3;
  ASSERT_EQ(selectiveUpdate(a, o2, s2), "");
  EXPECT_TRUE(arraysNear(o1, o2, 0));
  EXPECT_TRUE(arraysNear(s1, s2, 0));
}

TEST(SelectiveUpdateTest, ShapeErrors) {
  Array state({2, 4, 3, 5}), x({2, 4, 3}), dt({2, 4, 3}), A({4, 3, 5});
  Array B({2, 3, 5}), C({2, 2, 5}); // 3 groups do not divide 4 heads
  SelectiveUpdateArgs a;
  a.state = &state, a.x = &x, a.dt = &dt, a.A = &A, a.B = &B, a.C = &C;
  Array out, newState;
  std::string err = selectiveUpdate(a, out, newState);
  EXPECT_NE(err.find("'B'"), std::string::npos) << err;
  Array xBad({2, 4});
  a.B = &C, a.x = &xBad;
  EXPECT_NE(selectiveUpdate(a, out, newState).find("'x'"), std::string::npos);
}
