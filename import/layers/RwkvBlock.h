// The RWKV-4 / 5.1 / 5.2 / 6 / 7 block (LayerNorm, time mixing, LayerNorm, channel mixing, residuals) as a layer of the model skeleton (import/graph/ModelGraph.h).
//
// The math is ../shared/models/rwkv/README.md (rwkv.cpp's graph, which
// follows BlinkDL's RWKV-LM): per block
//   x += TimeMix(LayerNorm(x; ln1)); x += ChannelMix(LayerNorm(x; ln2))
// with token shift through the carried normalised inputs att_xx / ffn_xx.
// Weights and states are named as in rwkv.cpp files ("blocks.<l>.att.key.
// weight", states "blocks.<l>.att_xx", ...; import/RwkvModel.h).
#ifndef SSM_IMPORT_LAYERS_RWKVBLOCK_H
#define SSM_IMPORT_LAYERS_RWKVBLOCK_H

#include "import/RwkvModel.h"
#include "import/graph/ModelGraph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ssm::importer::layers {

/// One block on s.h (rows, n_embed). RWKV-7's first block (`layer` 0) sets
/// the carry "v_first" (rows, n_embed), the others (`layer` 1) read it;
/// `layer` is 0 for RWKV-4..6.
void rwkvBlock(graph::BlockScope &s, const RwkvConfig &c, int64_t layer);
/// The embedding ("emb.weight") and ln0 ("blocks.0.ln0.*"): the residual stream of `tokens`.
TValue rwkvEmbed(graph::ModelScope &s, const RwkvConfig &c, const TValue &tokens);
/// ln_out and the head on the rows that get logits: (R, n_embed) -> (R, n_vocab).
TValue rwkvHead(graph::ModelScope &s, const RwkvConfig &c, const TValue &x);
/// The weights of block `layer` after "blocks.<layer>." (ln0 excluded), in
/// the model's parameter order: a block function's weight arguments.
std::vector<std::string> rwkvBlockParamSuffixes(const RwkvConfig &c, int64_t layer);
/// The states of one block after "blocks.<l>.", in model.json order.
std::vector<std::string> rwkvBlockStateSuffixes(const RwkvConfig &c);

} // namespace ssm::importer::layers

#endif // SSM_IMPORT_LAYERS_RWKVBLOCK_H
