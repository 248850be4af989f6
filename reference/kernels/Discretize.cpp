// Reference ssm.discretize: scalar discretization rules and the elementwise op.
#include "reference/kernels/Discretize.h"
#include "reference/kernels/ShapeCheck.h"

#include <cmath>

namespace ssm::ref {

double discretizeA(Discretization method, double A, double delta) {
  double dA = delta * A;
  switch (method) {
  case Discretization::zoh:
    return std::exp(dA);
  case Discretization::bilinear:
    return (1.0 + dA / 2.0) / (1.0 - dA / 2.0);
  case Discretization::euler:
    return 1.0 + dA;
  }
  return 0.0;
}

double discretizeB(Discretization method, double A, double B, double delta) {
  double dA = delta * A;
  switch (method) {
  case Discretization::zoh:
    // expm1 keeps digits when dA is tiny; A == 0 is the limit d*B.
    return A == 0.0 ? delta * B : std::expm1(dA) / A * B;
  case Discretization::bilinear:
    return delta * B / (1.0 - dA / 2.0);
  case Discretization::euler:
    return delta * B;
  }
  return 0.0;
}

std::complex<double> discretizeA(Discretization method, std::complex<double> A,
                                 double delta) {
  std::complex<double> dA = delta * A;
  switch (method) {
  case Discretization::zoh:
    return std::exp(dA);
  case Discretization::bilinear:
    return (1.0 + dA / 2.0) / (1.0 - dA / 2.0);
  case Discretization::euler:
    return 1.0 + dA;
  }
  return 0.0;
}

std::complex<double> discretizeB(Discretization method, std::complex<double> A,
                                 std::complex<double> B, double delta) {
  std::complex<double> dA = delta * A;
  switch (method) {
  case Discretization::zoh:
    return A == 0.0 ? delta * B : (std::exp(dA) - 1.0) / A * B;
  case Discretization::bilinear:
    return delta * B / (1.0 - dA / 2.0);
  case Discretization::euler:
    return delta * B;
  }
  return 0.0;
}

std::string discretize(const DiscretizeArgs &args, Array &Abar, Array &Bbar) {
  const char *op = "ssm.discretize";
  if (std::string e = detail::checkData(op, "A", args.A); !e.empty())
    return e;
  const std::vector<int64_t> &shape = args.A->shape;
  if (std::string e = detail::checkShape(op, "B", args.B, shape); !e.empty())
    return e;
  if (std::string e = detail::checkShape(op, "delta", args.delta, shape); !e.empty())
    return e;
  Abar = Array(shape);
  Bbar = Array(shape);
  for (int64_t i = 0, e = args.A->numel(); i < e; ++i) {
    double a = args.A->data[i], b = args.B->data[i], d = args.delta->data[i];
    Abar[i] = discretizeA(args.methodA, a, d);
    Bbar[i] = discretizeB(args.methodB, a, b, d);
  }
  return "";
}

} // namespace ssm::ref
