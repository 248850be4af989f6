// Streaming sessions: state buffers carried between calls by ssm.state name.
#include "runtime/Session.h"

#include <algorithm>

namespace ssm::rt {

namespace {
int64_t numel(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}
} // namespace

bool Session::call(const std::string &fnName, const std::vector<const HostTensor *> &inputs,
                   std::vector<HostTensor> &outputs, std::string &error) {
  const FunctionInfo *fn = module.find(fnName);
  if (!fn) {
    error = "the module has no function @" + fnName;
    return false;
  }
  auto stateFor = [&](const TensorInfo &t) -> HostTensor * {
    HostTensor &s = states[t.state];
    if (s.shape.empty() && s.data.empty()) {
      s.shape = t.shape;
      s.data.assign(numel(t.shape), 0.0f);
    }
    if (s.shape != t.shape) {
      error = "state '" + t.state + "' of @" + fnName + " has a shape that differs from the "
              "session's (functions disagree on it)";
      return nullptr;
    }
    return &s;
  };
  std::vector<const HostTensor *> args;
  size_t next = 0;
  for (const TensorInfo &a : fn->arguments) {
    if (!a.state.empty()) {
      HostTensor *s = stateFor(a);
      if (!s)
        return false;
      args.push_back(s);
    } else {
      if (next >= inputs.size()) {
        error = "@" + fnName + " needs more inputs than the " + std::to_string(inputs.size()) +
                " given";
        return false;
      }
      args.push_back(inputs[next++]);
    }
  }
  if (next != inputs.size()) {
    error = "@" + fnName + " takes " + std::to_string(next) + " non-state inputs, got " +
            std::to_string(inputs.size());
    return false;
  }
  std::vector<HostTensor> results;
  auto bound = module.bind(*fn, args, results, error);
  if (!bound || !bound->invoke(error))
    return false;
  outputs.clear();
  for (size_t i = 0; i < fn->results.size(); ++i) {
    const TensorInfo &r = fn->results[i];
    if (r.state.empty()) {
      outputs.push_back(std::move(results[i]));
      continue;
    }
    HostTensor *s = stateFor(r);
    if (!s)
      return false;
    *s = std::move(results[i]);
  }
  return true;
}

void Session::reset() {
  for (auto &[name, t] : states)
    std::fill(t.data.begin(), t.data.end(), 0.0f);
}

const HostTensor *Session::state(const std::string &name) const {
  auto it = states.find(name);
  return it == states.end() ? nullptr : &it->second;
}

} // namespace ssm::rt
