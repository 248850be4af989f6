// Several streams stepped by one call of the model's batched step function: the batch buffers.
//
// A model imported with `ssm-import --batch B` has @forward_step_batched
// (model.json "functions.step_batched"): tokens (B), each state with a
// leading dim B, logits (B, vocab) and the new states so, row i being
// stream i's. Model::stepTogether (runtime/BatchedStep.cpp) copies the
// states of up to B streams into a BatchSlot's buffers (row i = stream i),
// calls the function once, and copies row i of each new state and of the
// logits back into stream i; rows no stream fills hold the model.json init
// values and token 0, and their results are dropped (a lone stream left
// over takes its own step instead, when the model has one).
//
// A slot binds the function twice, each call's new states being the other
// call's inputs, and the calls alternate: after a call, its results still
// hold the states just copied back, so when the next call has the same
// stream in the same row and the stream's states have not changed since
// (Stream::stateVersion_), that row is not copied in again. Decode loops
// that step the same streams in the same order copy each state once per
// token (out), not twice. Slots are pooled per model, one per concurrent
// stepTogether.
//
// KV caches are not ping-ponged: where the function returns a cache in the
// rows form (manifest "append" with "rows": ssm.attention of several
// streams), both calls read one buffer of the caches and write each
// stream's new row into it in place (BoundCall::carryState), and only that
// row is copied out to the stream, so a step moves O(B) rows per cache, not
// the B whole caches (LFM2-350M shapes, context 1,280, 8 streams: 252 MB
// per call before). A stream's caches are copied in whole only when it
// takes a row that does not hold them (cacheRows).
//
// The function's caches hold the capacity it was compiled for (the
// import's --context). A model opened with another one (Model::open's
// context) copies each stream's rows up to the smaller of the two in and
// out; a stream at a position past the function's capacity (a larger
// context) takes its own step, whose kernels run over any capacity.
#ifndef SSM_RUNTIME_BATCHEDSTEP_H
#define SSM_RUNTIME_BATCHEDSTEP_H

#include "runtime/Model.h"

namespace ssm::rt {

/// One model.json state's values per stream in a batched call's buffers
/// (BatchSlot, PrefillSlot): `numel` per stream; for a cache, the positions
/// the function holds it at (`capacity`, which may differ from the stream's:
/// Model::open's context) around its axis (`outer` blocks of rows of `inner`
/// values); capacity 0 for the others.
struct StreamStateLayout {
  int64_t numel = 0, capacity = 0, outer = 1, inner = 1;
};

/// The layout of state `ss` in a buffer of `batch` streams of `argNumel`
/// values in all, held at `capacity` positions (0: not a cache).
StreamStateLayout streamStateLayout(const StateSpec &ss, int64_t argNumel, int64_t batch,
                                    int64_t capacity);

struct Model::BatchSlot {
  const Model::Entry *entry = nullptr;
  HostTensor tokens; // (B) int32, both calls'
  HostTensor position; // (B) int32: each row's stream position (when the function takes it)
  /// results[p]: what call[p] returns (the logits and each state, (B, ...));
  /// its states are call[1 - p]'s state arguments.
  std::vector<HostTensor> results[2];
  std::unique_ptr<BoundCall> call[2];
  int next = 0; // the call to run next; its inputs are results[1 - next]'s states
  /// Per model.json state: the result index that holds it.
  std::vector<int> stateResult;
  /// What row j of results[p]'s states holds: `stream`'s states at `version`,
  /// the init values (`init`), or neither (stream null, init false).
  struct Row {
    const Stream *stream = nullptr;
    uint64_t version = 0;
    bool init = false;
  };
  std::vector<Row> rows[2];
  /// Per model.json state: a KV cache written in place (above); its
  /// buffer, shared by both calls, is caches[s] (empty for the others),
  /// and results[p] do not hold it. `cacheCarried[s]` is false where the
  /// module refused to write it in place: the call's result is then the
  /// whole cache, copied into caches[s] after the call.
  std::vector<bool> inPlace, cacheCarried;
  std::vector<HostTensor> caches;
  std::vector<Row> cacheRows; // what row j of the caches holds
  /// Per model.json state: its layout per stream in the batch buffers
  /// (StreamStateLayout).
  using Layout = StreamStateLayout;
  std::vector<Layout> layout;
};

} // namespace ssm::rt

#endif
