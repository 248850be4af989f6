// Reference ssm.quantize_activations: activation rows rounded as ggml's CPU matmuls quantise them.
#ifndef SSM_REFERENCE_KERNELS_QUANTIZEACTIVATIONS_H
#define SSM_REFERENCE_KERNELS_QUANTIZEACTIVATIONS_H

#include "reference/Array.h"

#include <string>

namespace ssm::ref {

/// result = the f32 values ggml's `vec_dot_type` conversion of each row of
/// `input` (along its last dim) stands for, `format` "q8_0", "q8_1",
/// "q8_K", "f16" or "bf16" (dialect/SsmOps.td states each rounding). The
/// input is first rounded to f32 (ggml quantises f32 activations) and
/// every step is done in f32 as ggml does it, so the result is a function
/// of the f32 inputs alone. Errors: an unknown format, a rank-0 input, a
/// last dim that is not a multiple of the format's block.
std::string quantizeActivations(const Array &input, const std::string &format, Array &result);

} // namespace ssm::ref

#endif // SSM_REFERENCE_KERNELS_QUANTIZEACTIVATIONS_H
