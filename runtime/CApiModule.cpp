// The C API's kernel modules (ssm_runtime.h, "Kernel modules"): an ssm-compile
// output folder's public functions called on caller-owned DLPack tensors,
// read and written in place (HostTensor::external), for PyTorch ops
// (runtime/python/ssm_torch.py) and other runtimes.
#include "runtime/CApiSupport.h"
#include "runtime/Module.h"
#include "runtime/Shape.h"

#include <dlpack/dlpack.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

struct ssm_module {
  std::unique_ptr<ssm::rt::CompiledModule> impl;
  std::vector<const ssm::rt::FunctionInfo *> callable; // public functions, manifest order
};

using ssm::rt::capi::fail;
using ssm::rt::capi::guarded;

namespace {

/// The DLPack dtype of a manifest dtype.
DLDataType dlType(const std::string &dtype) {
  if (dtype == "int32")
    return {kDLInt, 32, 1};
  if (dtype == "float16")
    return {kDLFloat, 16, 1};
  if (dtype == "bfloat16")
    return {kDLBfloat, 16, 1};
  if (dtype == "int8")
    return {kDLInt, 8, 1};
  return {kDLFloat, 32, 1};
}

std::string dlTypeName(DLDataType t) {
  std::string base = t.code == kDLInt     ? "int"
                     : t.code == kDLUInt  ? "uint"
                     : t.code == kDLFloat ? "float"
                     : t.code == kDLBfloat ? "bfloat"
                                          : "type" + std::to_string(t.code) + "_";
  std::string s = base + std::to_string(t.bits);
  return t.lanes == 1 ? s : s + "x" + std::to_string(t.lanes);
}

/// Checks `m` against `info` and makes the HostTensor that points at its
/// data; an empty string when it fits, else what is wrong.
std::string adopt(const DLManagedTensor *m, const ssm::rt::TensorInfo &info,
                  ssm::rt::HostTensor &out) {
  if (!m)
    return "is NULL";
  const DLTensor &t = m->dl_tensor;
  if (t.device.device_type != kDLCPU)
    return "is not on the CPU (kDLCPU)";
  DLDataType want = dlType(info.dtype);
  if (t.dtype.code != want.code || t.dtype.bits != want.bits || t.dtype.lanes != want.lanes)
    return "is " + dlTypeName(t.dtype) + " but the function takes " + info.dtype;
  int64_t n = 0;
  if (std::string why = ssm::rt::capi::shapeProblem(t, n); !why.empty())
    return "is " + why;
  std::vector<int64_t> shape;
  if (t.shape)
    shape.assign(t.shape, t.shape + std::max<int32_t>(t.ndim, 0));
  if (t.ndim < 0 || (t.ndim > 0 && !t.shape) || shape != info.shape)
    return "has shape " + ssm::rt::shapeString(shape) + " but the function takes " +
           ssm::rt::shapeString(info.shape);
  if (std::string why = ssm::rt::capi::rowMajorProblem(t, n); !why.empty())
    return "is " + why;
  if (!t.data && n > 0)
    return "has no data";
  auto *data = static_cast<char *>(t.data) + t.byte_offset;
  if (reinterpret_cast<uintptr_t>(data) % (want.bits / 8) != 0)
    return "is not aligned to its element size";
  out.shape = info.shape;
  out.dtype = info.dtype;
  out.external = data;
  return "";
}

std::string tensorName(const ssm::rt::TensorInfo &info, bool result, size_t i) {
  if (!info.state.empty())
    return info.state;
  if (!info.param.empty())
    return info.param;
  return info.name.empty() ? (result ? "result" : "arg") + std::to_string(i) : info.name;
}

} // namespace

