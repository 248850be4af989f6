// Elementwise comparison with tolerances and the CONTRACTS.md report line.
#include "runtime/Compare.h"

#include <cfloat>
#include <cmath>
#include <cstdio>

namespace ssm {

CompareResult compareArrays(const std::vector<int64_t> &gotShape,
                            const std::vector<double> &got,
                            const std::vector<int64_t> &expectedShape,
                            const std::vector<double> &expected, Tolerance tol) {
  CompareResult r;
  if (gotShape != expectedShape || got.size() != expected.size()) {
    r.shapeMismatch = true;
    r.maxAbs = r.maxRel = r.worst = DBL_MAX;
    return r;
  }
  bool nonFiniteFailure = false;
  for (size_t i = 0; i < got.size(); ++i) {
    double g = got[i], e = expected[i];
    if (!std::isfinite(e)) {
      bool same = std::isnan(e) ? std::isnan(g) : g == e;
      nonFiniteFailure |= !same;
      continue;
    }
    if (!std::isfinite(g)) {
      nonFiniteFailure = true;
      continue;
    }
    double diff = std::fabs(g - e);
    r.maxAbs = std::max(r.maxAbs, diff);
    if (e != 0)
      r.maxRel = std::max(r.maxRel, diff / std::fabs(e));
    // With zero tolerances an exact match is 0 and any difference is the
    // largest double (not inf or NaN, so the printed line stays numeric).
    double allowed = tol.atol + tol.rtol * std::fabs(e);
    double ratio = diff == 0 ? 0.0 : allowed > 0 ? diff / allowed : DBL_MAX;
    r.worst = std::max(r.worst, std::isfinite(ratio) ? ratio : DBL_MAX);
  }
  if (nonFiniteFailure)
    r.maxAbs = r.worst = DBL_MAX;
  r.pass = !nonFiniteFailure && r.worst <= 1.0;
  return r;
}

std::string formatCompareLine(const std::string &name, const CompareResult &r) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s max_abs=%.6g max_rel=%.6g worst=%.6g %s",
                name.c_str(), r.maxAbs, r.maxRel, r.worst, r.pass ? "PASS" : "FAIL");
  return buf;
}

} // namespace ssm
