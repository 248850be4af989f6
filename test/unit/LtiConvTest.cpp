// Unit tests for the reference ssm.lti_conv, including the scan = kernel * conv identity.
#include "reference/kernels/LtiConv.h"
#include "reference/kernels/AffineScan.h"
#include "reference/kernels/LtiKernel.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

using namespace ssm::ref;
using namespace ssm; // the ops' enums (dialect/SsmEnums.h)
using ssm::ref::test::arraysNear;
using ssm::ref::test::randomArray;

namespace {

std::string conv(const Array &u, const Array &K, const Array *D, Array &y) {
  LtiConvArgs args;
  args.u = &u;
  args.K = &K;
  args.D = D;
  return ltiConv(args, y);
}

} // namespace

TEST(LtiConvTest, WorkedExample) {
  // DESIGN.md section 1: K = (1, 0.8, 0.64), u = (1, 0, 2): y = (1, 0.8, 2.64).
  Array u({1, 1, 3}, {1, 0, 2}), K({1, 3}, {1, 0.8, 0.64}), y;
  ASSERT_EQ(conv(u, K, nullptr, y), "");
  EXPECT_TRUE(arraysNear(y, Array({1, 1, 3}, {1, 0.8, 2.64}), 1e-15));
  Array D({1}, {2});
  ASSERT_EQ(conv(u, K, &D, y), "");
  EXPECT_TRUE(arraysNear(y, Array({1, 1, 3}, {3, 0.8, 6.64}), 1e-15));
}

TEST(LtiConvTest, KernelLengthDiffersFromInput) {
  Array u({1, 1, 4}, {1, 2, 3, 4});
  Array shortK({1, 2}, {1, 10}), y;
  ASSERT_EQ(conv(u, shortK, nullptr, y), "");
  EXPECT_TRUE(arraysNear(y, Array({1, 1, 4}, {1, 12, 23, 34}), 0));
  Array longK({1, 6}, {1, 10, 100, 0, 0, 7});
  ASSERT_EQ(conv(u, longK, nullptr, y), "");
  EXPECT_TRUE(arraysNear(y, Array({1, 1, 4}, {1, 12, 123, 234}), 0));
}

TEST(LtiConvTest, EqualsTimeInvariantScan) {
  // What ssm-lti-to-conv relies on: with constant Abar, Bbar, C, zero initial
  // state, no reset or reversal, the scan equals lti_kernel then lti_conv.
  int64_t batch = 2, H = 3, N = 4, L = 12;
  Array A = randomArray({H, N}, -1.5, -0.1, 91), B = randomArray({H, N}, -1, 1, 92);
  Array C = randomArray({H, N}, -1, 1, 93), delta = randomArray({H}, 0.1, 1, 94);
  Array D = randomArray({H}, -1, 1, 95), u = randomArray({batch, H, L}, -1, 1, 96);
  for (Discretization m :
       {Discretization::zoh, Discretization::bilinear, Discretization::euler}) {
    LtiKernelArgs ka;
    ka.A = &A, ka.B = &B, ka.C = &C, ka.delta = &delta, ka.method = m, ka.length = L;
    Array K, y;
    ASSERT_EQ(ltiKernel(ka, K), "");
    ASSERT_EQ(conv(u, K, &D, y), "");
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t h = 0; h < H; ++h) {
        std::vector<double> want(L, 0.0);
        for (int64_t i = 0; i < N; ++i) {
          double aBar = discretizeA(m, A.at(h, i), delta[h]);
          double bBar = discretizeB(m, A.at(h, i), B.at(h, i), delta[h]);
          Array a({1}, {aBar}), bu({L});
          for (int64_t t = 0; t < L; ++t)
            bu[t] = bBar * u.at(b, h, t);
          AffineScanArgs sa;
          sa.a = &a, sa.b = &bu;
          Array hs, last;
          ASSERT_EQ(affineScan(sa, hs, last), "");
          for (int64_t t = 0; t < L; ++t)
            want[t] += C.at(h, i) * hs[t];
        }
        for (int64_t t = 0; t < L; ++t)
          EXPECT_NEAR(y.at(b, h, t), want[t] + D[h] * u.at(b, h, t), 1e-13);
      }
  }
}

TEST(LtiConvTest, Errors) {
  Array u({1, 2, 4}), K({3, 4}), D({3}), y;
  EXPECT_NE(conv(u, K, nullptr, y).find("'K'"), std::string::npos);
  Array K2({2, 4});
  EXPECT_NE(conv(u, K2, &D, y).find("'D'"), std::string::npos);
}
