// Unit tests for ssm::ref::Array indexing and shape printing.
#include "reference/Array.h"

#include <gtest/gtest.h>

using ssm::ref::Array;

TEST(ArrayTest, RowMajorIndexing) {
  Array a({2, 3, 4});
  EXPECT_EQ(a.numel(), 24);
  EXPECT_EQ(a.rank(), 3);
  EXPECT_EQ(a.strides(), (std::vector<int64_t>{12, 4, 1}));
  a.at(1, 2, 3) = 7.0;
  EXPECT_EQ(a.data[1 * 12 + 2 * 4 + 3], 7.0);
  EXPECT_EQ(a.offset({1, 0, 2}), 14);
  EXPECT_EQ(a.offsetOf(1, 0, 2), 14);
}

TEST(ArrayTest, ConstructorsAndShapeString) {
  Array z({2, 2});
  for (double v : z.data)
    EXPECT_EQ(v, 0.0);
  Array b({3}, {1, 2, 3});
  EXPECT_EQ(b.at(2), 3.0);
  EXPECT_EQ(ssm::ref::shapeToString({2, 4, 33}), "(2, 4, 33)");
  EXPECT_EQ(ssm::ref::shapeToString({3}), "(3,)");
  EXPECT_EQ(ssm::ref::shapeToString({}), "()");
  Array scalar(std::vector<int64_t>{});
  EXPECT_EQ(scalar.numel(), 1);
}

// numelOf saturates instead of wrapping (4294967296 x 4294967296 wrapped to
// 0 elements and "ran").
TEST(ArrayTest, NumelOfSaturates) {
  using ssm::ref::numelOf;
  EXPECT_EQ(numelOf({4294967296, 4294967296}), INT64_MAX);
  EXPECT_EQ(numelOf({INT64_MAX, 2}), INT64_MAX);
  EXPECT_EQ(numelOf({4294967296, 4294967296, 0}), 0);
  EXPECT_EQ(numelOf({3, -1}), -1);
  EXPECT_EQ(numelOf({2, 3, 4}), 24);
  EXPECT_EQ(numelOf({}), 1);
}
