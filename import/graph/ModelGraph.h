// The model skeleton: one writer of the public functions, the block functions, the state plumbing and the weight bindings of any stack of layers.
//
// An architecture is a ModelDecl: its weights (in argument order), its
// layers (each an instance of a BlockKind, with the prefixes of its weight
// and state names), what runs before the first layer (embedding, and for
// RWKV ln0) and after the last (the final norm and the LM head). writeModule
// turns it into the module every model folder holds (import/ModelBuilder.h):
//
//   @forward_sequence      (tokens (L), states..., weights...) -> (logits (R, vocab), states...)
//   @forward_step          (tokens (1), states..., weights...) -> (logits (1, vocab), states...)
//   @forward_step_batched  (tokens (B), states with a leading dim B, weights...)
//                                                            -> (logits (B, vocab), states...)
//   @forward_sequence_batched (tokens (B*L): stream b's L tokens at rows b*L.., states with a
//                              leading dim B, weights...) -> (logits (B, vocab): each
//                              stream's last position, states...)
//
// (the last one only while a SequenceBatchScope asks for it: model.json
// functions.sequence_batched, ssm-import --prefill-batch B; every block kind
// of the model must declare batchedSequence)
//
// (after the tokens, `%position: tensor<Sxi32> {ssm.name = "position"}`,
// S streams, when a block kind takes it) and, per form, one private
// function per block kind,
//
//   @<kind>_<form>(h (rows, width), [position (S)], carries in..., the layer's states...,
//                  the layer's weights...) -> (h, the layer's new states..., carries out...)
//
// called once per layer of that kind (<form>: sequence, step, step_batched,
// sequence_batched).
// States are the ssm.state arguments and results, in layer order and in
// each kind's state order: model.json's "states" order. A carry is a value
// one layer hands to later ones besides the residual stream (RWKV-7's
// v_first); its shape is (rows, ...).
//
// A block kind's body writes the ops of one layer with the emitter; so a
// new architecture is a few block kinds and a ModelDecl, and the batched
// step comes with it. Hybrids mix kinds (recurrent blocks, attention blocks)
// in one stack.
#ifndef SSM_IMPORT_GRAPH_MODELGRAPH_H
#define SSM_IMPORT_GRAPH_MODELGRAPH_H

#include "import/ModelBuilder.h"
#include "import/RwkvMlirEmitter.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ssm::importer::graph {

using Shape = std::vector<int64_t>;

/// Which of the three public functions (and its blocks) is being written.
struct Form {
  enum class Kind { Sequence, Step, BatchedStep, BatchedSequence };
  Kind kind = Kind::Sequence;
  int64_t length = 1; // tokens per call (per stream): the sequence length, 1 when stepping
  int64_t batch = 0;  // streams of the batched forms, 0 otherwise

  /// Rows of the residual stream: `length` tokens, one token of each of
  /// `batch` streams, or (the batched sequence) `length` tokens of each of
  /// `batch` streams, stream-major (row b * length + t is stream b's token t).
  int64_t rows() const {
    return kind == Kind::BatchedStep       ? batch
           : kind == Kind::BatchedSequence ? batch * length
                                           : length;
  }
  bool sequence() const { return kind == Kind::Sequence; }
  bool step() const { return kind == Kind::Step; }
  /// The batched step (one token per stream).
  bool batched() const { return kind == Kind::BatchedStep; }
  /// The batched sequence (`length` tokens per stream).
  bool batchedSequence() const { return kind == Kind::BatchedSequence; }
  /// Streams per call: `batch` in the batched forms, 1 otherwise.
  int64_t streams() const { return hasBatchDim() ? batch : 1; }
  /// The states carry a leading dim of `batch` streams.
  bool hasBatchDim() const { return batched() || batchedSequence(); }
  /// Tokens per stream and call: `length` in the sequence forms, 1 stepping.
  int64_t tokensPerStream() const { return batched() ? 1 : length; }
  /// "sequence", "step", "step_batched", "sequence_batched": the suffix of the functions' names.
  std::string name() const;
  /// A state's shape in this form: `shape`, with a leading dim `batch` when batched.
  Shape stateShape(const Shape &shape) const { return withBatch(hasBatchDim() ? batch : 0, shape); }
};

/// A weight or a state: its name (full, or a suffix after a layer's prefix) and shape.
struct TensorDecl {
  std::string name;
  Shape shape;
};

