// ssm_distributed_prefill (ssm_distributed.h) over runtime/distributed/Prefill.h.
#include "runtime/distributed/ssm_distributed.h"

#include "runtime/ModelSpec.h"
#include "runtime/StateFile.h"
#include "runtime/distributed/Prefill.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <string>

using namespace ssm;

namespace {

int report(rt::Code code, const std::string &message, char *error, size_t size) {
  if (error && size > 0) {
    size_t n = std::min(size - 1, message.size());
    std::memcpy(error, message.data(), n);
    error[n] = '\0';
  }
  return static_cast<int>(code);
}

} // namespace

extern "C" int ssm_distributed_prefill(void *comm, const char *model_dir, const char *module_dir,
                                       const int32_t *tokens, size_t n, int64_t halo_rows,
                                       int threads, float *logits, size_t vocab,
                                       const char *state_out, char *error, size_t error_size) {
  if (!comm || !model_dir || !module_dir || (!tokens && n > 0))
    return report(rt::Code::InvalidArgument,
                  "ssm_distributed_prefill: comm, model_dir, module_dir and tokens must not be NULL",
                  error, error_size);
  MPI_Comm c = *static_cast<MPI_Comm *>(comm);
  // Local failures are still collective: prefill() agrees on them, so every
  // rank goes through it (a rank that fails to load passes n = 0 after
  // saying why, which fails that agreement on every rank).
  rt::ModelSpec spec;
  rt::Status local = rt::ModelSpec::load(model_dir, spec);
  std::map<std::string, float> stateInit;
  for (const rt::StateSpec &s : spec.states)
    stateInit[s.name] = s.init;
  std::unique_ptr<rt::WeightFile> weights;
  if (local.isOk())
    weights = rt::WeightFile::open(std::string(model_dir) + "/weights.safetensors", local);
  std::unique_ptr<rt::CompiledModule> module;
  if (local.isOk()) {
    std::string err;
    module = rt::CompiledModule::load(module_dir, err);
    if (!module)
      local = {rt::Code::NotFound, err};
    else
      module->setThreads(threads);
  }
  dist::PrefillResult result;
  rt::Status st = local;
  if (local.isOk())
    st = dist::prefill(c, *module, *weights, tokens, static_cast<int64_t>(n), halo_rows, result,
                       stateInit);
  else
    dist::agreeFailure(c); // the others learn that this rank failed
  if (!st)
    return report(st.code(), st.message(), error, error_size);
  int rank = 0, size = 1;
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  if (rank != size - 1)
    return 0;
  if (logits) {
    if (vocab != result.logits.size())
      return report(rt::Code::InvalidArgument,
                    "ssm_distributed_prefill: vocab is " + std::to_string(vocab) +
                        " but the model has " + std::to_string(result.logits.size()) + " logits",
                    error, error_size);
    std::copy(result.logits.begin(), result.logits.end(), logits);
  }
  if (state_out) {
    rt::SavedState saved;
    saved.fingerprint = spec.fingerprint;
    saved.position = result.totalTokens;
    saved.logits = result.logits;
    for (const rt::StateSpec &s : spec.states) {
      auto it = std::find_if(result.states.begin(), result.states.end(),
                             [&](const auto &p) { return p.first == s.name; });
      if (it == result.states.end())
        return report(rt::Code::Mismatch, "no layer of the module returned state '" + s.name + "'",
                      error, error_size);
      saved.states.push_back({s.name, s.shape, it->second});
    }
    if (rt::Status w = rt::writeStateFile(state_out, saved); !w)
      return report(w.code(), w.message(), error, error_size);
  }
  return 0;
}
