// The model library: a deployed model (model.json, loaded weights, compiled modules) and its streams.
//
// A Model is loaded once: model.json (runtime/ModelSpec.h), the weights
// read into memory once, or mapped (runtime/Weights.h), and one or more compiled modules
// (ssm-compile outputs of the model's graph: runtime/Module.h). Each module
// adds the model's sequence function (model.json "functions.sequence", the
// scan form over a fixed number of tokens L) and step function (one token,
// the state-update form), each checked against model.json and the weights
// and bound to its weights once, by ssm.param name.
//
// A Stream is one sequence being processed: its own state (one f32 tensor
// per model.json state, starting at its "init"), the logits after its last
// token and its position. prefill() runs a prompt of any length n as
// compiled sequence calls of the largest compiled length L <= what is left,
// then step calls for the rest, the state carried between calls, so no
// length needs compiling when the model has a step function. Streams are
// independent: any number may exist, and different streams may run on
// different threads at once; one stream is used by one thread at a time.
// addModule() and setThreads() must not run while streams run.
//
// Several streams stepped together (stepTogether) go through the model's
// batched step function when a module has one (model.json
// "functions.step_batched", B streams per call: ssm-import --batch B): their
// states are gathered into the call's batch buffers, B at a time, and the
// new states and logits scattered back, so each weight is read once per B
// streams instead of once per stream (decode is bound by reading the
// weights). Each stream ends exactly where a step of its own would leave
// it, up to the kernels' rounding (a batched matmul may sum in another
// order).
//
// Memory: the weights once (loaded F32, or converted f32 for other dtypes),
// then per stream and per compiled function used the kernels' results (the
// logits of its L positions and one copy of the state) and the buffers
// between its kernels.
#ifndef SSM_RUNTIME_MODEL_H
#define SSM_RUNTIME_MODEL_H

#include "runtime/Module.h"
#include "runtime/ModelSpec.h"
#include "runtime/StateFile.h"
#include "runtime/Status.h"
#include "runtime/TokenStream.h"
#include "runtime/Weights.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ssm::rt {

class Stream;

class Model {
public:
  ~Model();
  /// Reads <dir>/model.json, loads <dir>/weights.safetensors as `load` says
  /// (runtime/Weights.h: read into huge-page memory by default, or mapped),
  /// and adds every compiled module in <dir>/compiled/*/ (sorted by folder
  /// name; none is fine, addModule() can add them later). `context` > 0
  /// sets the positions each stream's KV caches hold (ModelSpec::withContext:
  /// its errors; 0 keeps model.json's; a model without caches ignores it).
  /// A module compiled for another capacity runs where its kernels write
  /// the caches in place (CPU modules of attention: their loops run over the
  /// cache's own extent); its batched step function, whose caches are one
  /// buffer of the compiled capacity, serves streams below that capacity
  /// (stepTogether). Other modules are refused at their first call, naming
  /// both capacities.
  static std::unique_ptr<Model> open(const std::string &dir, Status &status,
                                     WeightLoad load = WeightLoad::Copy, int64_t context = 0);
  /// The same from a model.json already read and weights already loaded.
  static std::unique_ptr<Model> open(ModelSpec spec, std::unique_ptr<WeightFile> weights,
                                     Status &status);

  /// Loads the ssm-compile output in `moduleDir` and adds its sequence and
  /// step functions. Errors: the module's own (NotFound, InvalidFile), a
  /// module with neither function (Mismatch), an argument that is not the
  /// tokens, a model.json state or a weight, a state whose size differs from
  /// model.json's, a weight missing or of another shape (Mismatch).
  Status addModule(const std::string &moduleDir);
  /// Adds every module in <spec().dir>/compiled/*/ (folders with a
  /// manifest.json, sorted by name); none is fine. A folder may hold modules
  /// for several machines (`ssm-compile <dir> --target T` writes
  /// compiled/seq<L>-<T>): a module compiled for another machine (a cross
  /// target, with no shared library, or instructions this CPU lacks) is
  /// skipped, and listed in skippedModules(), when another module of the
  /// folder runs here; when none does, the first one's refusal is returned.
  /// Any other problem of a module (damaged, mismatched) is an error.
  Status addCompiledModules();
  /// The modules addCompiledModules() skipped: "<dir> (compiled for <target>)".
  const std::vector<std::string> &skippedModules() const { return skipped_; }

