// Golden cases (../shared/golden/README.md): loading a case folder and building its MLIR function.
#ifndef SSM_REFERENCE_GOLDENCASE_H
#define SSM_REFERENCE_GOLDENCASE_H

#include "runtime/Compare.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ssm {

struct NamedArray {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<double> data;
};

struct GoldenCase {
  std::string dir;
  std::string op;                   // "selective_scan", "causal_conv1d", ...
  Tolerance tolerance;
  std::vector<NamedArray> inputs;   // the inputs present, in case.json order
  std::vector<NamedArray> expected; // in case.json order
  /// The function of the case: `@main` taking `argNames` in order and
  /// returning `resultNames` in order (a superset of the expected outputs).
  std::string mlir;
  std::vector<std::string> argNames;
  std::vector<std::string> resultNames;
};

/// Reads <dir>/case.json and the .npy files it names, checks every attribute
/// and input shape against what the op accepts, and builds the MLIR function.
/// On failure returns false with a message naming the file and the problem
/// (missing case.json, unknown op or attribute, a missing or mis-shaped .npy).
/// A non-empty `convAlgorithm` ("direct" or "fft") sets the algorithm of
/// the case's ssm.lti_conv (`ssm-run --conv-algorithm`).
bool loadGoldenCase(const std::string &dir, GoldenCase &out, std::string &error,
                    const std::string &convAlgorithm = "");

} // namespace ssm

#endif
