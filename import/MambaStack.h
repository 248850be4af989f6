// The Mamba backbone that Mamba-1 and Mamba-2 checkpoints share (mamba_ssm's MambaLMHeadModel, transformers' Mamba(2)ForCausalLM): embedding, one block kind per layer, norm_f, the LM head.
//
// Weights "backbone.embedding.weight", "backbone.layers.<l>.<...>",
// "backbone.norm_f.weight", "lm_head.weight" unless tied; states
// "layers.<l>.<...>". The architectures differ in their block only
// (import/layers/MambaBlock.h, Mamba2Block.h).
#ifndef SSM_IMPORT_MAMBASTACK_H
#define SSM_IMPORT_MAMBASTACK_H

#include "import/MambaModel.h"
#include "import/graph/ModelGraph.h"

#include <functional>
#include <string>
#include <vector>

namespace ssm::importer {

struct MambaStack {
  std::string header;                 // the module's leading comment lines
  std::vector<MambaParam> params;     // every weight, argument order
  std::vector<MambaState> states;     // per layer, model.json order
  int64_t numLayers = 0, width = 0, vocab = 0;
  double normEpsilon = 1e-5;          // norm_f's
  bool tiedHead = false;              // the head is the embedding table
  std::string prefillForm;            // how prefill runs, for the comments ("the scan form")
  std::function<void(graph::BlockScope &)> block; // one layer
  bool batchedSequence = false; // `block` writes the batched sequence form (Mamba-1, Mamba-2)
};

/// The module text (graph::writeModule) of the stack; false with `error`
/// as writeModule.
bool writeMambaStack(const MambaStack &stack, int64_t seqLen, LogitsRows rows, int64_t batch,
                     std::string &mlir, std::string &error);

} // namespace ssm::importer

#endif // SSM_IMPORT_MAMBASTACK_H
