// Unit tests for the reference ssm.affine_scan: worked example, broadcasting, reverse, resets, h0.
#include "reference/kernels/AffineScan.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

using namespace ssm::ref;
using ssm::ref::test::arraysNear;
using ssm::ref::test::randomArray;

namespace {

struct ScanResult {
  std::string error;
  Array h, hLast;
};

ScanResult scan(const Array &a, const Array &b, int64_t dim, bool reverse = false,
                const Array *h0 = nullptr, const Array *reset = nullptr) {
  AffineScanArgs args;
  args.a = &a;
  args.b = &b;
  args.dim = dim;
  args.reverse = reverse;
  args.h0 = h0;
  args.reset = reset;
  ScanResult r;
  r.error = affineScan(args, r.h, r.hLast);
  return r;
}

} // namespace

TEST(AffineScanTest, WorkedExample) {
  // DESIGN.md section 1: h_t = 0.8 h_{t-1} + u_t, u = (1, 0, 2).
  Array a({1}, {0.8}), b({3}, {1, 0, 2});
  ScanResult r = scan(a, b, 0);
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(arraysNear(r.h, Array({3}, {1, 0.8, 2.64}), 1e-15));
  EXPECT_TRUE(arraysNear(r.hLast, Array(std::vector<int64_t>{}, {2.64}), 1e-15));
}

TEST(AffineScanTest, Reverse) {
  // From the end: h2 = 2, h1 = 0.8 * 2 + 0, h0 = 0.8 * 1.6 + 1.
  Array a({1}, {0.8}), b({3}, {1, 0, 2});
  ScanResult r = scan(a, b, 0, /*reverse=*/true);
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(arraysNear(r.h, Array({3}, {2.28, 1.6, 2}), 1e-15));
  EXPECT_NEAR(r.hLast[0], 2.28, 1e-15);
}

TEST(AffineScanTest, ReverseEqualsForwardOnFlippedInput) {
  Array a = randomArray({2, 7, 3}, 0.5, 1.0, 1), b = randomArray({2, 7, 3}, -1, 1, 2);
  Array af(a.shape), bf(b.shape);
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t t = 0; t < 7; ++t)
      for (int64_t k = 0; k < 3; ++k) {
        af.at(i, 6 - t, k) = a.at(i, t, k);
        bf.at(i, 6 - t, k) = b.at(i, t, k);
      }
  ScanResult rev = scan(a, b, 1, true), fwd = scan(af, bf, 1);
  ASSERT_EQ(rev.error, "");
  ASSERT_EQ(fwd.error, "");
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t t = 0; t < 7; ++t)
      for (int64_t k = 0; k < 3; ++k)
        EXPECT_NEAR(rev.h.at(i, t, k), fwd.h.at(i, 6 - t, k), 1e-14);
  EXPECT_TRUE(arraysNear(rev.hLast, fwd.hLast, 1e-14));
}

TEST(AffineScanTest, InitialState) {
  Array a({1}, {0.5}), b({2}, {0, 0}), h0(std::vector<int64_t>{}, {10});
  ScanResult r = scan(a, b, 0, false, &h0);
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(arraysNear(r.h, Array({2}, {5, 2.5}), 1e-15));
}

TEST(AffineScanTest, ResetStartsNewSequence) {
  Array a({1}, {0.5}), b({4}, {1, 1, 1, 1}), h0(std::vector<int64_t>{}, {4});
  Array reset({4}, {0, 0, 1, 0});
  ScanResult r = scan(a, b, 0, false, &h0, &reset);
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(arraysNear(r.h, Array({4}, {3, 2.5, 1, 1.5}), 1e-15));
  // A reset on the first step discards h0.
  Array reset0({4}, {1, 0, 0, 0});
  r = scan(a, b, 0, false, &h0, &reset0);
  EXPECT_NEAR(r.h[0], 1.0, 1e-15);
}

