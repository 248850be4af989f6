// The RWKV model graph: a stack of RWKV blocks (import/layers/RwkvBlock.h) on the model skeleton (import/graph/ModelGraph.h).
//
// Embedding and ln0, the blocks (RWKV-7: a first block that hands v_first
// to the others), ln_out and the head; see import/RwkvModel.h.
#include "import/RwkvModel.h"
#include "import/graph/ModelGraph.h"
#include "import/layers/RwkvBlock.h"

#include <map>
#include <stdexcept>

namespace ssm::importer {

bool buildRwkvMLIR(const RwkvConfig &c, int64_t seqLen, std::string &mlir, std::string &error,
                   LogitsRows rows, int64_t batch) {
  if (seqLen < 1) {
    error = "sequence length must be at least 1, got " + std::to_string(seqLen);
    return false;
  }
  if (c.architecture != "rwkv4" && c.architecture != "rwkv5.1" && c.architecture != "rwkv5.2" &&
      c.architecture != "rwkv6" && c.architecture != "rwkv7") {
    error = "not an RWKV architecture: '" + c.architecture + "'";
    return false;
  }
  // Every parameter the graph reads must be listed.
  std::map<std::string, std::vector<int64_t>> have;
  for (const RwkvParam &p : c.params)
    have[p.name] = p.shape;
  for (const char *n : {"emb.weight", "head.weight", "ln_out.weight", "ln_out.bias",
                        "blocks.0.ln0.weight", "blocks.0.ln0.bias"})
    if (!have.count(n)) {
      error = std::string("the parameter list has no '") + n + "'";
      return false;
    }
  if (have["emb.weight"] != std::vector<int64_t>{c.nVocab, c.nEmbed}) {
    error = "'emb.weight' must have shape (n_vocab, n_embed)";
    return false;
  }
  // The stack: one block kind (RWKV-7: a first block, which makes v_first,
  // and the others); the skeleton checks that every layer has its kind's shapes.
  std::map<std::string, std::vector<int64_t>> stateShape;
  for (const RwkvState &st : rwkvStates(c))
    stateShape[st.name] = st.shape;
  auto kindFor = [&](int64_t layer, const std::string &name) {
    graph::BlockKind k;
    k.name = name;
    const std::string p = "blocks." + std::to_string(layer) + ".";
    for (const std::string &w : layers::rwkvBlockParamSuffixes(c, layer))
      k.params.push_back({w, have.at(p + w)});
    for (const std::string &st : layers::rwkvBlockStateSuffixes(c))
      k.states.push_back({st, stateShape.at("blocks.0." + st)});
    k.body = [&c, layer](graph::BlockScope &s) { layers::rwkvBlock(s, c, layer); };
    k.batchedSequence = true;
    return k;
  };
  graph::BlockKind first, rest;
  try {
    first = kindFor(0, c.isV7() ? "block0" : "block");
    if (c.isV7()) {
      first.carriesOut.push_back({"v_first", {c.nEmbed}});
      if (c.nLayer > 1) {
        rest = kindFor(1, "block");
        rest.carriesIn.push_back({"v_first", {c.nEmbed}});
      }
    }
  } catch (const std::out_of_range &) {
    error = "the parameter or state list of the model does not match " + c.architecture +
            " (a tensor the graph needs is missing)";
    return false;
  }
  graph::ModelDecl m;
  m.header = "// " + c.architecture + " (n_vocab " + std::to_string(c.nVocab) + ", n_embed " +
             std::to_string(c.nEmbed) + ", n_layer " + std::to_string(c.nLayer) +
             (c.isV5() ? ", " + std::to_string(c.heads) + " heads of " + std::to_string(c.headSize)
                       : std::string()) +
             "), imported from rwkv.cpp by ssm-import.\n"
             "// @forward_sequence: " +
             std::to_string(seqLen) +
             " tokens, scan form; @forward_step: one token, state-update form" +
             (batch > 0 ? "; @forward_step_batched: one token of each of " +
                              std::to_string(batch) + " streams"
                        : std::string()) +
             ".\n"
             "// Arguments: tokens, states (model.json order), weights; results: logits, states.\n";
  m.width = c.nEmbed;
  m.vocab = c.nVocab;
  for (const RwkvParam &p : c.params)
    m.params.push_back({p.name, p.shape});
  for (int64_t l = 0; l < c.nLayer; ++l) {
    const std::string p = "blocks." + std::to_string(l) + ".";
    m.layers.push_back({c.isV7() && l > 0 ? &rest : &first, p, p});
  }
  m.embed = [&c](graph::ModelScope &s, const TValue &tokens) {
    return layers::rwkvEmbed(s, c, tokens);
  };
  m.head = [&c](graph::ModelScope &s, const TValue &x) { return layers::rwkvHead(s, c, x); };
  return graph::writeModule(m, seqLen, rows, batch, mlir, error);
}

} // namespace ssm::importer
