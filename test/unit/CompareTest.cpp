// Tests of the CONTRACTS.md comparison: worst ratio, NaN rule, shape mismatch, report line.
#include "runtime/Compare.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>

using ssm::compareArrays;
using ssm::Tolerance;

TEST(CompareTest, WorstIsTheDecidingRatio) {
  Tolerance tol{1e-3, 1e-4};
  // |diff| = 2e-4 at expected 1: ratio 2e-4 / (1e-4 + 1e-3) = 0.1818...
  auto r = compareArrays({2}, {1.0002, 0.0}, {2}, {1.0, 0.0}, tol);
  EXPECT_TRUE(r.pass);
  EXPECT_NEAR(r.worst, 2e-4 / 1.1e-3, 1e-9);
  EXPECT_NEAR(r.maxAbs, 2e-4, 1e-12);
  EXPECT_NEAR(r.maxRel, 2e-4, 1e-9); // the zero expected element is skipped
}

TEST(CompareTest, FailsPastTolerance) {
  auto r = compareArrays({1}, {1.01}, {1}, {1.0}, Tolerance{1e-3, 1e-4});
  EXPECT_FALSE(r.pass);
  EXPECT_GT(r.worst, 1.0);
  EXPECT_NE(ssm::formatCompareLine("out", r).find(" FAIL"), std::string::npos);
}

TEST(CompareTest, NanWhereFiniteExpectedFails) {
  auto r = compareArrays({2}, {1.0, NAN}, {2}, {1.0, 2.0}, Tolerance{});
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.worst, DBL_MAX);
  auto inf = compareArrays({1}, {INFINITY}, {1}, {2.0}, Tolerance{});
  EXPECT_FALSE(inf.pass);
}

TEST(CompareTest, MatchingNonFiniteExpectedPasses) {
  EXPECT_TRUE(compareArrays({2}, {NAN, INFINITY}, {2}, {NAN, INFINITY}, Tolerance{}).pass);
  EXPECT_FALSE(compareArrays({1}, {-INFINITY}, {1}, {INFINITY}, Tolerance{}).pass);
}

TEST(CompareTest, ShapeMismatchFails) {
  auto r = compareArrays({2, 1}, {1.0, 2.0}, {2}, {1.0, 2.0}, Tolerance{});
  EXPECT_TRUE(r.shapeMismatch);
  EXPECT_FALSE(r.pass);
}

TEST(CompareTest, LineFollowsTheGrammar) {
  auto r = compareArrays({1}, {1.0}, {1}, {1.0}, Tolerance{});
  EXPECT_EQ(ssm::formatCompareLine("y", r), "y max_abs=0 max_rel=0 worst=0 PASS");
}

// rtol = atol = 0: an exact match is worst 0, any difference the
// largest double; the line never says inf or nan.
TEST(CompareTest, ZeroTolerancesStayNumeric) {
  auto exact = compareArrays({2}, {1.0, 0.0}, {2}, {1.0, 0.0}, Tolerance{0, 0});
  EXPECT_TRUE(exact.pass);
  EXPECT_EQ(exact.worst, 0.0);
  auto off = compareArrays({2}, {1.0, 1e-30}, {2}, {1.0, 0.0}, Tolerance{0, 0});
  EXPECT_FALSE(off.pass);
  EXPECT_EQ(off.worst, DBL_MAX);
  std::string line = ssm::formatCompareLine("y", off);
  EXPECT_EQ(line.find("inf"), std::string::npos) << line;
  EXPECT_EQ(line.find("nan"), std::string::npos) << line;
  // A tiny allowance whose ratio overflows is the largest double too.
  auto tiny = compareArrays({1}, {1e300}, {1}, {0.0}, Tolerance{0, 1e-300});
  EXPECT_EQ(tiny.worst, DBL_MAX);
}
