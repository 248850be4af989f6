// A model folder run on the reference interpreter, streamed as the model library's streams are (rt::Stream): the oracle for whole models.
//
// The graph of model.json is rebuilt for each call length (import/
// ModelBuilder.h), its weight arguments typed as weights.safetensors stores
// them (passes/WeightStorage.h), parsed once per length and interpreted in
// float64 (reference/Interpreter.h). States are carried between calls by
// their ssm.state names, starting at model.json's init values; an argument
// named "position" gets the stream's position before the call; a call that
// would take the stream past the capacity of a cache state (ModelSpec::
// contextLength) fails with Code::ContextFull and runs nothing, as in the
// model library.
#ifndef SSM_REFERENCE_MODELSTREAM_H
#define SSM_REFERENCE_MODELSTREAM_H

#include "import/ModelBuilder.h"
#include "runtime/ModelSpec.h"
#include "runtime/Status.h"
#include "runtime/TokenStream.h"
#include "runtime/Weights.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace ssm::ref {

/// The graph of model.json text `specText` for `len` tokens, its weight
/// arguments typed as `weights` stores them (passes/WeightStorage.h: f16,
/// bf16 and q8 weights are read in their storage type, never widened in
/// memory). False with `error` naming the problem.
bool storedModelGraph(const std::string &specText, int64_t len, importer::LogitsRows rows,
                      const rt::WeightFile &weights, mlir::MLIRContext &ctx, std::string &text,
                      std::string &error);

/// A model stream on the reference interpreter, behind the same interface
/// as the model library's (rt::TokenStream).
class ModelStream : public rt::TokenStream {
public:
  /// `rows`: the logits the sequence function returns (the last position's
  /// or every position's). `ctx`, `spec` and `weights` outlive the stream.
  ModelStream(mlir::MLIRContext &ctx, const rt::ModelSpec &spec, rt::WeightFile &weights,
              importer::LogitsRows rows);
  ~ModelStream() override;

  void reset() override;
  /// One call of the sequence function on the `n` tokens (its graph for n
  /// tokens). With `allLogits`: from that call when the stream was made
  /// for every position's logits (LogitsRows::All), else step by step.
  rt::Status prefill(const int32_t *tokens, size_t n,
                     std::vector<float> *allLogits = nullptr) override;
  /// One token through the step function.
  rt::Status step(int32_t token) override;
  const std::vector<float> &logits() const override { return logits_; }
  int64_t position() const override { return position_; }

private:
  rt::Status call(const std::string &function, const std::vector<int32_t> &tokens,
                  std::vector<float> &logits);
  struct Graphs;

  mlir::MLIRContext &ctx_;
  const rt::ModelSpec &spec_;
  rt::WeightFile &weights_;
  importer::LogitsRows rows_;
  std::map<std::string, std::vector<float>> initial_, states_;
  std::vector<float> logits_;
  int64_t position_ = 0;
  std::unique_ptr<Graphs> graphs_; // parsed graphs by call length
};

} // namespace ssm::ref

#endif
