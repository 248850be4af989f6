// Widening the 16-bit weight storage types to f32 inside a kernel's loads.
//
// A weight stored as f16 or bf16 (passes/WeightStorage.h) is read through an
// f32 view (codegen/Translate.cpp) that converts each element where a kernel
// loads it. Halide 14 has no native f16 on x86 and emulates every
// Float(16) -> Float(32) cast with about 14 integer vector instructions (it
// never emits F16C's vcvtph2ps; later Halide versions do), and a decode
// matvec does one multiply-add per weight element, so f16 weights ran as
// slowly as f32 ones (mamba-130m decode, 2 threads: 22.6 ms per token
// against 22.3 for f32). On x86-64 with F16C, widenToF32 calls a helper
// linked into the kernel module (Widen.ll, one vcvtph2ps per vector);
// elsewhere (other OSes and architectures, GPU targets) it is Halide's cast. Both are exact (IEEE
// 754 binary16 -> binary32 loses nothing: subnormals, signed zeros,
// infinities and NaNs included) and neither depends on MXCSR (the
// denormals-are-zero flag does not apply to vcvtph2ps's input).
//
// bf16 -> f32 is a 16-bit shift (Halide's own cast); other types are casts.
//
// The same helper module carries a software prefetch (withPrefetchT0) that
// the decode matvec of narrow weights uses (codegen/lowerings/Matmul.cpp).
#ifndef SSM_CODEGEN_KERNELS_WIDEN_H
#define SSM_CODEGEN_KERNELS_WIDEN_H

#include "Halide.h"

#include <optional>

namespace ssm::codegen {

/// `e` (Float(16), BFloat(16), or any other type) as Float(32), exactly.
/// For f16 on targets where widenExternalCode returns a module, a pure extern
/// call `ssm_f16_to_f32` that the kernel module must link (codegen/Compile.cpp
/// appends widenExternalCode to every kernel it compiles).
Halide::Expr widenToF32(const Halide::Expr &e, const Halide::Target &target);

/// `value` evaluated after a prefetch into all cache levels of the byte at
/// `byteOffset` from the host pointer of input buffer `buffer` (an
/// ImageParam's parameter), where the helper module is linked (as for
/// widenToF32); `value` alone elsewhere. The address may lie outside the
/// buffer (a prefetch never faults) and bounds inference does not see it.
Halide::Expr withPrefetchT0(const Halide::Expr &value, const Halide::Internal::Parameter &buffer,
                            const Halide::Expr &byteOffset, const Halide::Target &target);

/// The LLVM bitcode (Widen.ll, assembled by LLVM 14 at build time) that
/// widenToF32's calls need in kernels for `target`; none where it makes no
/// calls (non-x86, no F16C, GPU targets).
std::optional<Halide::ExternalCode> widenExternalCode(const Halide::Target &target);

} // namespace ssm::codegen

#endif
