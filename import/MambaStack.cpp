// The Mamba backbone shared by Mamba-1 and Mamba-2 (import/MambaStack.h).
#include "import/MambaStack.h"
#include "import/layers/Layers.h"

namespace ssm::importer {

bool writeMambaStack(const MambaStack &st, int64_t seqLen, LogitsRows rows, int64_t batch,
                     std::string &mlir, std::string &error) {
  using graph::Form;
  // One block kind: every layer has layer 0's weights and states.
  graph::BlockKind block;
  block.name = "block";
  const std::string layer0 = "backbone.layers.0.", state0 = "layers.0.";
  for (const MambaParam &p : st.params)
    if (p.name.rfind(layer0, 0) == 0)
      block.params.push_back({p.name.substr(layer0.size()), p.shape});
  for (const MambaState &s : st.states)
    if (s.name.rfind(state0, 0) == 0)
      block.states.push_back({s.name.substr(state0.size()), s.shape});
  block.body = st.block;
  block.batchedSequence = st.batchedSequence;
  block.comment = [](const Form &f) {
    return "One block (RMSNorm, mixer, residual) on " +
           (f.batched() ? "one token of each of " + std::to_string(f.batch) + " streams"
            : f.batchedSequence()
                ? std::to_string(f.length) + " tokens of each of " + std::to_string(f.batch) +
                      " streams"
                        : std::to_string(f.rows()) + (f.rows() == 1 ? " token" : " tokens")) +
           ", called once per layer.";
  };

  graph::ModelDecl m;
  m.header = st.header;
  m.width = st.width;
  m.vocab = st.vocab;
  for (const MambaParam &p : st.params)
    m.params.push_back({p.name, p.shape});
  for (int64_t l = 0; l < st.numLayers; ++l)
    m.layers.push_back({&block, "backbone.layers." + std::to_string(l) + ".",
                        "layers." + std::to_string(l) + "."});
  m.embed = [](graph::ModelScope &s, const TValue &tokens) {
    s.e.line("// Embedding lookup.");
    return layers::embedding(s.e, tokens, s.param("backbone.embedding.weight"), "embedded");
  };
  m.head = [&st](graph::ModelScope &s, const TValue &h) {
    s.e.line(std::string("// Final RMSNorm and the LM head") +
             (st.tiedHead ? " (tied: the embedding table)." : "."));
    TValue hn = layers::rmsNorm(s.e, h, s.param("backbone.norm_f.weight"), st.normEpsilon,
                                "final_normed");
    return s.e.linear(
        hn, s.param(st.tiedHead ? "backbone.embedding.weight" : "lm_head.weight"), "logits");
  };
  m.comment = [&st](const Form &f) {
    return f.batchedSequence()
               ? "Prefill of " + std::to_string(f.batch) + " streams at once: tokens b * " +
                     std::to_string(f.length) + " .. of stream b, row b of every state and of "
                     "the logits (its last position's), each as @forward_sequence computes it."
           : f.batched()
               ? "Decode of " + std::to_string(f.batch) +
                     " streams at once: token i and row i of every state (and of the logits) "
                     "are stream i's, each row as @forward_step computes it."
           : f.step() ? std::string("Decode: one token through the state-update form.")
                      : "Prefill: " + std::to_string(f.length) + " tokens through " +
                            st.prefillForm + ", from the carried states.";
  };
  return graph::writeModule(m, seqLen, rows, batch, mlir, error);
}

} // namespace ssm::importer
