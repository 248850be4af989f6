// ssm.quantize_activations' q8 blocks as Halide stages: each block's peak,
// its scale d and the int8 code q of each element (value = q * d).
//
// One definition for the two users: the op's own lowering (Ssm.cpp), which
// gives the f32 values q * d, and the integer matvec of the dot-form matmul
// (Matmul.cpp), which multiplies the codes by a q8 weight's int8 blocks and
// scales each block's int32 sum once (llama.cpp's vec_dot_q8_0_q8_0 /
// vec_dot_q4_K_q8_K). Formulas: the op's description (dialect/SsmOps.td),
// ggml-cpu's quantize_row_q8_0 (x86) and quantize_row_q8_K_ref.
#ifndef SSM_CODEGEN_LOWERINGS_ACTIVATIONBLOCKS_H
#define SSM_CODEGEN_LOWERINGS_ACTIVATIONBLOCKS_H

#include "codegen/Lowering.h"
#include "codegen/kernels/RoundEven.h"

#include <string>
#include <vector>

namespace ssm::codegen {

/// `v` (f32) rounded to the nearest f16 (ties to even), as an f32, in f32
/// bit arithmetic so every target computes it alike (no half-precision
/// types: OpenCL needs an extension for them): normals keep 10 mantissa
/// bits, below 2^-14 the step is 2^-24, from 65520 on it is infinite.
/// `target`: the subnormal steps' rounding (roundTiesToEven).
inline Halide::Expr roundToHalf(Halide::Expr v, const Halide::Target &target) {
  using namespace Halide;
  auto u32 = [](uint64_t c) { return Internal::make_const(UInt(32), c); };
  Expr a = abs(v);
  Expr bits = reinterpret(UInt(32), a);
  Expr normal = reinterpret(
      Float(32), (bits + u32(0xfff) + ((bits >> u32(13)) & u32(1))) & u32(0xffffe000u));
  Expr small = roundTiesToEven(a * 16777216.0f, target) * (1.0f / 16777216.0f);
  Expr r = select(a >= 65520.0f, Float(32).max() * 2.0f, select(a < 6.103515625e-05f, small, normal));
  return select(v < 0.0f, -r, r);
}

/// The q8 blocks of x (any rank; blocks of `block` along the last dim):
/// q8_0 (block 32): m = max |x| over the block, d = f16(m / 127),
/// q = round(x * 127 / m); q8_K (block 256): m = the block's first x of
/// largest |x|, d = 1 / (-127 / m), q = min(127, round(x * -127 / m)).
/// Where d is 0 (m = 0, or |m| so small that 127 / m overflows) every
/// value is 0: code() and scale() are both 0 there. |q| <= 127. Ties
/// round to even on every target (roundTiesToEven).
struct ActivationBlocks {
  TensorFunc x;    ///< the op's input
  TensorFunc peak; ///< m per block: shape of x with the last dim / block
  int block = 0;
  bool q8k = false;
  Halide::Target target; ///< the module's target (how ties are rounded)

  /// Defines the peak stage of `x` (a generic stage of the op being lowered).
  static ActivationBlocks define(LoweringState &state, const TensorFunc &x, int block, bool q8k) {
    ActivationBlocks a{x, {}, block, q8k, state.target};
    std::vector<Halide::Expr> blocksShape = x.shape;
    blocksShape.back() = blocksShape.back() / block;
    a.peak = state.define("quantize_act_max", blocksShape, [&](const auto &idx) {
      Halide::RDom r(0, block, state.uniqueName("qa_r"));
      std::vector<Halide::Expr> xi = idx;
      xi.back() = idx.back() * block + r;
      if (!q8k)
        return Halide::maximum(Halide::abs(at(x, xi)));
      Halide::Tuple best = Halide::argmax(r, Halide::abs(at(x, xi)));
      std::vector<Halide::Expr> first = idx;
      first.back() = idx.back() * block + Halide::clamp(best[0], 0, block - 1); // bounded for Halide
      return at(x, first);
    });
    return a;
  }

  /// The block index (MLIR order) of element idx.
  std::vector<Halide::Expr> blockOf(std::vector<Halide::Expr> idx) const {
    idx.back() = idx.back() / block;
    return idx;
  }
  /// d of block bi (f32), 0 where the block's values are all 0.
  Halide::Expr scale(const std::vector<Halide::Expr> &bi) const {
    Halide::Expr m = at(peak, bi);
    if (!q8k)
      return roundToHalf(m / 127.0f, target);
    Halide::Expr d = 1.0f / (-127.0f / m);
    return Halide::select(m == 0.0f, 0.0f, d);
  }
  /// q of element idx as an f32 integer (defined where scale() is not 0).
  Halide::Expr roundedCode(const std::vector<Halide::Expr> &idx) const {
    Halide::Expr m = at(peak, blockOf(idx)), v = at(x, idx);
    if (!q8k) {
      Halide::Expr id = Halide::select(m != 0.0f, 127.0f / m, 0.0f);
      return roundTiesToEven(v * id, target);
    }
    return Halide::min(127.0f, roundTiesToEven((-127.0f / m) * v, target));
  }
  /// q of element idx as an Int(16) (0 where the block's d is 0).
  Halide::Expr code(const std::vector<Halide::Expr> &idx) const {
    return Halide::select(scale(blockOf(idx)) == 0.0f, Halide::cast(Halide::Int(16), 0),
                          Halide::cast(Halide::Int(16), roundedCode(idx)));
  }
  /// The op's value q * d of element idx (0 where d is 0: also where 127 / m
  /// overflows and q is not finite, as ggml's int8 conversion saturates it).
  Halide::Expr value(const std::vector<Halide::Expr> &idx) const {
    Halide::Expr d = scale(blockOf(idx));
    return Halide::select(d == 0.0f, 0.0f, roundedCode(idx) * d);
  }
};

} // namespace ssm::codegen

#endif
