// Helpers shared by the unit tests: seeded random arrays and array comparison.
#ifndef SSM_TEST_UNIT_TESTUTIL_H
#define SSM_TEST_UNIT_TESTUTIL_H

#include "reference/Array.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace ssm::ref::test {

/// Fixed seeds keep failures reproducible.
inline Array randomArray(std::vector<int64_t> shape, double lo, double hi,
                         unsigned seed) {
  Array a(std::move(shape));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  for (double &v : a.data)
    v = dist(gen);
  return a;
}

/// Fails with the first differing flat index, which is what one needs to see.
inline ::testing::AssertionResult arraysNear(const Array &got, const Array &want,
                                             double tol) {
  if (got.shape != want.shape)
    return ::testing::AssertionFailure()
           << "shape " << shapeToString(got.shape) << " vs " << shapeToString(want.shape);
  for (size_t i = 0; i < want.data.size(); ++i)
    if (!(std::fabs(got.data[i] - want.data[i]) <= tol * (1.0 + std::fabs(want.data[i]))))
      return ::testing::AssertionFailure()
             << "index " << i << ": got " << got.data[i] << ", want " << want.data[i];
  return ::testing::AssertionSuccess();
}

/// (a, b, c) -> (a, c, b): switches channel-major and time-major layouts.
inline Array swapLast2(const Array &a) {
  Array r({a.shape[0], a.shape[2], a.shape[1]});
  for (int64_t i = 0; i < a.shape[0]; ++i)
    for (int64_t j = 0; j < a.shape[1]; ++j)
      for (int64_t k = 0; k < a.shape[2]; ++k)
        r.at(i, k, j) = a.at(i, j, k);
  return r;
}

} // namespace ssm::ref::test

#endif // SSM_TEST_UNIT_TESTUTIL_H
