// Elementwise comparison of a result with expected data, as CONTRACTS.md defines it.
#ifndef SSM_RUNTIME_COMPARE_H
#define SSM_RUNTIME_COMPARE_H

#include <cstdint>
#include <string>
#include <vector>

namespace ssm {

struct Tolerance {
  double rtol = 1e-4;
  double atol = 1e-5;
};

struct CompareResult {
  double maxAbs = 0;  // max |got - expected|
  double maxRel = 0;  // max |got - expected| / |expected| over expected != 0
  double worst = 0;   // max |got - expected| / (atol + rtol |expected|)
  bool shapeMismatch = false;
  bool pass = false;  // worst <= 1, shapes equal, no NaN/inf where expected is finite
};

/// Compares `got` with `expected`. A NaN or infinity in `got` where the
/// expected value is finite fails (and makes maxAbs and worst the largest
/// double, so the printed line stays numeric); a non-finite expected value
/// passes only where `got` is the same (NaN for NaN, the same infinity).
/// Tolerances must be >= 0 (callers refuse negative ones). When an element's
/// allowance atol + rtol |expected| is 0 (rtol = atol = 0), its ratio is 0 for
/// an exact match and DBL_MAX (1.79769e+308) otherwise.
CompareResult compareArrays(const std::vector<int64_t> &gotShape,
                            const std::vector<double> &got,
                            const std::vector<int64_t> &expectedShape,
                            const std::vector<double> &expected, Tolerance tol);

/// "<name> max_abs=<x> max_rel=<x> worst=<x> PASS|FAIL" (CONTRACTS.md).
std::string formatCompareLine(const std::string &name, const CompareResult &r);

} // namespace ssm

#endif