  const ModelSpec &spec() const { return spec_; }
  WeightFile &weights() { return *weights_; }
  /// Vocabulary size: model.json's, else the compiled logits' last dimension
  /// (0 before any module).
  int64_t vocab() const { return vocab_; }
  /// Token counts of the compiled sequence functions, ascending.
  std::vector<int64_t> sequenceLengths() const;
  bool hasStep() const;
  /// The positions a stream can hold (ModelSpec::contextLength: the least
  /// capacity of the cache states, as chosen at open); 0 when unbounded (no
  /// cache state).
  int64_t contextLength() const { return spec_.contextLength(); }
  /// Streams per call of the compiled batched step function (model.json
  /// functions.step_batched), or 0 when no module has it.
  int64_t stepBatch() const;
  /// Threads of every module's Halide thread pool (0: one per core).
  void setThreads(int n);

  /// Steps streams[i] (n >= 1 distinct streams of this model, none in use
  /// by another thread) on tokens[i] through the batched step function, in
  /// calls of stepBatch() streams; a last partial call is padded with rows
  /// at the init state whose results are discarded, except that a single
  /// stream left over takes its own step (if the model has a step
  /// function: cheaper than a call of B rows), and that a stream at a
  /// position past the capacity the batched function was compiled for (a
  /// model opened with a larger context) takes its own step after the
  /// batched calls (Unsupported without a step function). Several threads may
  /// call it at once (each call takes its own batch buffers). Errors: no
  /// batched step function (Unsupported), a token outside the vocabulary
  /// (InvalidArgument, nothing stepped), a stream at its context length
  /// (ContextFull, nothing stepped, `failed` its index), a kernel error (KernelFailed):
  /// then the streams of the failing call and after it are unchanged, those
  /// before it have stepped, and `failed` (if given) is the index of the
  /// failing call's first stream.
  Status stepTogether(Stream *const *streams, size_t n, const int32_t *tokens,
                      size_t *failed = nullptr);

  /// Streams per call of the compiled batched sequence function (model.json
  /// functions.sequence_batched), or 0 when no module has it.
  int64_t prefillBatch() const;
  /// Token counts (per stream) of the compiled batched sequence functions, ascending.
  std::vector<int64_t> batchedSequenceLengths() const;
  /// Prefills streams[i] (n >= 1 distinct streams of this model, none in use
  /// by another thread) with counts[i] >= 1 tokens from tokens[i], each
  /// ending where streams[i]->prefill(tokens[i], counts[i]) leaves it (the
  /// same split into compiled calls: the longest compiled length that fits
  /// what is left, then steps), up to the kernels' rounding. Calls of a
  /// length that has a batched sequence function (functions.sequence_batched,
  /// B streams per call: each weight read once per B streams) go together
  /// in calls of up to B streams: the k-th call of length L of every stream
  /// at once (streams whose prompts differ in length share the calls of the
  /// lengths they have in common; a stream with fewer is not padded, only
  /// a partial call's unused rows are, with the init state and token 0, and
  /// dropped). A partial call of fewer than B / 3 streams (padding would
  /// cost more than their own calls), a single stream left over in a call, a call that would pass
  /// the capacity the batched function was compiled for, and calls of other
  /// lengths run alone; the one-token remainders go through stepTogether
  /// when the model has a batched step. Errors: as Stream::prefill's, checked for every stream
  /// before anything runs (InvalidArgument, ContextFull; nothing run,
  /// `failed` the stream's index), or a kernel error (KernelFailed: the
  /// streams' states are then undefined, as after a failed prefill; `failed`
  /// the first stream of the failing call).
  /// Calls longer than `longestBatched` tokens run alone (each stream's own
  /// sequence function): at LFM2-350M shapes a call of 8 streams x 128 tokens
  /// took 1.25-1.35x the time of the 8 calls alone, where 8 x (16 + 4) took
  /// 0.62x (ssm-serve's time to first token, 2 threads), so a caller batches
  /// the short calls only (the server: 16). (That first figure included
  /// making the call's buffers, now reserveBatchBuffers; with them made, 1
  /// thread: 0.85-1.14x, the 128-token calls alone already read each weight
  /// once per 128 tokens.)
  Status prefillTogether(Stream *const *streams, size_t n, const int32_t *const *tokens,
                         const size_t *counts, size_t *failed = nullptr,
                         int64_t longestBatched = INT64_MAX);