TEST(AffineScanTest, PackedSequencesEqualSeparateScans) {
  Array a = randomArray({9}, 0.2, 1.2, 3), b = randomArray({9}, -1, 1, 4);
  Array reset({9});
  reset[4] = 1; // sequences [0, 4) and [4, 9)
  ScanResult packed = scan(a, b, 0, false, nullptr, &reset);
  Array a1({4}, {a[0], a[1], a[2], a[3]}), b1({4}, {b[0], b[1], b[2], b[3]});
  Array a2({5}, {a[4], a[5], a[6], a[7], a[8]}), b2({5}, {b[4], b[5], b[6], b[7], b[8]});
  ScanResult s1 = scan(a1, b1, 0), s2 = scan(a2, b2, 0);
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(packed.h[i], s1.h[i], 1e-15);
  for (int i = 0; i < 5; ++i)
    EXPECT_NEAR(packed.h[4 + i], s2.h[i], 1e-15);
}

TEST(AffineScanTest, ChunksComposeThroughH0) {
  // The chunked scan of ssm-chunk-scan: the second half starts from the
  // first half's h_last.
  Array a = randomArray({3, 10}, 0.5, 1.0, 5), b = randomArray({3, 10}, -1, 1, 6);
  ScanResult full = scan(a, b, 1);
  Array a1({3, 6}), b1({3, 6}), a2({3, 4}), b2({3, 4});
  for (int64_t c = 0; c < 3; ++c)
    for (int64_t t = 0; t < 10; ++t) {
      if (t < 6) {
        a1.at(c, t) = a.at(c, t);
        b1.at(c, t) = b.at(c, t);
      } else {
        a2.at(c, t - 6) = a.at(c, t);
        b2.at(c, t - 6) = b.at(c, t);
      }
    }
  ScanResult first = scan(a1, b1, 1);
  ScanResult second = scan(a2, b2, 1, false, &first.hLast);
  EXPECT_TRUE(arraysNear(second.hLast, full.hLast, 1e-14));
  for (int64_t c = 0; c < 3; ++c)
    for (int64_t t = 6; t < 10; ++t)
      EXPECT_NEAR(second.h.at(c, t - 6), full.h.at(c, t), 1e-14);
}

TEST(AffineScanTest, LastStateIsComposedAffineMap) {
  // (a2, b2) . (a1, b1) = (a2 a1, a2 b1 + b2), folded over the sequence.
  Array a = randomArray({6}, -1, 1, 7), b = randomArray({6}, -1, 1, 8);
  Array h0(std::vector<int64_t>{}, {0.3});
  double ca = 1.0, cb = 0.0;
  for (int t = 0; t < 6; ++t) {
    cb = a[t] * cb + b[t];
    ca = a[t] * ca;
  }
  ScanResult r = scan(a, b, 0, false, &h0);
  EXPECT_NEAR(r.hLast[0], ca * 0.3 + cb, 1e-14);
}

TEST(AffineScanTest, BroadcastAndDim) {
  // a (2, 1) is constant along time per row; scanning dim 0 of the transpose
  // gives the same numbers.
  Array a({2, 1}, {0.5, -0.5}), b = randomArray({2, 5}, -1, 1, 9);
  ScanResult r = scan(a, b, 1);
  ASSERT_EQ(r.error, "");
  for (int64_t c = 0; c < 2; ++c) {
    double h = 0;
    for (int64_t t = 0; t < 5; ++t) {
      h = a[c] * h + b.at(c, t);
      EXPECT_NEAR(r.h.at(c, t), h, 1e-15);
    }
  }
  Array aT({1, 2}, {0.5, -0.5}), bT({5, 2});
  for (int64_t c = 0; c < 2; ++c)
    for (int64_t t = 0; t < 5; ++t)
      bT.at(t, c) = b.at(c, t);
  ScanResult rT = scan(aT, bT, 0);
  ASSERT_EQ(rT.error, "");
  EXPECT_TRUE(arraysNear(rT.hLast, r.hLast, 1e-15));
  // Negative dim counts from the end.
  ScanResult rNeg = scan(a, b, -1);
  EXPECT_TRUE(arraysNear(rNeg.h, r.h, 0));
}

TEST(AffineScanTest, Errors) {
  Array a({3, 2}), b({2, 5}), h0Bad({5});
  EXPECT_NE(scan(a, b, 1).error.find("'a'"), std::string::npos);
  Array a1({2, 1});
  EXPECT_NE(scan(a1, b, 2).error.find("out of range"), std::string::npos);
  EXPECT_NE(scan(a1, b, 1, false, &h0Bad).error.find("'h0'"), std::string::npos);
  EXPECT_EQ(scan(a1, b, 0, false, &h0Bad).error, "");
}
