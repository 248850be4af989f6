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
// over takes its own step instead, when the model has one). A slot's call is bound
// once; slots are pooled per model, one per concurrent stepTogether.
#ifndef SSM_RUNTIME_BATCHEDSTEP_H
#define SSM_RUNTIME_BATCHEDSTEP_H

#include "runtime/Model.h"

namespace ssm::rt {

struct Model::BatchSlot {
  const Model::Entry *entry = nullptr;
  HostTensor tokens;              // (B) int32
  std::vector<HostTensor> states; // per model.json state: (B, ...) when the function takes it
  std::vector<HostTensor> results;
  std::unique_ptr<BoundCall> call;
  /// Per row: its states hold the init values (a padding row); rows a
  /// stream filled are reset before they pad again.
  std::vector<bool> rowAtInit;
};

} // namespace ssm::rt

#endif