  /// Allocates and binds now the buffers the batched functions' calls use
  /// (those stepTogether and prefillTogether otherwise make at their first
  /// call and then keep for the next): one batch of the batched step
  /// function, and one of each batched sequence function of at most
  /// `longestBatched` tokens. Their size is B times a stream's states (the
  /// KV caches at the compiled capacity included), and at LFM2-350M shapes
  /// with 8 streams at context 1,280 making them took seconds (every page
  /// zeroed and faulted in: 0.25 GB per cache buffer, several per batch), all
  /// of it inside the first requests' time (ssm-serve calls this at start).
  /// A model without batched functions: nothing to do, Ok. Errors: those of
  /// binding the functions (Mismatch, Internal), as their first call would
  /// report them.
  Status reserveBatchBuffers(int64_t longestBatched = INT64_MAX);

private:
  friend class Stream;
  Model() = default;
  /// One compiled function of the model.
  struct Entry {
    CompiledModule *module = nullptr;
    const FunctionInfo *fn = nullptr;
    bool step = false;
    int64_t batch = 0;        // the batched functions: streams per call
    bool sequenceBatched = false; // the batched sequence function (batch streams of `length`)
    int64_t length = 0;       // tokens per call (per stream in the batched sequence)
    int tokensArgument = -1;
    /// The argument named "position" (int32, one per stream): the stream's
    /// position before the call's first token; -1 when not taken.
    int positionArgument = -1;
    int logitsResult = -1;
    int64_t logitsRows = 0;   // L (every position) or 1 (the last only)
    std::vector<int> argumentState, resultState; // spec state index or -1
    /// Per argument: for a cache state, the positions the function holds it
    /// at (its shape along the cache axis; the open's capacity may differ,
    /// Model::open); 0 otherwise.
    std::vector<int64_t> argumentCapacity;
    /// The least of argumentCapacity's non-zero values (0: no cache).
    int64_t cacheCapacity = 0;
    std::vector<const HostTensor *> weightArguments; // per argument, null if not a weight
  };
  Status addFunction(CompiledModule &module, const FunctionInfo &fn, bool step, int64_t batch,
                     bool sequenceBatched = false);
  /// Batch buffers of the batched step function bound to it (runtime/BatchedStep.h).
  struct BatchSlot;
  std::unique_ptr<BatchSlot> takeBatchSlot(const Entry &e, Status &status);
  void returnBatchSlot(std::unique_ptr<BatchSlot> slot);
  /// Buffers of a batched sequence function bound to it (runtime/BatchedPrefill.cpp).
  struct PrefillSlot;
  std::unique_ptr<PrefillSlot> takePrefillSlot(const Entry &e, Status &status);
  void returnPrefillSlot(std::unique_ptr<PrefillSlot> slot);
  /// One call of `e` (a batched sequence function) on k <= e.batch streams.
  Status runPrefillCall(const Entry &e, Stream *const *streams, const int32_t *const *tokens,
                        size_t k);

  ModelSpec spec_;
  std::unique_ptr<WeightFile> weights_;
  std::vector<std::unique_ptr<CompiledModule>> modules_;
  std::vector<std::unique_ptr<Entry>> entries_;
  std::vector<std::string> skipped_; // addCompiledModules: for another machine
  std::vector<std::unique_ptr<Entry>> batchedEntries_; // the batched step functions
  std::mutex batchSlotsMutex_;
  std::vector<std::unique_ptr<BatchSlot>> batchSlots_; // idle, bound to batchedEntries_[0]
  std::vector<std::unique_ptr<Entry>> batchedSequenceEntries_; // one per compiled length
  std::mutex prefillSlotsMutex_;
  std::vector<std::unique_ptr<PrefillSlot>> prefillSlots_; // idle, each bound to its entry
  std::map<std::string, HostTensor> weightViews_; // bound once, shared by all streams
  int64_t vocab_ = 0;
  int threads_ = 0;
};

class Stream : public TokenStream {
public:
  /// A stream at the model's initial state (position 0, no logits).
  explicit Stream(Model &model);
  ~Stream() override;