extern "C" {

ssm_status_t ssm_module_open(const char *dir, ssm_module_t **out) {
  SSM_REQUIRE(out, "out is NULL");
  *out = nullptr;
  SSM_REQUIRE(dir, "dir is NULL");
  return guarded([&] {
    std::error_code ec;
    std::filesystem::path manifest = std::filesystem::path(dir) / "manifest.json";
    if (!std::filesystem::exists(manifest, ec))
      return fail(SSM_ERROR_NOT_FOUND, manifest.string() + ": no such file (is '" +
                                           std::string(dir) + "' an ssm-compile output folder?)");
    std::string error;
    auto m = ssm::rt::CompiledModule::load(dir, error);
    if (!m)
      return fail(SSM_ERROR_INVALID_FILE, error);
    auto *h = new ssm_module{std::move(m), {}};
    for (const ssm::rt::FunctionInfo &f : h->impl->functions())
      if (!f.internal)
        h->callable.push_back(&f);
    *out = h;
    return SSM_OK;
  });
}

void ssm_module_free(ssm_module_t *module) { delete module; }

ssm_status_t ssm_module_set_threads(ssm_module_t *module, int threads) {
  SSM_REQUIRE(module, "module is NULL");
  SSM_REQUIRE(threads >= 0, "threads is negative");
  module->impl->setThreads(threads);
  return SSM_OK;
}

const char *ssm_module_target(const ssm_module_t *module) {
  return module ? module->impl->target().c_str() : "";
}

size_t ssm_module_function_count(const ssm_module_t *module) {
  return module ? module->callable.size() : 0;
}

ssm_status_t ssm_module_function_info(const ssm_module_t *module, size_t index, const char **name,
                                      size_t *num_arguments, size_t *num_results) {
  SSM_REQUIRE(module, "module is NULL");
  SSM_REQUIRE(index < module->callable.size(),
              "index " + std::to_string(index) + " out of range (the module has " +
                  std::to_string(module->callable.size()) + " functions)");
  const ssm::rt::FunctionInfo &f = *module->callable[index];
  if (name)
    *name = f.name.c_str();
  if (num_arguments)
    *num_arguments = f.arguments.size();
  if (num_results)
    *num_results = f.results.size();
  return SSM_OK;
}

ssm_status_t ssm_module_tensor_info(const ssm_module_t *module, size_t function_index,
                                    int is_result, size_t index, const char **name,
                                    const char **dtype, const int64_t **shape, size_t *rank) {
  SSM_REQUIRE(module, "module is NULL");
  SSM_REQUIRE(function_index < module->callable.size(),
              "function index " + std::to_string(function_index) + " out of range");
  const ssm::rt::FunctionInfo &f = *module->callable[function_index];
  const auto &list = is_result ? f.results : f.arguments;
  SSM_REQUIRE(index < list.size(), "@" + f.name + " has " + std::to_string(list.size()) +
                                       (is_result ? " results" : " arguments") + ", not " +
                                       std::to_string(index + 1));
  const ssm::rt::TensorInfo &t = list[index];
  if (name)
    *name = !t.state.empty() ? t.state.c_str() : !t.param.empty() ? t.param.c_str() : t.name.c_str();
  if (dtype)
    *dtype = t.dtype.c_str();
  if (shape)
    *shape = t.shape.data();
  if (rank)
    *rank = t.shape.size();
  return SSM_OK;
}

ssm_status_t ssm_module_call_dlpack(ssm_module_t *module, const char *function,
                                    const DLManagedTensor *const *arguments, size_t num_arguments,
                                    const DLManagedTensor *const *results, size_t num_results) {
  SSM_REQUIRE(module && function, "module or function is NULL");
  const ssm::rt::FunctionInfo *fn = nullptr;
  for (const ssm::rt::FunctionInfo *f : module->callable)
    if (f->name == function)
      fn = f;
  if (!fn) {
    std::string names;
    for (const ssm::rt::FunctionInfo *f : module->callable)
      names += (names.empty() ? "@" : ", @") + f->name;
    return fail(SSM_ERROR_INVALID_ARGUMENT, std::string("ssm_module_call_dlpack: the module has no "
                                                        "function '") +
                                                function + "' (it has " + names + ")");
  }
  SSM_REQUIRE(num_arguments == fn->arguments.size() && (arguments || num_arguments == 0),
              "@" + fn->name + " takes " + std::to_string(fn->arguments.size()) +
                  " arguments, got " + std::to_string(num_arguments));
  SSM_REQUIRE(num_results == fn->results.size() && (results || num_results == 0),
              "@" + fn->name + " returns " + std::to_string(fn->results.size()) +
                  " results, got " + std::to_string(num_results));
  return guarded([&] {
    std::vector<ssm::rt::HostTensor> ins(num_arguments), outs(num_results);
    std::vector<const ssm::rt::HostTensor *> inPtrs;
    for (size_t i = 0; i < num_arguments; ++i) {
      std::string why = adopt(arguments[i], fn->arguments[i], ins[i]);
      if (!why.empty())
        return fail(SSM_ERROR_INVALID_ARGUMENT, "@" + fn->name + ": argument '" +
                                                    tensorName(fn->arguments[i], false, i) +
                                                    "' " + why);
      inPtrs.push_back(&ins[i]);
    }
    for (size_t i = 0; i < num_results; ++i) {
      std::string why = adopt(results[i], fn->results[i], outs[i]);
      if (!why.empty())
        return fail(SSM_ERROR_INVALID_ARGUMENT, "@" + fn->name + ": result '" +
                                                    tensorName(fn->results[i], true, i) + "' " +
                                                    why);
    }
    std::string error;
    auto call = module->impl->bind(*fn, inPtrs, outs, error);
    if (!call)
      return fail(SSM_ERROR_INVALID_ARGUMENT, error);
    if (!call->invoke(error))
      return fail(SSM_ERROR_KERNEL_FAILED, error);
    return SSM_OK;
  });
}

} // extern "C"
