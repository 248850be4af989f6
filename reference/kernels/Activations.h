// Scalar activations shared by the reference kernels, matching PyTorch's definitions.
#ifndef SSM_REFERENCE_KERNELS_ACTIVATIONS_H
#define SSM_REFERENCE_KERNELS_ACTIVATIONS_H

#include <cmath>

namespace ssm::ref {

/// torch.nn.functional.softplus with beta 1 and threshold 20: above the
/// threshold torch returns x itself, and matching that keeps the goldens exact.
inline double softplus(double x) { return x > 20.0 ? x : std::log1p(std::exp(x)); }

inline double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

/// silu(x) = x * sigmoid(x), the gate Mamba applies with z.
inline double silu(double x) { return x / (1.0 + std::exp(-x)); }

} // namespace ssm::ref

#endif // SSM_REFERENCE_KERNELS_ACTIVATIONS_H