  /// Every state back to its model.json init; position 0.
  void reset() override;
  /// Runs `n` tokens (n >= 1). With `allLogits`, it receives n x vocab
  /// values: only the compiled calls that return every position's logits
  /// are used (sequence functions built with import LogitsRows::All, and the
  /// step), so a model whose sequence functions return only the last
  /// position's runs such a prompt step by step. Errors: a token outside the vocabulary
  /// (InvalidArgument), no compiled function for what is left (Unsupported),
  /// a kernel error (KernelFailed). On error the state is undefined: reset or
  /// load it.
  Status prefill(const int32_t *tokens, size_t n,
                 std::vector<float> *allLogits = nullptr) override;
  /// One token through the step function (or a length-1 sequence function).
  Status step(int32_t token) override;
  /// The logits after the last token (vocab values; empty at position 0).
  const std::vector<float> &logits() const override { return logits_; }
  /// Tokens processed since the start or the last reset.
  int64_t position() const override { return position_; }
  /// The first value that is not finite (NaN or an infinity) in the logits,
  /// then in each state (model.json order), as "logits[i] = nan" or
  /// "state 'name'[i] = inf"; "" when every value is finite (or a state
  /// cannot be brought back from the device: that error is left to the next
  /// call). One pass over the logits and the states: call it after a call
  /// whose results matter, not in a loop. The cpu engine computes in
  /// float32 where the reference interpreter computes in float64, so
  /// extreme weights (docs/numerics.md) can overflow there and nowhere else.
  std::string firstNonFinite() const;
  /// Ok when `n` more tokens fit the model's context (Model::contextLength);
  /// ContextFull, naming the cache state, otherwise.
  Status checkContext(size_t n) const;

  /// The current value of state `index` (model.json order).
  /// The states are carried between calls of the same compiled function
  /// (BoundCall::carryState: on a GPU module they stay on the device; on
  /// the CPU the call's result buffer and states_ trade places each
  /// step); reading one here, save(), setState(), load(), reset() and a
  /// call of another compiled function first put them back in states_.
  const HostTensor &state(size_t index) const;
  /// From now on every call leaves the states on the host (a zero-copy view
  /// of a state, ssm_stream_state_dlpack, must see each step and its writes
  /// must reach the next call): each call then puts them back in states_.
  void keepStatesOnHost();
  /// Overwrites state `name` with `n` values (n must be its size).
  Status setState(const std::string &name, const float *values, size_t n);
  /// Writes every state, the position and the logits to `path` (the format
  /// of runtime/StateFile.h), replacing the file atomically; each KV cache
  /// as its rows up to the position (snapshot's compact form), so the file
  /// does not depend on the capacity the model was opened with.
  Status save(const std::string &path) const;
  /// Reads a file save() wrote, for this model (opened with any capacity
  /// that holds the file's position; older files with whole caches too):
  /// refused (the stream unchanged) when it is truncated, corrupt, of
  /// another format version, or from a model with other states (InvalidFile,
  /// Mismatch), or when its position is past this stream's capacity
  /// (ContextFull, naming the context to open it with).
  Status load(const std::string &path);
  /// The same in memory: every state, the position and the logits copied
  /// into `out` (a server's prompt cache keeps them), and put back from one
  /// (refused, the stream unchanged, as load() refuses a file; `what` names
  /// it in messages). With `compactCaches`, each KV cache state (kind
  /// "cache") keeps only the rows of the positions read (shape[axis] =
  /// position), so a snapshot of a hybrid costs its fixed states plus what
  /// its caches hold, not their capacity; restore() takes either form (the
  /// rows past the saved ones are set to the state's init), and whole
  /// caches of another capacity whose rows hold the position (a model opened
  /// with another context: the rows past this capacity were never written).
  /// save() writes the compact form.
  Status snapshot(SavedState &out, bool compactCaches = false) const;
  Status restore(const SavedState &state, const std::string &what = "saved state");

  const Model &model() const { return model_; }
  Model &model() { return model_; }

private:
  friend class Model; // stepTogether gathers and scatters the states
  struct Bound;
  Status run(const Model::Entry &e, const int32_t *tokens, std::vector<float> *allLogits);
  /// Puts the states the last call carried (on the device, or in its CPU
  /// result buffers) back into states_.
  Status syncStates() const;
  Model &model_;
  std::vector<HostTensor> states_; // spec order; storage never moves (bound by address)
  std::map<const Model::Entry *, std::unique_ptr<Bound>> bound_;
  /// The call whose carried buffers may hold the current states (states_
  /// may be stale), or null.
  mutable Bound *resident_ = nullptr;
  bool statesOnHost_ = false; // keepStatesOnHost()
  /// Changes whenever states_ may have changed (a call, setState, load,
  /// reset, a batched step), unique across all streams: a batch slot whose
  /// row holds this stream's states at this version need not copy them in.
  uint64_t stateVersion_ = 0;
  void touchStates();
  std::vector<float> logits_;
  int64_t position_ = 0;
};

} // namespace ssm::rt

#endif
