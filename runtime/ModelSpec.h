// A model's description, model.json (written by ssm-import): architecture, vocabulary, states, function names.
//
// model.json fields the runtime reads ("format": "ssm-opt-model"):
//   "architecture"  string, e.g. "rwkv4", "mamba1" (part of the state fingerprint)
//   "config"        object; "n_vocab" or "vocab_size" is the vocabulary size
//   "byte_tokens"   bool: tokens are UTF-8 bytes (default: vocabulary 256)
//   "functions"     {"sequence": name, "step": name}; default forward_sequence, forward_step;
//                   optionally "step_batched": {"name": name, "batch": B}, a step
//                   function of B streams at once (tokens (B), each state with a
//                   leading dim B, logits (B, vocab); ssm-import --batch B)
//                   and "sequence_batched": {"name": name, "batch": B}, a sequence
//                   function of B streams at once (tokens (B*L), stream-major, each
//                   state with a leading dim B, each stream's last logits (B,
//                   vocab); ssm-import --prefill-batch B)
//   "states"        [{"name", "shape", "init", "kind", "axis"}]: each stream
//                   starts with every element of state `name` at `init`
//                   (default 0). "kind" is "fixed" (default: a conv, SSM or
//                   WKV state, whose size never depends on the position) or
//                   "cache" (a KV cache: position p of the stream is row p
//                   along dim "axis", so shape[axis] is the capacity in
//                   tokens; a stream fed past it fails with ContextFull)
#ifndef SSM_RUNTIME_MODELSPEC_H
#define SSM_RUNTIME_MODELSPEC_H

#include "runtime/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ssm::rt {

/// What a state holds (DESIGN.md section 6, state kinds).
enum class StateKind {
  Fixed, // a summary of everything read, the same size at every position
  Cache, // one row per position read (a KV cache), up to a capacity
};

struct StateSpec {
  std::string name;
  std::vector<int64_t> shape;
  int64_t numel = 0;
  float init = 0.0f;
  StateKind kind = StateKind::Fixed;
  /// Cache: the dim of `shape` that positions index; -1 for Fixed.
  int axis = -1;
  /// Cache: shape[axis], the positions it holds; 0 for Fixed (no bound).
  int64_t capacity() const { return kind == StateKind::Cache ? shape[axis] : 0; }
};

struct ModelSpec {
  std::string dir;  // the model folder
  std::string text; // model.json as read (the graph builder regenerates graphs from it)
  std::string architecture;
  int64_t vocab = 0; // 0: not in model.json (taken from the compiled logits)
  bool byteTokens = false;
  std::string sequenceFunction = "forward_sequence", stepFunction = "forward_step";
  /// functions.step_batched: its name and batch size (empty and 0 when absent).
  std::string batchedStepFunction;
  int64_t stepBatch = 0;
  /// functions.sequence_batched: its name and batch size (empty and 0 when absent).
  std::string batchedSequenceFunction;
  int64_t prefillBatch = 0;
  std::vector<StateSpec> states; // model.json order
  /// Identifies what a saved state belongs to: FNV-1a 64 of the
  /// architecture, the config and each state's name and shape, as
  /// model.json says them (withContext() leaves it: a state saved from
  /// another capacity of the same model is the same model's).
  uint64_t fingerprint = 0;
  /// contextLength() as model.json says it (the import's --context: the
  /// capacity its compiled modules were built for); 0 without cache states.
  int64_t importedContext = 0;

  /// Reads <dir>/model.json. Errors (InvalidFile, NotFound) name the file and
  /// the field: not an ssm-opt model, a malformed state entry, a shape that is
  /// negative or over 2^28 values, a field of the wrong JSON type, a
  /// functions.step_batched or functions.sequence_batched that is not
  /// {"name": string, "batch": 1 to 1024}.
  static Status load(const std::string &dir, ModelSpec &out);

  /// The largest capacity withContext() takes: a model.json's
  /// config.context_length is at most 2^30.
  static constexpr int64_t kMaxContext = int64_t(1) << 30;
  /// Sets the positions a stream holds (the capacity chosen at open:
  /// Model::open, ssm_model_open_options, `ssm-run --context N`): every cache
  /// state's shape[axis] becomes `n`, and `text` says so too (its states'
  /// shapes and config.context_length, so that graphs built from it, for the
  /// reference interpreter or a compilation, hold n positions). A model
  /// without cache states (a pure SSM) is unchanged: it has no bound. Errors
  /// (InvalidArgument, naming --context): n < 1, n > kMaxContext (for a
  /// model with cache states), a cache
  /// state of over 2^31 - 1 bytes at n positions (a compiled kernel's buffer
  /// holds at most that; the state is named). Whether the states fit this
  /// machine is the caller's (stateBytes() against usableMemoryBytes()).
  Status withContext(int64_t n);

  /// The index of state `name` in `states`, or -1.
  int findState(const std::string &name) const;
  /// The positions a stream can hold: the least capacity of the Cache
  /// states; 0 when every state is Fixed (no bound).
  int64_t contextLength() const;
  /// The states grouped by what they are: the name after "layers.<n>." (or
  /// the whole name), the layers holding one, its kind and its bytes per
  /// layer (float32): per stream for fixed states, per position for caches.
  struct StateGroup {
    std::string name;
    int64_t layers = 0;
    StateKind kind = StateKind::Fixed;
    int64_t bytesPerLayer = 0; // fixed: per stream; cache: per position
  };
  std::vector<StateGroup> stateGroups() const;
  /// Bytes of one stream's states (float32): `fixed` for the fixed states
  /// (the same at every position), `cachePerPosition` for one position of
  /// every cache, `cacheAllocated` for the caches at their capacity (what
  /// the runtime allocates per stream).
  void stateBytes(int64_t &fixed, int64_t &cachePerPosition, int64_t &cacheAllocated) const;
  /// Ok when `n` more tokens at `position` fit contextLength(); ContextFull,
  /// naming the cache state, otherwise (the model library's streams and the
  /// reference interpreter's check before running anything).
  Status checkContext(int64_t position, int64_t n) const;
};

/// FNV-1a 64 over `n` bytes, continuing from `h`.
uint64_t fnv1a(const void *data, size_t n, uint64_t h = 0xcbf29ce484222325ull);

/// The bytes this process may allocate at most: the machine's physical
/// memory, or less where RLIMIT_AS or RLIMIT_DATA (ulimit -v, -d) say so.
uint64_t usableMemoryBytes();

} // namespace ssm::rt

#endif
