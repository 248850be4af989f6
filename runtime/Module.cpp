// Loading compiled modules (dlopen + manifest) and calling their kernels.
#include "runtime/Module.h"

#include "HalideBuffer.h"

#include <nlohmann/json.hpp>

#include <dlfcn.h>

#include <fstream>

namespace ssm::rt {

using ArgvFn = int (*)(void **);

struct BoundCall::Impl {
  ArgvFn fn = nullptr;
  std::string name;
  std::vector<Halide::Runtime::Buffer<float>> buffers;
  std::vector<void *> argv;
};

BoundCall::~BoundCall() = default;

bool BoundCall::invoke(std::string &error) {
  int rc = impl->fn(impl->argv.data());
  if (rc != 0) {
    error = "kernel " + impl->name + " failed with Halide error " + std::to_string(rc);
    return false;
  }
  return true;
}

CompiledModule::~CompiledModule() {
  if (handle)
    dlclose(handle);
}

namespace {
bool readTensors(const nlohmann::json &j, const char *key, std::vector<TensorInfo> &out,
                 std::string &error, const std::string &where) {
  if (!j.contains(key) || !j[key].is_array()) {
    error = where + ": function without \"" + key + "\" list";
    return false;
  }
  for (const auto &t : j[key]) {
    if (!t.is_object() || !t.contains("name") || !t["name"].is_string() || !t.contains("shape") ||
        !t["shape"].is_array()) {
      error = where + ": malformed entry in \"" + key + "\"";
      return false;
    }
    TensorInfo info;
    info.name = t["name"].get<std::string>();
    if (t.contains("param") && t["param"].is_string())
      info.param = t["param"].get<std::string>();
    for (const auto &d : t["shape"]) {
      if (!d.is_number_integer() || d.get<int64_t>() < 0) {
        error = where + ": bad shape of '" + info.name + "'";
        return false;
      }
      info.shape.push_back(d.get<int64_t>());
    }
    info.dtype = t.value("dtype", "float32");
    if (info.dtype != "float32") {
      error = where + ": '" + info.name + "' has dtype " + info.dtype + "; only float32 is supported";
      return false;
    }
    out.push_back(std::move(info));
  }
  return true;
}
} // namespace

std::unique_ptr<CompiledModule> CompiledModule::load(const std::string &dir, std::string &error) {
  std::string manifestPath = dir + "/manifest.json";
  std::ifstream in(manifestPath);
  if (!in) {
    error = manifestPath + ": cannot open (is '" + dir + "' an ssm-compile output?)";
    return nullptr;
  }
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || j.value("format", "") != "ssm-opt-module") {
    error = manifestPath + ": not an ssm-opt module manifest";
    return nullptr;
  }
  std::unique_ptr<CompiledModule> m(new CompiledModule());
  m->dir = dir;
  m->targetString = j.value("target", "");
  if (!j.contains("functions") || !j["functions"].is_array() ||
      !j.contains("shared_library") || !j["shared_library"].is_string()) {
    error = manifestPath + ": missing \"functions\" or \"shared_library\"";
    return nullptr;
  }
  for (const auto &f : j["functions"]) {
    FunctionInfo info;
    if (!f.is_object() || !f.contains("name") || !f.contains("symbol") ||
        !f["name"].is_string() || !f["symbol"].is_string()) {
      error = manifestPath + ": malformed function entry";
      return nullptr;
    }
    info.name = f["name"].get<std::string>();
    info.symbol = f["symbol"].get<std::string>();
    if (!readTensors(f, "arguments", info.arguments, error, manifestPath) ||
        !readTensors(f, "results", info.results, error, manifestPath))
      return nullptr;
    m->fns.push_back(std::move(info));
  }
  std::string lib = dir + "/" + j["shared_library"].get<std::string>();
  m->handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!m->handle) {
    const char *why = dlerror();
    error = lib + ": cannot load (" + (why ? why : "unknown error") + ")";
    return nullptr;
  }
  for (const FunctionInfo &f : m->fns) {
    void *sym = dlsym(m->handle, (f.symbol + "_argv").c_str());
    if (!sym) {
      error = lib + ": no symbol " + f.symbol + "_argv";
      return nullptr;
    }
    m->entries.push_back(sym);
  }
  return m;
}

const FunctionInfo *CompiledModule::find(const std::string &name) const {
  for (const FunctionInfo &f : fns)
    if (f.name == name)
      return &f;
  return nullptr;
}

void CompiledModule::setThreads(int n) {
  using SetFn = int (*)(int);
  if (auto set = reinterpret_cast<SetFn>(dlsym(handle, "halide_set_num_threads")))
    set(n);
}

namespace {
std::string shapeString(const std::vector<int64_t> &s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i)
    out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

/// A Halide buffer over a row-major host tensor (Halide's dim 0 = last dim).
Halide::Runtime::Buffer<float> wrap(const HostTensor &t) {
  std::vector<int> extents(t.shape.rbegin(), t.shape.rend());
  return Halide::Runtime::Buffer<float>(const_cast<float *>(t.data.data()), extents);
}
} // namespace

std::unique_ptr<BoundCall> CompiledModule::bind(const FunctionInfo &fn,
                                                const std::vector<const HostTensor *> &inputs,
                                                std::vector<HostTensor> &outputs,
                                                std::string &error) {
  if (inputs.size() != fn.arguments.size()) {
    error = "@" + fn.name + " takes " + std::to_string(fn.arguments.size()) + " arguments, got " +
            std::to_string(inputs.size());
    return nullptr;
  }
  auto call = std::unique_ptr<BoundCall>(new BoundCall());
  call->impl = std::make_unique<BoundCall::Impl>();
  call->impl->fn = reinterpret_cast<ArgvFn>(entries[&fn - fns.data()]);
  call->impl->name = fn.symbol;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i]->shape != fn.arguments[i].shape) {
      error = "argument '" + fn.arguments[i].name + "' of @" + fn.name + " has shape " +
              shapeString(inputs[i]->shape) + " but the compiled function expects " +
              shapeString(fn.arguments[i].shape);
      return nullptr;
    }
    call->impl->buffers.push_back(wrap(*inputs[i]));
  }
  outputs.resize(fn.results.size());
  for (size_t i = 0; i < fn.results.size(); ++i) {
    outputs[i].shape = fn.results[i].shape;
    int64_t n = 1;
    for (int64_t d : outputs[i].shape)
      n *= d;
    outputs[i].data.assign(n, 0.0f);
    call->impl->buffers.push_back(wrap(outputs[i]));
  }
  for (auto &b : call->impl->buffers)
    call->impl->argv.push_back(b.raw_buffer());
  return call;
}

} // namespace ssm::rt
