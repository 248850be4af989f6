// Unit tests for the reference ssm.lti_kernel: worked example and the S4D closed form.
#include "reference/kernels/LtiKernel.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>

using namespace ssm::ref;
using namespace ssm; // the ops' enums (dialect/SsmEnums.h)
using ssm::ref::test::arraysNear;
using ssm::ref::test::randomArray;
using Complex = std::complex<double>;

namespace {

std::string kernel(const Array &A, const Array *B, const Array &C, const Array &delta,
                   Discretization method, int64_t len, Array &K) {
  LtiKernelArgs args;
  args.A = &A;
  args.B = B;
  args.C = &C;
  args.delta = &delta;
  args.method = method;
  args.length = len;
  return ltiKernel(args, K);
}

} // namespace

TEST(LtiKernelTest, WorkedExampleEuler) {
  // DESIGN.md section 1: Euler, delta 1, A -0.2, B 1, C 1: K = (1, 0.8, 0.64).
  Array A({1, 1}, {-0.2}), B({1, 1}, {1}), C({1, 1}, {1}), delta({1}, {1});
  Array K;
  ASSERT_EQ(kernel(A, &B, C, delta, Discretization::euler, 3, K), "");
  EXPECT_TRUE(arraysNear(K, Array({1, 3}, {1, 0.8, 0.64}), 1e-15));
}

TEST(LtiKernelTest, RealZohClosedForm) {
  Array A = randomArray({3, 4}, -2, -0.1, 61), B = randomArray({3, 4}, -1, 1, 62);
  Array C = randomArray({3, 4}, -1, 1, 63), delta = randomArray({3}, 0.01, 0.5, 64);
  Array K;
  ASSERT_EQ(kernel(A, &B, C, delta, Discretization::zoh, 20, K), "");
  for (int64_t h = 0; h < 3; ++h)
    for (int64_t l = 0; l < 20; ++l) {
      double want = 0;
      for (int64_t i = 0; i < 4; ++i) {
        double dA = delta[h] * A.at(h, i);
        want += C.at(h, i) * (std::exp(dA) - 1) / A.at(h, i) * B.at(h, i) * std::exp(dA * l);
      }
      EXPECT_NEAR(K.at(h, l), want, 1e-13);
    }
}

TEST(LtiKernelTest, S4DComplexClosedForm) {
  // state-spaces/s4 S4DKernel: K_l = 2 Re sum_n C_n (exp(dtA_n) - 1) / A_n exp(dtA_n l),
  // evaluated with exp(dtA l) directly rather than by repeated products.
  int64_t H = 2, N = 5, L = 64;
  Array A({H, N, 2}), C = randomArray({H, N, 2}, -1, 1, 71);
  Array delta = randomArray({H}, 0.001, 0.1, 72);
  for (int64_t h = 0; h < H; ++h)
    for (int64_t i = 0; i < N; ++i) {
      A.at(h, i, 0) = -0.5;
      A.at(h, i, 1) = M_PI * i; // S4D-Lin
    }
  Array K;
  ASSERT_EQ(kernel(A, nullptr, C, delta, Discretization::zoh, L, K), "");
  for (int64_t h = 0; h < H; ++h)
    for (int64_t l = 0; l < L; ++l) {
      Complex sum = 0;
      for (int64_t i = 0; i < N; ++i) {
        Complex a(A.at(h, i, 0), A.at(h, i, 1)), c(C.at(h, i, 0), C.at(h, i, 1));
        Complex dA = delta[h] * a;
        sum += c * (std::exp(dA) - 1.0) / a * std::exp(dA * double(l));
      }
      EXPECT_NEAR(K.at(h, l), 2 * sum.real(), 1e-12);
    }
}

TEST(LtiKernelTest, ComplexWithZeroImaginaryIsTwiceReal) {
  Array Ar = randomArray({2, 3}, -2, -0.1, 81), C = randomArray({2, 3}, -1, 1, 82);
  Array delta = randomArray({2}, 0.1, 1, 83);
  Array Ac({2, 3, 2});
  for (int64_t i = 0; i < 6; ++i)
    Ac.data[2 * i] = Ar.data[i];
  for (Discretization m :
       {Discretization::zoh, Discretization::bilinear, Discretization::euler}) {
    Array Kr, Kc;
    ASSERT_EQ(kernel(Ar, nullptr, C, delta, m, 10, Kr), "");
    ASSERT_EQ(kernel(Ac, nullptr, C, delta, m, 10, Kc), "");
    for (int64_t i = 0; i < Kr.numel(); ++i)
      EXPECT_NEAR(Kc[i], 2 * Kr[i], 1e-14);
  }
}

TEST(LtiKernelTest, BilinearClosedFormAndDefaultB) {
  Array A({1, 1}, {-0.2}), C({1, 1}, {1}), ones({1, 1}, {1}), delta({1}, {1});
  Array K, K1;
  ASSERT_EQ(kernel(A, nullptr, C, delta, Discretization::bilinear, 4, K), "");
  ASSERT_EQ(kernel(A, &ones, C, delta, Discretization::bilinear, 4, K1), "");
  EXPECT_TRUE(arraysNear(K, K1, 0));
  for (int l = 0; l < 4; ++l)
    EXPECT_NEAR(K.at(0, l), (1.0 / 1.1) * std::pow(0.9 / 1.1, l), 1e-15);
}

TEST(LtiKernelTest, Errors) {
  Array A({2, 3}), Cc({2, 3, 2}), delta({2}), K;
  EXPECT_NE(kernel(A, nullptr, Cc, delta, Discretization::zoh, 4, K).find("'C'"),
            std::string::npos);
  Array C({2, 3}), delta3({3});
  EXPECT_NE(kernel(A, nullptr, C, delta3, Discretization::zoh, 4, K).find("'delta'"),
            std::string::npos);
  EXPECT_NE(kernel(A, nullptr, C, delta, Discretization::zoh, -1, K).find("negative"),
            std::string::npos);
}
