// AOT emission: objects, runtime, static and shared libraries, header, manifest.
#include "codegen/Compile.h"

#include "codegen/RuntimeCache.h"
#include "codegen/Segments.h"
#include "codegen/Translate.h"
#include "codegen/kernels/Widen.h"
#include "runtime/CpuFeatures.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <set>

using namespace mlir;

namespace ssm::codegen {
namespace {

std::string join(const std::string &dir, const std::string &file) {
  llvm::SmallString<256> p(dir);
  llvm::sys::path::append(p, file);
  return std::string(p);
}

/// The host's target as Halide 14 detects it, less what the CPU cannot run.
/// Halide 14 reads AVX-VNNI plus AVX512-BF16 as Sapphire Rapids, and for
/// avx512_sapphirerapids LLVM is allowed AVX512-FP16: every f16 load widens
/// with vcvtph2psx. AMD Zen 5 (EPYC 9005) has the first two and not FP16, so
/// kernels reading f16 weights died with SIGILL there. Without the feature
/// the kernels keep AVX-512 (Cannon Lake: VBMI, IFMA) and widen with F16C.
/// An explicitly named avx512_sapphirerapids (a cross compile) is kept.
Halide::Target withoutUnrunnableHostFeatures(Halide::Target t, const std::string &spelled) {
  if (t.has_feature(Halide::Target::AVX512_SapphireRapids) &&
      !rt::cpuRunsFeature("avx512_sapphirerapids") &&
      spelled.find("avx512_sapphirerapids") == std::string::npos)
    t = t.without_feature(Halide::Target::AVX512_SapphireRapids);
  return t;
}

Halide::Target toHalideTarget(const std::string &s) {
  // Halide resolves "host" and "host-<features>" itself.
  Halide::Target t(s);
  if (s == "host" || llvm::StringRef(s).starts_with("host-"))
    t = withoutUnrunnableHostFeatures(t, s);
  // ssm.lti_kernel computes its modes in f64 (codegen/kernels/LtiKernel.cpp):
  // OpenCL kernels may use doubles (cl_khr_fp64; PoCL and the GPU vendors'
  // drivers have it).
  if (t.has_feature(Halide::Target::OpenCL))
    t = t.with_feature(Halide::Target::CLDoubles);
  return t;
}

/// Links objects into a shared library with the system C++ driver.
bool linkShared(const std::vector<std::string> &objects, const std::string &out,
                std::string &error) {
  llvm::ErrorOr<std::string> cxx = llvm::sys::findProgramByName("c++");
  if (!cxx)
    cxx = llvm::sys::findProgramByName("g++");
  if (!cxx) {
    error = "no C++ compiler driver (c++ or g++) on PATH to link " + out;
    return false;
  }
  std::vector<std::string> argStrings = {*cxx, "-shared", "-o", out};
  argStrings.insert(argStrings.end(), objects.begin(), objects.end());
  for (const char *lib : {"-lpthread", "-ldl", "-lm"})
    argStrings.push_back(lib);
  std::vector<llvm::StringRef> args(argStrings.begin(), argStrings.end());
  std::string msg;
  int rc = llvm::sys::ExecuteAndWait(*cxx, args, std::nullopt, {}, 0, 0, &msg);
  if (rc != 0) {
    error = "linking " + out + " failed (" + (msg.empty() ? "exit " + std::to_string(rc) : msg) + ")";
    return false;
  }
  return true;
}

nlohmann::ordered_json tensorJson(const TensorSignature &t) {
  nlohmann::ordered_json j;
  j["name"] = t.name;
  if (!t.param.empty())
    j["param"] = t.param;
  if (!t.state.empty())
    j["state"] = t.state;
  j["shape"] = t.shape;
  j["dtype"] = t.dtype;
  return j;
}

/// True when a shared library for `t` can be linked and loaded here: the
/// host's architecture, bit width and OS.
bool linksOnHost(const Halide::Target &t) {
  Halide::Target host = Halide::get_host_target();
  return t.arch == host.arch && t.bits == host.bits && t.os == host.os;
}

/// Loads the autoscheduler plugin `name` (lower case) once and returns the
/// name Halide registers it under.
std::string loadAutoscheduler(const std::string &name, std::string &error) {
  static const std::pair<const char *, const char *> known[] = {
      {"adams2019", "Adams2019"}, {"li2018", "Li2018"}, {"mullapudi2016", "Mullapudi2016"}};
  for (auto [key, registered] : known) {
    if (name != key)
      continue;
    static std::set<std::string> loaded;
    if (!loaded.count(key)) {
      std::string lib = std::string("libautoschedule_") + key + ".so";
      // Debian's libhalide14-0-dev installs the plugins here.
      std::string path = "/usr/lib/x86_64-linux-gnu/halide14/" + lib;
      if (!llvm::sys::fs::exists(path))
        path = lib; // the dynamic loader's search path
      try {
        Halide::load_plugin(path);
      } catch (const Halide::Error &e) {
        error = "cannot load the " + name + " autoscheduler (" + path + "): " + e.what();
        return "";
      }
      loaded.insert(key);
    }
    return registered;
  }
  error = "unknown autoscheduler '" + name + "' (expected " + kAutoschedulers + ")";
  return "";
}

} // namespace

bool isValidTarget(const std::string &target) {
  if (target == "host")
    return true;
  return Halide::Target::validate_target_string(target);
}

std::string resolveTarget(const std::string &target) {
  return toHalideTarget(target).to_string();
}

LogicalResult compileModule(ModuleOp module, const CompileOptions &options, std::string &error) {
  if (!isValidTarget(options.target)) {
    error = "unknown target '" + options.target + "'";
    return failure();
  }
  Halide::Target target = toHalideTarget(options.target);
  Halide::Target kernelTarget = target.with_feature(Halide::Target::NoRuntime);
  TranslateOptions translate;
  if (!options.autoscheduler.empty()) {
    translate.autoscheduler = loadAutoscheduler(options.autoscheduler, error);
    if (translate.autoscheduler.empty())
      return failure();
  }
  const bool shared = linksOnHost(target);
  std::vector<std::string> objects;
  nlohmann::ordered_json manifest;
  manifest["format"] = "ssm-opt-module";
  manifest["version"] = 1;
  manifest["compiler"] = kCompilerVersion;
  manifest["target"] = target.to_string();
  manifest["requested_target"] = options.target;
  if (shared)
    manifest["shared_library"] = "lib" + options.libName + ".so";
  else
    manifest["shared_library"] = nullptr; // a cross target: link it where it runs
  if (!options.autoscheduler.empty())
    manifest["autoscheduler"] = options.autoscheduler;
  manifest["static_library"] = options.libName + ".a";
  manifest["header"] = options.libName + ".h";
  manifest["symbol_prefix"] = options.symbolPrefix;
  manifest["functions"] = nlohmann::ordered_json::array();
  std::string header = "// Generated by " + std::string(kCompilerVersion) + " for target " +
                       target.to_string() + ".\n#pragma once\n#include \"HalideRuntime.h\"\n";

  // Compile on a copy: segmenting adds outlined functions to the module.
  OwningOpRef<ModuleOp> work(cast<ModuleOp>(module->clone()));
  // Compiles one function into one kernel and returns its manifest entry.
  auto compileKernel = [&](func::FuncOp func,
                           nlohmann::ordered_json &fj) -> LogicalResult {
    FailureOr<TranslatedFunction> tf = translateFunction(func, target, translate);
    if (failed(tf))
      return failure();
    if (options.symbolPrefix != "ssm" && tf->symbol.rfind("ssm_", 0) == 0)
      tf->symbol = options.symbolPrefix + tf->symbol.substr(3);
    std::string obj = join(options.outDir, tf->symbol + ".o");
    std::string hdr = join(options.outDir, tf->symbol + ".h");
    try {
      // One lowering for the object and its header; the module links the
      // helpers its f16 loads call (codegen/kernels/Widen.h).
      Halide::Module m = tf->pipeline.compile_to_module(tf->arguments, tf->symbol, kernelTarget);
      if (std::optional<Halide::ExternalCode> widen = widenExternalCode(kernelTarget))
        m.append(*widen);
      m.compile({{Halide::OutputFileType::object, obj}, {Halide::OutputFileType::c_header, hdr}});
      if (options.emitStmt)
        tf->pipeline.compile_to_lowered_stmt(join(options.outDir, tf->symbol + ".stmt"),
                                             tf->arguments, Halide::StmtOutputFormat::Text,
                                             kernelTarget);
    } catch (const Halide::Error &e) {
      return func.emitError() << "Halide failed to compile @" << tf->name << ": " << e.what();
    }
    objects.push_back(obj);
    header += "#include \"" + tf->symbol + ".h\"\n";
    fj["name"] = tf->name;
    fj["symbol"] = tf->symbol;
    if (func.isPrivate())
      fj["internal"] = true;
    fj["arguments"] = nlohmann::ordered_json::array();
    for (const TensorSignature &t : tf->inputs)
      fj["arguments"].push_back(tensorJson(t));
    fj["results"] = nlohmann::ordered_json::array();
    for (const TensorSignature &t : tf->results)
      fj["results"].push_back(tensorJson(t));
    if (!tf->kernelExtraInputs.empty()) {
      fj["kernel_extra_arguments"] = nlohmann::ordered_json::array();
      for (const TensorSignature &t : tf->kernelExtraInputs)
        fj["kernel_extra_arguments"].push_back(tensorJson(t));
    }
    if (const std::optional<TimeChunking> &c = tf->chunking) {
      nlohmann::ordered_json cj;
      cj["chunk"] = c->chunk;
      cj["length"] = c->length;
      cj["argument_time_axes"] = c->argTimeAxis;
      cj["result_time_axes"] = c->resultTimeAxis;
      cj["state_argument"] = c->stateArg;
      cj["state_result"] = c->stateResult;
      fj["time_chunking"] = cj;
    }
    return success();
  };

  std::vector<func::FuncOp> publicFuncs;
  for (auto func : work->getOps<func::FuncOp>())
    if (!func.isExternal() && !func.isPrivate())
      publicFuncs.push_back(func);
  std::vector<std::string> internal; // callees and segments, each compiled once
  std::set<std::string> queued;
  // Kernels are compiled after every function is planned, so that the
  // number of stages is known for options.progress; a public kernel's
  // manifest entry keeps its place.
  std::vector<std::pair<func::FuncOp, size_t>> publicKernels; // (function, manifest index)
  for (func::FuncOp func : publicFuncs) {
    nlohmann::ordered_json fj;
    if (!hasCalls(func)) {
      publicKernels.push_back({func, manifest["functions"].size()});
      manifest["functions"].push_back(nullptr);
      continue;
    }
    // A function with calls: a sequence of kernel calls (codegen/Segments.h).
    FailureOr<SegmentPlan> plan = planSegments(func, *work);
    if (failed(plan))
      return failure();
    fj["name"] = func.getSymName().str();
    FunctionType ft = func.getFunctionType();
    for (Type t : ft.getInputs())
      if (auto rt = dyn_cast<RankedTensorType>(t);
          !rt || !rt.hasStaticShape() ||
          !(rt.getElementType().isF32() || rt.getElementType().isInteger(32) ||
            rt.getElementType().isF16() || rt.getElementType().isBF16() ||
            rt.getElementType().isInteger(8)))
        return func.emitError() << "arguments must be statically shaped f32, f16, bf16, i8 or "
                                   "i32 tensors for compiled engines, got "
                                << t;
    for (Type t : ft.getResults())
      if (auto rt = dyn_cast<RankedTensorType>(t);
          !rt || !rt.hasStaticShape() || !rt.getElementType().isF32())
        return func.emitError() << "results must be statically shaped f32 tensors for compiled "
                                   "engines, got "
                                << t;
    fj["arguments"] = nlohmann::ordered_json::array();
    for (unsigned i = 0; i < ft.getNumInputs(); ++i)
      fj["arguments"].push_back(tensorJson(tensorSignature(
          cast<RankedTensorType>(ft.getInput(i)), func.getArgAttrDict(i), "arg" + std::to_string(i))));
    fj["results"] = nlohmann::ordered_json::array();
    for (unsigned i = 0; i < ft.getNumResults(); ++i)
      fj["results"].push_back(tensorJson(tensorSignature(cast<RankedTensorType>(ft.getResult(i)),
                                                         func.getResultAttrDict(i),
                                                         "result" + std::to_string(i))));
    nlohmann::ordered_json steps = nlohmann::ordered_json::array();
    for (const SegmentStep &s : plan->steps) {
      steps.push_back({{"function", s.callee}, {"inputs", s.inputs}, {"outputs", s.outputs}});
      // A public callee is compiled as a function of its own already.
      bool isPublic = llvm::any_of(publicFuncs, [&](func::FuncOp f) {
        return f.getSymName() == s.callee;
      });
      if (!isPublic && queued.insert(s.callee).second)
        internal.push_back(s.callee);
    }
    fj["steps"] = steps;
    fj["step_values"] = plan->numValues;
    fj["result_values"] = plan->results;
    manifest["functions"].push_back(fj);
  }
  SymbolTable symbols(*work);
  const int stages = static_cast<int>(publicKernels.size() + internal.size()) + (shared ? 2 : 1);
  int stage = 0;
  auto report = [&](const std::string &what) {
    if (options.progress)
      options.progress(++stage, stages, what);
  };
  for (auto &[func, index] : publicKernels) {
    report("kernel @" + func.getSymName().str());
    if (failed(compileKernel(func, manifest["functions"][index])))
      return failure();
  }
  for (const std::string &name : internal) {
    nlohmann::ordered_json fj;
    report("kernel @" + name);
    if (failed(compileKernel(symbols.lookup<func::FuncOp>(name), fj)))
      return failure();
    manifest["functions"].push_back(fj);
  }
  if (objects.empty()) {
    error = "the module has no public function to compile";
    return failure();
  }
  std::string runtimeObj = join(options.outDir, "halide_runtime.o");
  report("runtime and static library");
  try {
    writeHalideRuntime(target, runtimeObj); // once per target (codegen/RuntimeCache.h)
    std::vector<std::string> all = objects;
    all.push_back(runtimeObj);
    Halide::create_static_library(all, target, join(options.outDir, options.libName + ".a"));
  } catch (const Halide::Error &e) {
    error = std::string("Halide failed to build the runtime or library: ") + e.what();
    return failure();
  }
  // <lib>.h includes Halide's runtime header: ship it (and the C++ buffer
  // type) so that the folder is all an embedder needs.
  for (const char *h : {"HalideRuntime.h", "HalideBuffer.h"}) {
    std::string from = std::string(SSM_HALIDE_INCLUDE_DIR) + "/" + h;
    if (std::error_code ec = llvm::sys::fs::copy_file(from, join(options.outDir, h))) {
      error = "cannot copy Halide's " + from + " into the output: " + ec.message();
      return failure();
    }
  }
  if (shared) {
    report("shared library");
    std::vector<std::string> all = objects;
    all.push_back(runtimeObj);
    if (!linkShared(all, join(options.outDir, "lib" + options.libName + ".so"), error))
      return failure();
    // The runtime checks the library's size before dlopen (a truncated
    // library would fault while being mapped).
    uint64_t libBytes = 0;
    if (llvm::sys::fs::file_size(join(options.outDir, "lib" + options.libName + ".so"), libBytes)) {
      error = "cannot read the size of the library just linked";
      return failure();
    }
    manifest["shared_library_bytes"] = libBytes;
  }
  {
    std::ofstream h(join(options.outDir, options.libName + ".h"));
    h << header;
    std::ofstream m(join(options.outDir, "manifest.json"));
    m << manifest.dump(2) << "\n";
    if (!h || !m) {
      error = "cannot write the header or manifest in " + options.outDir;
      return failure();
    }
  }
  return success();
}

} // namespace ssm::codegen
