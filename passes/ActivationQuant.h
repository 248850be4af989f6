// Activation quantisation: ssm.quantize_activations before the matmuls that read a quantised weight.
//
// llama.cpp's CPU backend converts the activations of every matmul with a
// quantised or 16-bit weight to the weight type's `vec_dot_type` (Q8_0,
// Q8_1, Q8_K blocks; f16; bf16) before its dot products. A GGUF import
// that is to give llama.cpp's logits on the same file makes that explicit:
// each `linalg.matmul_transpose_b` whose weight operand (B, the (N, K)
// nn.Linear layout, possibly through ssm.dequantize) is a weight argument
// with a format gets `ssm.quantize_activations {format}` of its activation
// operand A (one op per activation value and format in a block, shared by
// the matmuls that read it). Formats come from `formatOf(param)` of the
// `ssm.param` arguments of public functions ("" = none: f32 activations);
// a private function's argument takes the format all its calls pass (calls
// that disagree leave it unquantised and are named in `notes`).
#ifndef SSM_PASSES_ACTIVATIONQUANT_H
#define SSM_PASSES_ACTIVATIONQUANT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <string>
#include <vector>

namespace ssm {

struct ActivationQuantSummary {
  /// Matmuls whose activations are now quantised.
  int matmuls = 0;
  /// Weights with a format that some matmul-like op reads otherwise (not as
  /// B of matmul_transpose_b), or whose calls disagree, or whose K is not a
  /// multiple of the format's block: left with f32 activations, one line each.
  std::vector<std::string> notes;
};

/// Inserts the ops as described above.
void applyActivationQuant(mlir::ModuleOp module,
                          llvm::function_ref<std::string(llvm::StringRef param)> formatOf,
                          ActivationQuantSummary &summary);

/// The same on the module in `text` (MLIR), printed back into `text` when
/// anything changed. False with `error` set when it does not parse.
bool applyActivationQuant(std::string &text, mlir::MLIRContext &ctx,
                          llvm::function_ref<std::string(llvm::StringRef param)> formatOf,
                          ActivationQuantSummary &summary, std::string &error);

/// The same with the formats by weight name (as activationFormatsFromModelJson
/// reads them; a weight not in the map keeps f32 activations).
bool applyActivationQuant(std::string &text, mlir::MLIRContext &ctx,
                          const std::map<std::string, std::string> &formats,
                          ActivationQuantSummary &summary, std::string &error);

/// model.json's "activation_quant" (an object: weight name -> format, as
/// ssm-import writes it for a GGUF) into `formats`; absent: empty, true.
/// False with `error` naming the key when it is not an object of format
/// strings ("q8_0", "q8_1", "q8_K", "f16", "bf16").
bool activationFormatsFromModelJson(const std::string &modelJson,
                                    std::map<std::string, std::string> &formats,
                                    std::string &error);

/// The ssm.quantize_activations format llama.cpp's CPU backend uses for
/// the activations against a weight of ggml type `ggmlTypeName` ("Q4_K",
/// "F16", ...; ggml-cpu.c's type_traits_cpu vec_dot_type): "q8_0" for
/// Q4_0, Q5_0, Q8_0; "q8_1" for Q4_1, Q5_1; "q8_K" for Q2_K .. Q6_K and
/// Q8_K; "f16", "bf16"; "" for F32 and anything else.
std::string activationFormatForGgmlType(llvm::StringRef ggmlTypeName);

} // namespace ssm

#endif // SSM_PASSES_ACTIVATIONQUANT_H
