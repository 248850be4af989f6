// AOT emission: objects, runtime, static and shared libraries, header, manifest.
#include "codegen/Compile.h"

#include "codegen/RuntimeCache.h"
#include "codegen/Segments.h"
#include "codegen/Translate.h"
#include "codegen/kernels/Widen.h"
#include "runtime/CpuFeatures.h"
#include "runtime/Checksum.h"
#include "runtime/Manifest.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"


#include <fstream>
#include <optional>
#include <set>

using namespace mlir;

namespace ssm::codegen {
namespace {

// ErrorHandler.ll assembled by LLVM 14's llvm-as once per data layout
// (codegen/CMakeLists.txt).
const unsigned char kErrorHandlerX86_64Elf[] = {
#include "ErrorHandler-x86_64_elf.bc.inc"
};
const unsigned char kErrorHandlerX86_64MachO[] = {
#include "ErrorHandler-x86_64_macho.bc.inc"
};
const unsigned char kErrorHandlerX86_64Coff[] = {
#include "ErrorHandler-x86_64_coff.bc.inc"
};
const unsigned char kErrorHandlerX86_32Elf[] = {
#include "ErrorHandler-x86_32_elf.bc.inc"
};
const unsigned char kErrorHandlerArm64Elf[] = {
#include "ErrorHandler-arm64_elf.bc.inc"
};
const unsigned char kErrorHandlerArm64MachO[] = {
#include "ErrorHandler-arm64_macho.bc.inc"
};
const unsigned char kErrorHandlerArm32Elf[] = {
#include "ErrorHandler-arm32_elf.bc.inc"
};
const unsigned char kErrorHandlerRiscv64Elf[] = {
#include "ErrorHandler-riscv64_elf.bc.inc"
};

/// The constructor that installs a returning error handler (ErrorHandler.ll),
/// linked into every kernel object, in the data layout of `target`'s CPU code.
/// None for other targets (WebAssembly, 32-bit Mach-O or Windows, ...), whose
/// libraries keep Halide's default handler (docs/embedding.md).
std::optional<Halide::ExternalCode> errorHandlerExternalCode(const Halide::Target &target) {
  using T = Halide::Target;
  const bool macho = target.os == T::OSX || target.os == T::IOS;
  const bool coff = target.os == T::Windows;
  const bool elf = target.os == T::Linux || target.os == T::Android || target.os == T::Fuchsia ||
                   target.os == T::QuRT || target.os == T::NoOS;
  const unsigned char *code = nullptr;
  size_t size = 0;
  auto pick = [&](const unsigned char *bytes, size_t n) { code = bytes, size = n; };
  if (target.arch == T::X86 && target.bits == 64) {
    if (elf)
      pick(kErrorHandlerX86_64Elf, sizeof(kErrorHandlerX86_64Elf));
    else if (macho)
      pick(kErrorHandlerX86_64MachO, sizeof(kErrorHandlerX86_64MachO));
    else if (coff)
      pick(kErrorHandlerX86_64Coff, sizeof(kErrorHandlerX86_64Coff));
  } else if (target.arch == T::X86 && target.bits == 32 && elf) {
    pick(kErrorHandlerX86_32Elf, sizeof(kErrorHandlerX86_32Elf));
  } else if (target.arch == T::ARM && target.bits == 64) {
    if (elf)
      pick(kErrorHandlerArm64Elf, sizeof(kErrorHandlerArm64Elf));
    else if (macho)
      pick(kErrorHandlerArm64MachO, sizeof(kErrorHandlerArm64MachO));
  } else if (target.arch == T::ARM && target.bits == 32 && elf) {
    pick(kErrorHandlerArm32Elf, sizeof(kErrorHandlerArm32Elf));
  } else if (target.arch == T::RISCV && target.bits == 64 && elf) {
    pick(kErrorHandlerRiscv64Elf, sizeof(kErrorHandlerRiscv64Elf));
  }
  if (!code)
    return std::nullopt;
  return Halide::ExternalCode::bitcode_wrapper(target, std::vector<uint8_t>(code, code + size),
                                               "ssm_error_handler");
}

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

rt::TensorInfo tensorInfo(const TensorSignature &t) {
  rt::TensorInfo info{t.name, t.param, t.state, t.shape, t.dtype, std::nullopt};
  if (t.append)
    info.append = rt::TensorInfo::Append{t.append->axis, t.append->argument,
                                         t.append->position, t.append->length, t.append->rows};
  return info;
}

std::vector<rt::TensorInfo> tensorInfos(const std::vector<TensorSignature> &ts) {
  std::vector<rt::TensorInfo> out;
  for (const TensorSignature &t : ts)
    out.push_back(tensorInfo(t));
  return out;
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
  rt::ModuleManifest manifest;
  manifest.compiler = kCompilerVersion;
  manifest.target = target.to_string();
  manifest.requestedTarget = options.target;
  if (shared) // a cross target has none: link it where it runs
    manifest.sharedLibrary = "lib" + options.libName + ".so";
  manifest.autoscheduler = options.autoscheduler;
  manifest.staticLibrary = options.libName + ".a";
  manifest.header = options.libName + ".h";
  manifest.symbolPrefix = options.symbolPrefix;
  std::string header = "// Generated by " + std::string(kCompilerVersion) + " for target " +
                       target.to_string() + ".\n#pragma once\n#include \"HalideRuntime.h\"\n";

  // Compile on a copy: segmenting adds outlined functions to the module.
  OwningOpRef<ModuleOp> work(cast<ModuleOp>(module->clone()));
  // Compiles one function into one kernel and returns its manifest entry.
  auto compileKernel = [&](func::FuncOp func, rt::FunctionInfo &fj) -> LogicalResult {
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
      if (std::optional<Halide::ExternalCode> handler = errorHandlerExternalCode(kernelTarget))
        m.append(*handler);
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
    fj.name = tf->name;
    fj.symbol = tf->symbol;
    fj.internal = func.isPrivate();
    fj.arguments = tensorInfos(tf->inputs);
    fj.results = tensorInfos(tf->results);
    fj.kernelExtraArguments = tensorInfos(tf->kernelExtraInputs);
    if (const std::optional<TimeChunking> &c = tf->chunking)
      fj.chunking = rt::TimeChunking{c->chunk,        c->length,   c->argTimeAxis,
                                     c->resultTimeAxis, c->stateArg, c->stateResult};
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
    rt::FunctionInfo fj;
    if (!hasCalls(func)) {
      publicKernels.push_back({func, manifest.functions.size()});
      manifest.functions.emplace_back();
      continue;
    }
    // A function with calls: a sequence of kernel calls (codegen/Segments.h).
    FailureOr<SegmentPlan> plan = planSegments(func, *work);
    if (failed(plan))
      return failure();
    fj.name = func.getSymName().str();
    fj.segmented = true;
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
    for (unsigned i = 0; i < ft.getNumInputs(); ++i)
      fj.arguments.push_back(tensorInfo(tensorSignature(
          cast<RankedTensorType>(ft.getInput(i)), func.getArgAttrDict(i), "arg" + std::to_string(i))));
    for (unsigned i = 0; i < ft.getNumResults(); ++i)
      fj.results.push_back(tensorInfo(tensorSignature(cast<RankedTensorType>(ft.getResult(i)),
                                                      func.getResultAttrDict(i),
                                                      "result" + std::to_string(i))));
    for (const SegmentStep &s : plan->steps) {
      fj.steps.push_back({s.callee, s.inputs, s.outputs});
      // A public callee is compiled as a function of its own already.
      bool isPublic = llvm::any_of(publicFuncs, [&](func::FuncOp f) {
        return f.getSymName() == s.callee;
      });
      if (!isPublic && queued.insert(s.callee).second)
        internal.push_back(s.callee);
    }
    fj.stepValues = plan->numValues;
    fj.resultValues = plan->results;
    manifest.functions.push_back(std::move(fj));
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
    if (failed(compileKernel(func, manifest.functions[index])))
      return failure();
  }
  for (const std::string &name : internal) {
    rt::FunctionInfo fj;
    report("kernel @" + name);
    if (failed(compileKernel(symbols.lookup<func::FuncOp>(name), fj)))
      return failure();
    manifest.functions.push_back(std::move(fj));
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
    manifest.sharedLibraryBytes = libBytes;
    // And its checksum: a library damaged in place (same size) would crash
    // inside dlopen or in its first call.
    std::string sum;
    if (!rt::fileChecksum(join(options.outDir, "lib" + options.libName + ".so"), sum, error))
      return failure();
    manifest.sharedLibraryXxh3 = sum;
  }
  {
    std::ofstream h(join(options.outDir, options.libName + ".h"));
    h << header;
    std::ofstream m(join(options.outDir, "manifest.json"));
    m << rt::manifestToJson(manifest);
    if (!h || !m) {
      error = "cannot write the header or manifest in " + options.outDir;
      return failure();
    }
  }
  return success();
}

} // namespace ssm::codegen
