// Unit tests for the reference ssm.discretize against hand-computed values.
#include "reference/kernels/Discretize.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ssm::ref;
using namespace ssm; // the ops' enums (dialect/SsmEnums.h)

TEST(DiscretizeTest, WorkedExampleEuler) {
  // DESIGN.md section 1: Euler with delta 1, A -0.2, B 1 gives Abar 0.8, Bbar 1.
  EXPECT_DOUBLE_EQ(discretizeA(Discretization::euler, -0.2, 1.0), 0.8);
  EXPECT_DOUBLE_EQ(discretizeB(Discretization::euler, -0.2, 1.0, 1.0), 1.0);
}

TEST(DiscretizeTest, WorkedExampleZoh) {
  // Same A and delta with ZOH: 0.819 and 0.906.
  EXPECT_NEAR(discretizeA(Discretization::zoh, -0.2, 1.0), 0.818730753, 1e-9);
  EXPECT_NEAR(discretizeB(Discretization::zoh, -0.2, 1.0, 1.0), 0.906346235, 1e-9);
  // B scales linearly, delta enters through dA only.
  EXPECT_NEAR(discretizeB(Discretization::zoh, -0.4, 3.0, 0.5), 3.0 * 0.906346235 / 2.0,
              1e-9);
}

TEST(DiscretizeTest, ZohLimitAtZero) {
  EXPECT_EQ(discretizeA(Discretization::zoh, 0.0, 0.3), 1.0);
  EXPECT_EQ(discretizeB(Discretization::zoh, 0.0, 2.0, 0.3), 0.6);
  // Continuous through the limit, not a special case that jumps.
  EXPECT_NEAR(discretizeB(Discretization::zoh, 1e-12, 2.0, 0.3), 0.6, 1e-12);
  EXPECT_EQ(discretizeB(Discretization::zoh, std::complex<double>(0.0), 2.0, 0.3),
            std::complex<double>(0.6));
}

TEST(DiscretizeTest, Bilinear) {
  EXPECT_NEAR(discretizeA(Discretization::bilinear, -0.2, 1.0), 0.9 / 1.1, 1e-15);
  EXPECT_NEAR(discretizeB(Discretization::bilinear, -0.2, 1.0, 1.0), 1.0 / 1.1, 1e-15);
  // Tustin agrees with the exact ZOH Abar to second order in dA.
  for (double dA : {1e-2, 1e-3}) {
    double diff = discretizeA(Discretization::bilinear, dA, 1.0) -
                  discretizeA(Discretization::zoh, dA, 1.0);
    EXPECT_LT(std::fabs(diff), dA * dA * dA);
  }
}

TEST(DiscretizeTest, ComplexMatchesRealAndStaysOnCircle) {
  for (Discretization m :
       {Discretization::zoh, Discretization::bilinear, Discretization::euler}) {
    std::complex<double> a = discretizeA(m, std::complex<double>(-0.7), 0.3);
    std::complex<double> b = discretizeB(m, std::complex<double>(-0.7), 1.5, 0.3);
    EXPECT_NEAR(a.real(), discretizeA(m, -0.7, 0.3), 1e-15);
    EXPECT_NEAR(b.real(), discretizeB(m, -0.7, 1.5, 0.3), 1e-15);
    EXPECT_EQ(a.imag(), 0.0);
  }
  // A purely imaginary A is a rotation under ZOH and bilinear.
  std::complex<double> rot(0.0, 2.0);
  EXPECT_NEAR(std::abs(discretizeA(Discretization::zoh, rot, 0.4)), 1.0, 1e-15);
  EXPECT_NEAR(std::abs(discretizeA(Discretization::bilinear, rot, 0.4)), 1.0, 1e-15);
}

TEST(DiscretizeTest, ElementwiseMambaMix) {
  // Mamba-1: zoh A, euler B.
  Array A({2}, {-1.0, -0.5}), B({2}, {2.0, 3.0}), delta({2}, {0.1, 0.2});
  DiscretizeArgs args;
  args.A = &A;
  args.B = &B;
  args.delta = &delta;
  args.methodA = Discretization::zoh;
  args.methodB = Discretization::euler;
  Array Abar, Bbar;
  ASSERT_EQ(discretize(args, Abar, Bbar), "");
  EXPECT_NEAR(Abar[0], std::exp(-0.1), 1e-15);
  EXPECT_NEAR(Abar[1], std::exp(-0.1), 1e-15);
  EXPECT_NEAR(Bbar[0], 0.2, 1e-15);
  EXPECT_NEAR(Bbar[1], 0.6, 1e-15);
}

TEST(DiscretizeTest, ShapeMismatchNamesOperand) {
  Array A({2}), B({2}), delta({3});
  DiscretizeArgs args;
  args.A = &A;
  args.B = &B;
  args.delta = &delta;
  Array Abar, Bbar;
  std::string err = discretize(args, Abar, Bbar);
  EXPECT_NE(err.find("'delta'"), std::string::npos) << err;
  EXPECT_NE(err.find("(3,)"), std::string::npos) << err;
}
