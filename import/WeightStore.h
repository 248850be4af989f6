// How ssm-import stores each weight: its source precision, f32, f16, bf16 or q8 (`--weights`).
//
// The runner reads each weight in the type the weights file holds
// (passes/WeightStorage.h), so what is written here is what the kernels
// load: 16-bit weights stay 16-bit in memory, q8 weights are int8 with one
// f16 scale per block of 32 along the last (reduction) dim, "<name>" (I8,
// shape (..., K)) and "<name>_scale" (F16, shape (..., K / 32)), as ggml's
// Q8_0 lays them out.
#ifndef SSM_IMPORT_WEIGHTSTORE_H
#define SSM_IMPORT_WEIGHTSTORE_H

#include "import/Safetensors.h"

#include <string>
#include <vector>

namespace ssm::importer {

enum class WeightsMode {
  Source, // as the model file holds them: 16-bit tensors stay 16-bit, others f32
  F32,    // every tensor widened to f32
  F16,    // matrices (rank-2 "*.weight": projections, embedding, head) in f16, others f32
  BF16,   // matrices in bf16, others f32
  Q8,     // matrices whose last dim is a multiple of 32 as int8 + f16 block scales, others f32
};

/// "source", "f32", "f16", "bf16", "q8" (the spellings of --weights); false if unknown.
bool parseWeightsMode(const std::string &s, WeightsMode &out);
const char *weightsModeName(WeightsMode m);

/// Appends the tensor(s) that store weight `name` (shape, its f32 values,
/// and the dtype the model file held it in) under `mode`.
void storeWeight(StFile &out, const std::string &name, const std::vector<int64_t> &shape,
                 const std::vector<float> &values, StDType source, WeightsMode mode);

/// Q8 of `values` (rows of k elements, k a multiple of 32): per block of 32,
/// the scale d = max|w| / 127 rounded to f16 and q = round(w / d) in
/// [-127, 127] (q = 0 when d is 0). Returns q; `scales` gets numel / 32 halves.
std::vector<int8_t> quantizeQ8(const std::vector<float> &values, int64_t k,
                               std::vector<uint16_t> &scales);

/// Whether `in` holds weight `name` as int8 blocks already: an I8 tensor
/// with an F16 "<name>_scale" of shape (..., K / 32) (q8: the GGUF import's
/// Q8_0 matrices) or an F32 one of shape (..., K / 16) (q8b16: its Q6_K
/// matrices; import/GgufImport.h). Then `scale` is that tensor. With `min`
/// given, an F32 "<name>_scale" beside an F32 "<name>_min", both (..., K /
/// 32), is q8min (the GGUF import's Q4_K / Q5_K matrices: w = q * scale -
/// min) and `*min` that tensor; else `*min` is null.
bool isStoredQ8(const StFile &in, const StTensor &t, const StTensor *&scale,
                const StTensor **min = nullptr);

/// Appends weight `t` held as int8 blocks (isStoredQ8) under `mode`: its two
/// tensors as they are, byte for byte, for `source` and `q8` when it is a
/// matrix q8 applies to (as storeWeight's); else dequantised (x = q * d in
/// f32, as ggml's dequantize_row_q8_0 / _q6_K; with `min`, x = q * d - min
/// as _q4_K) and stored by storeWeight. Returns whether it was kept.
bool storeQ8Weight(StFile &out, const StTensor &t, const StTensor &scale, WeightsMode mode,
                   const StTensor *min = nullptr);

/// "F32" when every tensor of `f` is F32, else the counts: "F16 x30 + F32 x48"
/// (for the import summary).
std::string storedDtypeSummary(const StFile &f);

} // namespace ssm::importer

#endif
