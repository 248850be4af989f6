// The layer library of the model graphs: layers that more than one architecture uses, written with the importers' MLIR text emitter (import/RwkvMlirEmitter.h).
//
// Each function appends the ops of one layer to the function `e` is writing
// and returns its result; shapes are (rows, channels), rows being tokens
// (or, in a batched step, streams). `hint` names the SSA values, so that
// the graph reads like the model it came from. The blocks of the
// architectures (MambaBlock.h, Mamba2Block.h, RwkvBlock.h) are built from
// these and run inside the model skeleton (import/graph/ModelGraph.h);
// new architectures (the hybrids) add their layers here.
#ifndef SSM_IMPORT_LAYERS_LAYERS_H
#define SSM_IMPORT_LAYERS_LAYERS_H

#include "import/RwkvMlirEmitter.h"
#include "import/graph/ModelGraph.h"

#include <cstdint>
#include <string>

namespace ssm::importer::layers {

/// Token embedding: x[l, j] = table[tokens[l], j] for tokens (L) i32 and
/// table (vocab, width): a gather (tensor.extract in the body of a
/// linalg.generic; codegen clamps the index into the table).
TValue embedding(MlirEmitter &e, const TValue &tokens, const TValue &table,
                 const std::string &hint);

/// RMSNorm over the last dim of x (rows, cols) with weight w (cols):
/// x * rsqrt(mean(x^2) + eps) * w (Mamba, Mamba-2, most 2026 models), or
/// * (weightOffset + w) for checkpoints that store zero-centred norm weights
/// (weightOffset 1: Qwen3-Next / Qwen3.5's RMSNorm, Gemma's).
TValue rmsNorm(MlirEmitter &e, const TValue &x, const TValue &w, double eps,
               const std::string &hint, double weightOffset = 0.0);

/// LayerNorm over the last dim of x (rows, cols) with weight w and bias b
/// (cols; read flat whatever their stored shape): (x - mean) /
/// sqrt(biased variance + eps) * w + b (RWKV).
TValue layerNorm(MlirEmitter &e, const TValue &x, const TValue &w, const TValue &b, double eps,
                 const std::string &hint);

/// 1 / max(1, max |x|) over the last dim of x, read through `x.map` (the
/// identity when empty) over the loops `shape` (rank r): shape without its
/// last dim. The scale the norms divide a row, head or group by before they
/// sum its squares, so that one past 1.8e19 (whose squares overflow
/// float32) normalizes as the float64 reference does (docs/numerics.md); 1
/// exactly for values within 1, where every product is the unscaled one.
TValue lastDimScale(MlirEmitter &e, const GenericOperand &x, const std::vector<int64_t> &shape,
                    const std::string &hint);

/// x (rows, cols) transposed: a linalg.generic copying x[j, i] into (cols, rows).
TValue transpose(MlirEmitter &e, const TValue &x, const std::string &hint);

/// Depthwise causal conv + silu (or none: `silu` false, LFM2's gated conv) over the channels of x (rows, C) with
/// weight (C, 1, W), an optional bias (C), from the carried window
/// (C, W - 1), or (streams, C, W - 1) in the batched step (ssm.causal_conv1d;
/// Mamba's conv1d, causal-conv1d's kernel). Returns the conv's output
/// (rows, C) and the new window in the window's shape. In the sequence form
/// the rows are tokens (the op sees batch 1, length rows); in the step forms
/// streams (batch rows, length 1).
struct ShortConv {
  TValue y, window;
};
ShortConv shortConv(MlirEmitter &e, const graph::Form &form, const TValue &x,
                    const TValue &weight, const TValue *bias, const TValue &window,
                    bool silu = true);

/// Scalar helpers for generic bodies.
/// rsqrt(v) (math.rsqrt).
std::string rsqrt(GenericBody &b, const std::string &v);
/// silu(v) = v sigmoid(v).
std::string silu(GenericBody &b, const std::string &v);
/// softplus(v) = max(v, 0) + log1p(exp(-|v|)): exact for large |v|
/// (PyTorch switches to v above 20, where the two agree to f32 rounding).
std::string softplus(GenericBody &b, const std::string &v);

} // namespace ssm::importer::layers

#endif
