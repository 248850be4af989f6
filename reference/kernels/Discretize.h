// Reference ssm.discretize: continuous (A, B, Delta) -> discrete (Abar, Bbar), elementwise.
#ifndef SSM_REFERENCE_KERNELS_DISCRETIZE_H
#define SSM_REFERENCE_KERNELS_DISCRETIZE_H

#include "dialect/SsmEnums.h"
#include "reference/Array.h"

#include <complex>
#include <string>

namespace ssm::ref {


/// Scalar rules, with d = delta:
///   zoh:      Abar = exp(dA),               Bbar = (exp(dA) - 1) / A * B  (d*B at A == 0)
///   bilinear: Abar = (1 + dA/2)/(1 - dA/2), Bbar = d*B / (1 - dA/2)
///   euler:    Abar = 1 + dA,                Bbar = d*B
/// Follows state-spaces/s4 src/models/sequence/kernels/ssm.py SSMKernelDiag
/// (disc = 'zoh' | 'bilinear') and the S4 paper section 2.3.
double discretizeA(Discretization method, double A, double delta);
double discretizeB(Discretization method, double A, double B, double delta);
/// Complex forms for S4D's complex diagonal A.
std::complex<double> discretizeA(Discretization method, std::complex<double> A,
                                 double delta);
std::complex<double> discretizeB(Discretization method, std::complex<double> A,
                                 std::complex<double> B, double delta);

struct DiscretizeArgs {
  const Array *A = nullptr;     // any shape S
  const Array *B = nullptr;     // S
  const Array *delta = nullptr; // S
  Discretization methodA = Discretization::zoh;
  Discretization methodB = Discretization::zoh;
};

/// Abar, Bbar: shape S. Returns "" on success, else a message.
std::string discretize(const DiscretizeArgs &args, Array &Abar, Array &Bbar);

} // namespace ssm::ref

#endif // SSM_REFERENCE_KERNELS_DISCRETIZE_H
