// Streaming sessions: state that persists across calls of a compiled module's functions.
//
// A function marks its state with `ssm.state = "<name>"` on an argument (the
// state it reads) and on a result (the state it leaves). A session owns one
// buffer per state name, zero at the start; each call reads the state
// arguments from it and writes the state results back. So a model compiled
// with a prefill function (the scan form) and a decode function (the state
// update form) streams: prefill the prompt, then decode token by token, with
// memory that does not grow with position.
#ifndef SSM_RUNTIME_SESSION_H
#define SSM_RUNTIME_SESSION_H

#include "runtime/Module.h"

#include <map>
#include <string>
#include <vector>

namespace ssm::rt {

class Session {
public:
  explicit Session(CompiledModule &module) : module(module) {}

  /// Runs @fn: `inputs` are its non-state arguments in order; `outputs`
  /// receives its non-state results in order. State arguments come from the
  /// session; state results go back to it. Errors: unknown function, wrong
  /// input count or shape, a state whose shape differs between functions.
  bool call(const std::string &fn, const std::vector<const HostTensor *> &inputs,
            std::vector<HostTensor> &outputs, std::string &error);

  /// Zeroes every state (a new sequence).
  void reset();
  /// The current value of state `name`, or null.
  const HostTensor *state(const std::string &name) const;

private:
  CompiledModule &module;
  std::map<std::string, HostTensor> states;
};

} // namespace ssm::rt

#endif
