// Weight storage: a model graph's weight arguments retyped to the storage their weights file holds.
//
// A graph is built with f32 weights (`ssm.param` arguments). When the
// weights file keeps a weight in f16 or bf16, or as int8 with per-block
// scales (Q8_0's layout: blocks of 32 along the last dim, one f16 scale per
// block, tensor "<param>_scale" of shape (..., K / 32); or blocks of 16
// with F32 scales, a GGUF's Q6_K), the argument takes
// that type (plus, for int8, the scale argument right after it) and every
// op that read it reads `ssm.dequantize` of it instead, placed just before
// that op (the op of the function body holding the use), so the f32 tensor
// exists only inside the readers' loops (codegen never stores it) and each
// segment of a segmented function gets the narrow argument. Weights passed to private functions (one per layer)
// are retyped in the callee too when every call passes the same storage.
#ifndef SSM_PASSES_WEIGHTSTORAGE_H
#define SSM_PASSES_WEIGHTSTORAGE_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace ssm {

/// Q8: int8 with one f16 scale per block of 32 (ggml's Q8_0). Q8B16: int8
/// with one f32 scale per block of 16, the form a GGUF's Q6_K blocks are
/// kept in (q - 32 in [-32, 31], scale d * sc as ggml multiplies them;
/// docs/gguf.md). Q8Min: int8 q with one f32 scale and one f32 min per
/// block of 32 (w = q * scale - min; "<param>_scale" and "<param>_min",
/// both (..., K / 32)), the form a GGUF's Q4_K / Q5_K blocks are kept in
/// (q in [0, 15] / [0, 31], scale d * sc and min dmin * m as ggml's
/// dequantize_row_q4_K forms them).
enum class WeightStorage { F32, F16, BF16, Q8, Q8B16, Q8Min };

/// Elements per Q8 scale block (along the last dim), as ggml's Q8_0.
constexpr int64_t kQ8BlockSize = 32;
/// Elements per Q8B16 scale block, as ggml's Q6_K scales.
constexpr int64_t kQ8B16BlockSize = 16;

/// Whether `s` is int8 with a scale argument (Q8, Q8B16, Q8Min).
inline bool isBlockScaled(WeightStorage s) {
  return s == WeightStorage::Q8 || s == WeightStorage::Q8B16 || s == WeightStorage::Q8Min;
}

/// The name of the scale tensor of a Q8 weight `param` in a weights file.
inline std::string q8ScaleName(llvm::StringRef param) { return param.str() + "_scale"; }
/// The name of the min tensor of a Q8Min weight `param` in a weights file.
inline std::string q8MinName(llvm::StringRef param) { return param.str() + "_min"; }

/// "f32", "f16", "bf16", "q8", "q8b16", "q8min".
const char *weightStorageName(WeightStorage s);

/// Retypes every `ssm.param` argument of the public functions of `module`
/// whose `storageOf(param)` is not F32, as described above. Fails (with a
/// diagnostic on the argument) for a Q8 weight of rank 0.
mlir::LogicalResult
applyWeightStorage(mlir::ModuleOp module,
                   llvm::function_ref<WeightStorage(llvm::StringRef param)> storageOf);

/// The storage of weight `param` in a safetensors file, from the dtypes it
/// lists (`dtypeOf(name)`: "F16", "BF16", "I8", ...; nullopt when absent):
/// F16 and BF16 as themselves, I8 with an F16 "<param>_scale" as Q8, I8
/// with an F32 one and an F32 "<param>_min" as Q8Min, with an F32 one
/// alone as Q8B16, anything else F32 (the runtime converts it to f32 when it binds it).
WeightStorage storageFromDtypes(
    llvm::StringRef param,
    llvm::function_ref<std::optional<std::string>(const std::string &)> dtypeOf);

/// applyWeightStorage on the module held in `text` (MLIR), printed back
/// into `text`. False with `error` set when it does not parse or fails.
bool applyWeightStorage(std::string &text, mlir::MLIRContext &ctx,
                        llvm::function_ref<WeightStorage(llvm::StringRef param)> storageOf,
                        std::string &error);

} // namespace ssm

#endif
