// Reference ssm.lti_kernel: powers of Abar by repeated multiplication in complex<double>.
#include "reference/kernels/LtiKernel.h"
#include "reference/kernels/ShapeCheck.h"

#include <algorithm>
#include <complex>

namespace ssm::ref {

namespace {

using Complex = std::complex<double>;

bool isComplexForm(const Array &a, int64_t nHeads, int64_t n) {
  return a.shape == std::vector<int64_t>{nHeads, n, 2};
}

Complex element(const Array &a, bool isComplex, int64_t h, int64_t i) {
  return isComplex ? Complex(a.at(h, i, 0), a.at(h, i, 1)) : Complex(a.at(h, i));
}

} // namespace

std::string ltiKernel(const LtiKernelArgs &args, Array &K) {
  const char *op = "ssm.lti_kernel";
  if (std::string e = detail::checkData(op, "A", args.A); !e.empty())
    return e;
  const Array &A = *args.A;
  bool isComplex = A.rank() == 3;
  if (!(A.rank() == 2 || (isComplex && A.shape[2] == 2)))
    return detail::badShape(op, "A", A, "(H, N) real or (H, N, 2) complex");
  int64_t nHeads = A.shape[0], n = A.shape[1];
  if (args.length < 0)
    return std::string(op) + ": length " + std::to_string(args.length) +
           " is negative";
  if (std::string e = detail::checkShape(op, "delta", args.delta, {nHeads}); !e.empty())
    return e;
  // B and C may be complex only when A is; real B/C with complex A is fine.
  bool complexBC[2] = {false, false};
  const char *names[2] = {"B", "C"};
  const Array *bc[2] = {args.B, args.C};
  for (int k = 0; k < 2; ++k) {
    if (!bc[k] && k == 0)
      continue;
    if (std::string e = detail::checkData(op, names[k], bc[k]); !e.empty())
      return e;
    complexBC[k] = isComplex && isComplexForm(*bc[k], nHeads, n);
    if (!complexBC[k] && bc[k]->shape != std::vector<int64_t>{nHeads, n})
      return detail::badShape(op, names[k], *bc[k],
                              shapeToString({nHeads, n}) +
                                  (isComplex ? " or " + shapeToString({nHeads, n, 2})
                                             : std::string(" (A is real)")));
  }

  int64_t len = args.length;
  K = Array({nHeads, len});
  std::vector<Complex> acc(len);
  for (int64_t h = 0; h < nHeads; ++h) {
    std::fill(acc.begin(), acc.end(), Complex(0.0));
    double dt = args.delta->data[h];
    for (int64_t i = 0; i < n; ++i) {
      Complex a = element(A, isComplex, h, i);
      Complex b = args.B ? element(*args.B, complexBC[0], h, i) : Complex(1.0);
      Complex c = element(*args.C, complexBC[1], h, i);
      Complex aBar = isComplex ? discretizeA(args.method, a, dt)
                               : Complex(discretizeA(args.method, a.real(), dt));
      Discretization bm = args.bMethod ? *args.bMethod : args.method;
      Complex bBar = isComplex ? discretizeB(bm, a, b, dt)
                               : Complex(discretizeB(bm, a.real(), b.real(), dt));
      // Repeated multiplication: in double the l * eps drift is far below any
      // tolerance the goldens use (S4D evaluates exp(dtA * l) instead).
      Complex term = c * bBar;
      for (int64_t l = 0; l < len; ++l) {
        acc[l] += term;
        term *= aBar;
      }
    }
    for (int64_t l = 0; l < len; ++l)
      K.at(h, l) = isComplex ? 2.0 * acc[l].real() : acc[l].real();
  }
  return "";
}

} // namespace ssm::ref
