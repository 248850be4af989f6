// Several streams prefilled by one call of the model's batched sequence function: the call's buffers.
//
// A model imported with `ssm-import --prefill-batch B` has
// @forward_sequence_batched in each compiled length's module (model.json
// "functions.sequence_batched"): tokens (B * L), stream b's L tokens at
// b * L .., position (B) when a block reads it, each state with a leading
// dim B, and each stream's last position's logits (B, vocab).
// Model::prefillTogether (runtime/BatchedPrefill.cpp) copies the states of
// up to B streams into a PrefillSlot's argument buffers (row b = stream b),
// calls the function once, and copies row b of each new state and of the
// logits back into stream b. Rows no stream fills keep what they held
// (finite values: the init state, or an earlier stream's), with token 0 and
// position 0, and their results are dropped.
//
// A KV cache moves only the rows that matter: into the call the stream's
// rows [0, position) (the kernels never read a row past a query's
// position), out of it the L rows the call wrote. Fixed states (conv
// windows, SSM states) move whole. The function's caches hold the capacity
// it was compiled for; a stream whose position + L passes it (a model
// opened with a larger context) runs that call alone, through its own
// sequence function.
//
// Unlike the batched step's slots (runtime/BatchedStep.h) there is no
// ping-pong between two bindings: a prefill call moves L tokens of work per
// copy of the states, so the copies are a small part of it.
#ifndef SSM_RUNTIME_BATCHEDPREFILL_H
#define SSM_RUNTIME_BATCHEDPREFILL_H

#include "runtime/BatchedStep.h"
#include "runtime/Model.h"

namespace ssm::rt {

struct Model::PrefillSlot {
  const Model::Entry *entry = nullptr;
  HostTensor tokens;   // (B * L) int32
  HostTensor position; // (B) int32, when the function takes it
  /// Per model.json state: the argument buffer (B, ...) (empty when the
  /// function does not take the state) and the index of the result that holds it.
  std::vector<HostTensor> states;
  std::vector<int> stateResult;
  std::vector<HostTensor> results; // the logits (B, vocab) and each new state (B, ...)
  std::unique_ptr<BoundCall> call;
  /// Per model.json state: its layout per stream in the buffers.
  using Layout = StreamStateLayout;
  std::vector<Layout> layout;
};

} // namespace ssm::rt

#endif