/// What a block's body reads and writes. Weights and states are keyed by
/// their full names in the kind's first layer (e.g. "backbone.layers.0.
/// mixer.D", "layers.0.conv_state"); `paramPrefix` / `statePrefix` are that
/// layer's prefixes.
struct BlockScope {
  MlirEmitter &e;
  Form form;
  std::string paramPrefix, statePrefix;
  TValue h;                             // the residual stream (rows, width); the body sets the result
  TValue position;                      // kinds that take it: (streams) i32, the stream's
                                        // position before the call's first token
  std::map<std::string, TValue> params; // by full name
  std::map<std::string, TValue> states; // by full name
  std::map<std::string, TValue> carries; // carries in, by name
  std::vector<TValue> newStates;        // the body appends one per state, in the kind's order
  std::map<std::string, TValue> carriesOut; // the body sets one per carry out

  /// The weight paramPrefix + suffix and the state statePrefix + suffix;
  /// a name the block did not declare throws, and writeModule reports it.
  const TValue &param(const std::string &suffix) const;
  const TValue &state(const std::string &suffix) const;
};

/// One kind of layer: a private function per form.
struct BlockKind {
  std::string name;                 // the functions are @<name>_<form>
  std::vector<TensorDecl> params;   // after the layer's weight prefix, in argument order
  std::vector<TensorDecl> states;   // after the layer's state prefix; shapes without the batch dim
  std::vector<TensorDecl> carriesIn, carriesOut; // shapes after the rows dim
  /// The block reads the stream's position (attention's cache rows, RoPE):
  /// the public functions then take `%position` (ssm.name "position", i32,
  /// one per stream: (1), or (batch) in the batched step), which the
  /// runtime fills (runtime/Model.h), and pass it to this kind's blocks
  /// after h.
  bool takesPosition = false;
  /// The body writes the batched sequence form (Form::batchedSequence:
  /// rows stream-major, states with a leading dim of streams); a model with a
  /// kind that does not is refused a SequenceBatchScope by name.
  bool batchedSequence = false;
  /// Writes the layer: reads scope.h, params, states, carries; sets scope.h,
  /// appends every new state, sets every carry out.
  std::function<void(BlockScope &)> body;
  /// An optional comment line (without "// ") written above the function.
  std::function<std::string(const Form &)> comment;
};

/// One layer of the stack.
struct LayerDecl {
  const BlockKind *kind = nullptr;
  std::string paramPrefix; // e.g. "backbone.layers.3."
  std::string statePrefix; // e.g. "layers.3."
};

/// What the public functions' prologue and epilogue see.
struct ModelScope {
  MlirEmitter &e;
  Form form;
  std::map<std::string, TValue> params; // every weight, by full name
  /// The weight `name`; one the model did not declare throws, and writeModule reports it.
  const TValue &param(const std::string &name) const;
};

/// An architecture's graph.
struct ModelDecl {
  /// The module's leading comment lines, each starting with "//".
  std::string header;
  int64_t width = 0; // the residual stream's columns
  int64_t vocab = 0;
  std::vector<TensorDecl> params; // every weight the graph reads, full names, argument order
  std::vector<LayerDecl> layers;
  /// tokens (rows) i32 -> the residual stream (rows, width).
  std::function<TValue(ModelScope &, const TValue &tokens)> embed;
  /// The residual stream's rows that get logits (R, width) -> logits (R, vocab).
  std::function<TValue(ModelScope &, const TValue &h)> head;
  /// An optional comment line (without "// ") above each public function.
  std::function<std::string(const Form &)> comment;
};

/// Every state of the model, full names, in model.json order.
std::vector<TensorDecl> modelStates(const ModelDecl &model);

/// The module text: @forward_sequence for `seqLen` tokens with the logits
/// of `rows`, @forward_step, and with `batch` > 0 @forward_step_batched.
/// False with `error` when a layer's weights are missing from `params` or
/// differ in shape from its kind's, or a body leaves a state or carry
/// unset (a bug of the architecture's description, reported, not thrown).
bool writeModule(const ModelDecl &model, int64_t seqLen, LogitsRows rows, int64_t batch,
                 std::string &mlir, std::string &error);

/// While alive, writeModule on this thread also writes
/// @forward_sequence_batched for `batch` streams of `seqLen` tokens (0: not);
/// buildModelMLIR holds one for model.json's functions.sequence_batched.
class SequenceBatchScope {
public:
  explicit SequenceBatchScope(int64_t batch);
  ~SequenceBatchScope();
  SequenceBatchScope(const SequenceBatchScope &) = delete;
  SequenceBatchScope &operator=(const SequenceBatchScope &) = delete;

private:
  int64_t saved_;
};

/// [A-Za-z0-9] kept (lower-cased), anything else '_': an SSA name hint from a tensor name.
std::string ssaHint(const std::string &name);

} // namespace ssm::importer::graph

#endif // SSM_IMPORT_GRAPH_MODELGRAPH_H
