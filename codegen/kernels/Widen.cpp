// widenToF32: f16 through an F16C helper on x86-64, Halide's casts elsewhere (Widen.h).
#include "codegen/kernels/Widen.h"

#include <cstdint>
#include <vector>

namespace ssm::codegen {
namespace {

// Widen.ll assembled by LLVM 14's llvm-as (codegen/CMakeLists.txt).
const unsigned char kWidenBitcode[] = {
#include "Widen.bc.inc"
};

bool usesF16cHelper(const Halide::Target &t) {
  return t.arch == Halide::Target::X86 && t.bits == 64 && t.os == Halide::Target::Linux &&
         t.has_feature(Halide::Target::F16C) &&
         !t.has_gpu_feature();
}

} // namespace

Halide::Expr widenToF32(const Halide::Expr &e, const Halide::Target &target) {
  using namespace Halide;
  Type t = e.type();
  // (Halide's is_float() holds for bfloat too.)
  if (t.code() == halide_type_float && t.bits() == 16 && usesF16cHelper(target))
    return Internal::Call::make(Float(32, t.lanes()), "ssm_f16_to_f32",
                                {reinterpret(UInt(16, t.lanes()), e)},
                                Internal::Call::PureExtern);
  return cast(Float(32, t.lanes()), e);
}

Halide::Expr withPrefetchT0(const Halide::Expr &value, const Halide::Internal::Parameter &buffer,
                            const Halide::Expr &byteOffset, const Halide::Target &target) {
  using namespace Halide;
  if (!usesF16cHelper(target) || !buffer.defined())
    return value;
  Expr host = Internal::Variable::make(Handle(), buffer.name(), buffer);
  Expr fetch = Internal::Call::make(Int(32), "ssm_prefetch_t0", {host, cast(Int(64), byteOffset)},
                                    Internal::Call::Extern);
  return Internal::Call::make(value.type(), Internal::Call::return_second, {fetch, value},
                              Internal::Call::PureIntrinsic);
}

std::optional<Halide::ExternalCode> widenExternalCode(const Halide::Target &target) {
  if (!usesF16cHelper(target))
    return std::nullopt;
  std::vector<uint8_t> code(kWidenBitcode, kWidenBitcode + sizeof(kWidenBitcode));
  return Halide::ExternalCode::bitcode_wrapper(target, code, "ssm_widen");
}

} // namespace ssm::codegen
