// Regenerates an imported model's graph from its model.json for any sequence length.
//
// Shared by the importers (RWKV: import/RwkvModel.h; Mamba: import/MambaModel.h)
// and the model runner. The module holds two public functions:
//
//   func.func @forward_sequence(%tokens: tensor<Lxi32> {ssm.name = "tokens"},
//       <states, each {ssm.state = "<name>"}, in model.json "states" order>,
//       <weights, each {ssm.param = "<tensor name in weights.safetensors>"}>)
//       -> (tensor<Rx<vocab>xf32> {ssm.name = "logits"}, <states, same order>)
//   func.func @forward_step(%token: tensor<1xi32> {ssm.name = "tokens"},
//       <same states>, <same weights>)
//       -> (tensor<1x<vocab>xf32> {ssm.name = "logits"}, <same states>)
//
// forward_sequence runs the scan form; its logits are those of the last
// position only (R = 1: the final hidden state is sliced before the norm and
// the LM head, so a long prompt does not pay L x vocab for one row) or, in
// the LogitsRows::All variant, of every position (R = L). forward_step runs
// the state-update form. A model imported with --batch B also has
//
//   func.func @forward_step_batched(%tokens: tensor<Bxi32> {ssm.name = "tokens"},
//       <same states, each with a leading dim B>, <same weights>)
//       -> (tensor<Bx<vocab>xf32> {ssm.name = "logits"}, <states, leading dim B>)
//
// whose row i is forward_step of token i on row i of each state. A model
// whose model.json has functions.sequence_batched {"name", "batch": B}
// (ssm-import --prefill-batch B; every architecture) also has
//
//   func.func @forward_sequence_batched(%tokens: tensor<(B*L)xi32> {ssm.name = "tokens"},
//       [%position: tensor<Bxi32>], <same states, leading dim B>, <same weights>)
//       -> (tensor<Bx<vocab>xf32> {ssm.name = "logits"}, <states, leading dim B>)
//
// whose stream b (tokens b*L .. b*L + L - 1, row b of each state and of the
// logits, the last position's) is forward_sequence (LogitsRows::Last) of
// those tokens on row b of each state. A model directory's model.mlir is exactly
// buildModelMLIR(model.json, --seq-len, --all-logits ? All : Last). No MLIR
// link.
#ifndef SSM_IMPORT_MODELBUILDER_H
#define SSM_IMPORT_MODELBUILDER_H

#include <cstdint>
#include <string>

namespace ssm::importer {

/// Which positions' logits @forward_sequence computes and returns.
enum class LogitsRows {
  Last, // (1, vocab): the position after the last token (prefill, generation)
  All,  // (L, vocab): every position (scoring, --all-logits-out)
};

/// The largest step batch (ssm-import --batch; model.json
/// functions.step_batched.batch).
constexpr int64_t kMaxStepBatch = 1024;

/// Dispatches on model.json's "architecture" ("rwkv4", "rwkv5.1", "rwkv5.2",
/// "rwkv6", "rwkv7", "mamba1", "mamba2"). A model.json with
/// functions.step_batched (any architecture) also gets @forward_step_batched
/// for its batch, and one with functions.sequence_batched
/// @forward_sequence_batched for its batch and seqLen (refused, naming the
/// layers, for architectures whose blocks do not write it). Returns false with `error` set for bad JSON, an unknown
/// architecture, seqLen < 1, or a step_batched entry that is malformed.
bool buildModelMLIR(const std::string &modelJsonText, int64_t seqLen, std::string &mlir,
                    std::string &error, LogitsRows rows = LogitsRows::Last);

} // namespace ssm::importer

namespace ssm {
using importer::buildModelMLIR; // the runner calls it as ssm::buildModelMLIR
using importer::LogitsRows;
} // namespace ssm

#endif // SSM_IMPORT_MODELBUILDER_H
