// The model runner: binds weights by parameter name, carries state by name,
// runs forward_sequence or forward_step on either engine, writes logits.
#include "tools/ssm-run/ModelRunner.h"

#include "reference/Interpreter.h"
#include "runtime/Module.h"
#include "runtime/Npy.h"
#include "import/Safetensors.h"
#include "tools/ssm-run/CompileCache.h"

#include "import/ModelBuilder.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <thread>

namespace ssm {
namespace {

constexpr int kOk = 0, kFailed = 1, kCannotRun = 2;

int fail(int code, const std::string &msg) {
  llvm::errs() << "ssm-run: error: " << msg << "\n";
  return code;
}

struct StateSpec {
  std::string name;
  std::vector<int64_t> shape;
  float init = 0.0f;
};

/// What one call of a model function needs and gives, engine-independent.
class Engine {
public:
  virtual ~Engine() = default;
  /// Runs @fn on `tokens` with `states` (updated in place); returns logits
  /// (rows x vocab, row-major) or false with `error` set.
  virtual bool call(const std::string &fn, const std::vector<int32_t> &tokens,
                    std::map<std::string, std::vector<float>> &states, std::vector<float> &logits,
                    std::string &error, int &code) = 0;
};

/// Argument roles of a function: token input, a state by name, a weight by name.
struct ArgRole {
  enum Kind { Tokens, State, Weight } kind;
  std::string name;
};

bool roleOf(llvm::StringRef fnName, const std::string &argName, const std::string &param,
            const std::string &state, ArgRole &role, std::string &error) {
  if (!state.empty())
    role = {ArgRole::State, state};
  else if (!param.empty())
    role = {ArgRole::Weight, param};
  else if (argName == "tokens")
    role = {ArgRole::Tokens, ""};
  else {
    error = "argument '" + argName + "' of @" + fnName.str() +
            " is neither the tokens, a state (ssm.state) nor a weight (ssm.param)";
    return false;
  }
  return true;
}

class ReferenceEngine : public Engine {
public:
  ReferenceEngine(mlir::MLIRContext &ctx, const std::map<std::string, importer::FloatTensor> &weights)
      : ctx(ctx), weights(weights) {}

  bool call(const std::string &fnName, const std::vector<int32_t> &tokens,
            std::map<std::string, std::vector<float>> &states, std::vector<float> &logits,
            std::string &error, int &code) override {
    code = kCannotRun;
    mlir::ModuleOp module = moduleFor(fnName, tokens.size(), error);
    if (!module)
      return false;
    auto fn = module.lookupSymbol<mlir::func::FuncOp>(fnName);
    if (!fn) {
      error = "the model has no function @" + fnName;
      return false;
    }
    std::vector<ref::Array> args;
    std::vector<std::string> stateOut;
    for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
      auto str = [&](const char *a) {
        auto s = fn.getArgAttrOfType<mlir::StringAttr>(i, a);
        return s ? s.str() : std::string();
      };
      ArgRole role;
      if (!roleOf(fn.getSymName(), str("ssm.name"), str("ssm.param"), str("ssm.state"), role, error))
        return false;
      auto type = mlir::cast<mlir::RankedTensorType>(fn.getArgumentTypes()[i]);
      std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
      if (role.kind == ArgRole::Tokens) {
        args.emplace_back(shape, std::vector<double>(tokens.begin(), tokens.end()));
      } else if (role.kind == ArgRole::State) {
        const std::vector<float> &s = states[role.name];
        int64_t n = ref::numelOf(shape);
        if (static_cast<int64_t>(s.size()) != n) {
          error = "state '" + role.name + "' has " + std::to_string(s.size()) +
                  " values, the model " + std::to_string(n) + " (check the states of model.json)";
          return false;
        }
        args.emplace_back(shape, std::vector<double>(s.begin(), s.end()));
      } else {
        auto it = weights.find(role.name);
        if (it == weights.end()) {
          error = weightsFile + " has no tensor '" + role.name + "'";
          return false;
        }
        if (it->second.shape != shape) {
          error = weightsFile + ": '" + role.name + "' has shape " + ref::shapeToString(it->second.shape) +
                  " but the model expects " + ref::shapeToString(shape);
          return false;
        }
        args.emplace_back(shape, std::vector<double>(it->second.data.begin(), it->second.data.end()));
      }
    }
    auto results = ref::runFunction(fn, args);
    if (!results) {
      error = llvm::toString(results.takeError());
      return false;
    }
    for (unsigned i = 0; i < fn.getNumResults(); ++i) {
      auto st = fn.getResultAttrOfType<mlir::StringAttr>(i, "ssm.state");
      const ref::Array &r = (*results)[i];
      if (st)
        states[st.str()].assign(r.data.begin(), r.data.end());
      else
        logits.assign(r.data.begin(), r.data.end());
    }
    return true;
  }

  /// The module text for a sequence of `len` tokens; cached per length.
  std::function<bool(int64_t, std::string &, std::string &)> textFor;
  std::string weightsFile; // for messages

private:
  mlir::ModuleOp moduleFor(const std::string &fn, size_t len, std::string &error) {
    int64_t key = fn == "forward_step" ? 1 : static_cast<int64_t>(len);
    auto it = modules.find(key);
    if (it != modules.end())
      return it->second->get();
    std::string text;
    if (!textFor(key, text, error))
      return nullptr;
    llvm::SourceMgr sm;
    mlir::SourceMgrDiagnosticHandler diag(sm, &ctx);
    auto m = mlir::parseSourceString<mlir::ModuleOp>(text, &ctx, "model.mlir");
    if (!m) {
      error = "the model's MLIR does not parse (see above)";
      return nullptr;
    }
    mlir::ModuleOp op = *m;
    modules[key] = std::make_unique<mlir::OwningOpRef<mlir::ModuleOp>>(std::move(m));
    return op;
  }

  mlir::MLIRContext &ctx;
  const std::map<std::string, importer::FloatTensor> &weights;
  std::map<int64_t, std::unique_ptr<mlir::OwningOpRef<mlir::ModuleOp>>> modules;
};

class CpuEngine : public Engine {
public:
  CpuEngine(const ModelRunOptions &o, const std::map<std::string, importer::FloatTensor> &weights)
      : opts(o), weights(weights) {}

  std::function<bool(int64_t, std::string &, std::string &)> textFor;
  std::string weightsFile; // for messages

  bool call(const std::string &fnName, const std::vector<int32_t> &tokens,
            std::map<std::string, std::vector<float>> &states, std::vector<float> &logits,
            std::string &error, int &code) override {
    code = kCannotRun;
    int64_t key = fnName == "forward_step" ? 1 : static_cast<int64_t>(tokens.size());
    Loaded *l = load(key, error, code);
    if (!l)
      return false;
    Prepared *p = prepare(*l, key, fnName, error);
    if (!p)
      return false;
    // Copy into the bound tensors in place: their storage must not move.
    if (tokens.size() != p->tok.ints.size()) {
      error = "@" + fnName + " takes " + std::to_string(p->tok.ints.size()) + " tokens, got " +
              std::to_string(tokens.size());
      return false;
    }
    std::copy(tokens.begin(), tokens.end(), p->tok.ints.begin());
    for (auto &[index, name] : p->stateArgs) {
      const std::vector<float> &s = states[name];
      if (s.size() != p->inputs[index].data.size()) {
        error = "state '" + name + "' has " + std::to_string(s.size()) + " values, the model " +
                std::to_string(p->inputs[index].data.size());
        return false;
      }
      std::copy(s.begin(), s.end(), p->inputs[index].data.begin());
    }
    if (!p->bound->invoke(error))
      return false;
    const rt::FunctionInfo &fn = *p->fn;
    for (size_t i = 0; i < fn.results.size(); ++i) {
      if (!fn.results[i].state.empty())
        states[fn.results[i].state].assign(p->results[i].data.begin(), p->results[i].data.end());
      else
        logits.assign(p->results[i].data.begin(), p->results[i].data.end());
    }
    return true;
  }

private:
  struct Loaded {
    std::unique_ptr<rt::CompiledModule> module;
  };
  /// A function with its arguments and results bound once: each call only
  /// copies the tokens and states in and the results out (a decode step
  /// then costs the kernels, not argument lookups and allocation).
  struct Prepared {
    const rt::FunctionInfo *fn = nullptr;
    rt::HostTensor tok;
    std::vector<rt::HostTensor> inputs; // state arguments, by argument index
    std::vector<std::pair<size_t, std::string>> stateArgs;
    std::vector<rt::HostTensor> results;
    std::unique_ptr<rt::BoundCall> bound;
  };

  Prepared *prepare(Loaded &l, int64_t key, const std::string &fnName, std::string &error) {
    auto it = prepared.find({key, fnName});
    if (it != prepared.end())
      return it->second.get();
    auto p = std::make_unique<Prepared>();
    p->fn = l.module->find(fnName);
    if (!p->fn) {
      error = "the compiled model has no function @" + fnName;
      return nullptr;
    }
    const rt::FunctionInfo &fn = *p->fn;
    p->inputs.resize(fn.arguments.size());
    std::vector<const rt::HostTensor *> args;
    for (size_t i = 0; i < fn.arguments.size(); ++i) {
      const rt::TensorInfo &a = fn.arguments[i];
      ArgRole role;
      if (!roleOf(fnName, a.name, a.param, a.state, role, error))
        return nullptr;
      if (role.kind == ArgRole::Tokens) {
        p->tok.shape = a.shape;
        p->tok.dtype = "int32";
        p->tok.ints.assign(static_cast<size_t>(key), 0);
        args.push_back(&p->tok);
      } else if (role.kind == ArgRole::State) {
        p->inputs[i].shape = a.shape;
        p->inputs[i].data.assign(ref::numelOf(a.shape), 0.0f);
        p->stateArgs.push_back({i, role.name});
        args.push_back(&p->inputs[i]);
      } else {
        const rt::HostTensor *w = weight(role.name, a.shape, error);
        if (!w)
          return nullptr;
        args.push_back(w);
      }
    }
    p->bound = l.module->bind(fn, args, p->results, error);
    if (!p->bound)
      return nullptr;
    return (prepared[{key, fnName}] = std::move(p)).get();
  }

  Loaded *load(int64_t key, std::string &error, int &code) {
    auto it = loaded.find(key);
    if (it != loaded.end())
      return &it->second;
    std::string text;
    if (!textFor(key, text, error))
      return nullptr;
    std::string dir = compileWithCache(text, opts.target, opts.argv0, error, code);
    if (dir.empty())
      return nullptr;
    Loaded l;
    l.module = rt::CompiledModule::load(dir, error);
    if (!l.module)
      return nullptr;
    l.module->setThreads(static_cast<int>(opts.threads));
    return &(loaded[key] = std::move(l));
  }

  const rt::HostTensor *weight(const std::string &name, const std::vector<int64_t> &shape,
                               std::string &error) {
    auto it = hostWeights.find(name);
    if (it != hostWeights.end())
      return &it->second;
    auto w = weights.find(name);
    if (w == weights.end()) {
      error = weightsFile + " has no tensor '" + name + "'";
      return nullptr;
    }
    if (w->second.shape != shape) {
      error = weightsFile + ": '" + name + "' has shape " + ref::shapeToString(w->second.shape) +
              " but the model expects " + ref::shapeToString(shape);
      return nullptr;
    }
    rt::HostTensor &h = hostWeights[name];
    h.shape = shape;
    h.data.assign(w->second.data.begin(), w->second.data.end());
    return &h;
  }

  const ModelRunOptions &opts;
  const std::map<std::string, importer::FloatTensor> &weights;
  std::map<int64_t, Loaded> loaded;
  std::map<std::string, rt::HostTensor> hostWeights;
  std::map<std::pair<int64_t, std::string>, std::unique_ptr<Prepared>> prepared;
};

bool readTokens(const std::string &path, std::vector<int32_t> &tokens, std::string &error) {
  NpyArray npy;
  std::vector<double> v;
  if (!readNpy(path, npy, error) || !npyToDoubles(npy, v, error))
    return false;
  if (npy.shape.size() != 1 || (npy.dtype != "<i4" && npy.dtype != "<i8")) {
    error = path + ": --tokens needs an int32 (or int64) vector";
    return false;
  }
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] < -2147483648.0 || v[i] > 2147483647.0) {
      error = path + ": token " + std::to_string(static_cast<long long>(v[i])) + " at position " +
              std::to_string(i) + " does not fit in int32";
      return false;
    }
  tokens.assign(v.begin(), v.end());
  return true;
}

int argmax(const float *row, int64_t n) {
  int best = 0;
  for (int64_t i = 1; i < n; ++i)
    if (row[i] > row[best])
      best = static_cast<int>(i);
  return best;
}

bool canWrite(const std::string &path, bool force, std::string &error) {
  if (llvm::sys::fs::exists(path) && !force) {
    error = path + " exists; pass --force to overwrite it";
    return false;
  }
  return true;
}

} // namespace

int runModelChecked(const ModelRunOptions &o, mlir::MLIRContext &ctx);

bool isModelDir(const std::string &path) {
  return llvm::sys::fs::is_directory(path) && llvm::sys::fs::exists(path + "/model.json");
}

int runModel(const ModelRunOptions &o, mlir::MLIRContext &ctx) {
  // model.json is read with checks on every field the runner uses; a value
  // of the wrong JSON type that slips through is reported, not thrown.
  try {
    return runModelChecked(o, ctx);
  } catch (const nlohmann::json::exception &e) {
    return fail(kCannotRun, o.dir + "/model.json: malformed (" + e.what() + ")");
  } catch (const std::length_error &e) {
    return fail(kCannotRun, o.dir + "/model.json: a shape is too large (" + e.what() + ")");
  } catch (const std::bad_alloc &) {
    return fail(kCannotRun, "out of memory (is a shape in " + o.dir + "/model.json too large?)");
  }
}

int runModelChecked(const ModelRunOptions &o, mlir::MLIRContext &ctx) {
  std::string error;
  if (!llvm::sys::fs::is_regular_file(o.dir + "/model.json"))
    return fail(kCannotRun, o.dir + "/model.json: not a regular file");
  if (!o.logitsOut.empty() && o.logitsOut == o.allLogitsOut)
    return fail(kCannotRun, "--logits-out and --all-logits-out name the same file '" +
                                o.logitsOut + "'");
  if (o.generate < 0)
    return fail(kCannotRun, "--generate takes a non-negative count, got " +
                                std::to_string(o.generate));
  std::ifstream in(o.dir + "/model.json");
  std::stringstream buf;
  buf << in.rdbuf();
  std::string modelJson = buf.str();
  nlohmann::json model = nlohmann::json::parse(modelJson, nullptr, false);
  if (model.is_discarded() || !model.is_object() || model.value("format", "") != "ssm-opt-model")
    return fail(kCannotRun, o.dir + "/model.json: not an ssm-opt model description");
  std::vector<StateSpec> stateSpecs;
  if (model.contains("states") && model["states"].is_array())
    for (const auto &s : model["states"]) {
      StateSpec spec;
      if (!s.is_object() || !s.contains("name") || !s.contains("shape"))
        return fail(kCannotRun, o.dir + "/model.json: malformed state entry");
      spec.name = s["name"].get<std::string>();
      spec.shape = s["shape"].get<std::vector<int64_t>>();
      spec.init = s.value("init", 0.0f);
      int64_t n = 1;
      for (int64_t d : spec.shape) {
        if (d < 0 || d > (int64_t(1) << 28) || n > (int64_t(1) << 28) / std::max<int64_t>(d, 1))
          return fail(kCannotRun, o.dir + "/model.json: state '" + spec.name + "' has shape " +
                                      ref::shapeToString(spec.shape) +
                                      " (negative or over 2^28 values)");
        n *= d;
      }
      stateSpecs.push_back(spec);
    }
  if (o.hasPrompt == !o.tokensFile.empty())
    return fail(kCannotRun, "give exactly one of --prompt TEXT and --tokens FILE.npy");
  if (o.mode != "sequence" && o.mode != "step")
    return fail(kCannotRun, "--mode must be sequence or step, got '" + o.mode + "'");
  if (o.engine != "reference" && o.engine != "cpu")
    return fail(kCannotRun, "unknown engine '" + o.engine + "' for models (reference, cpu)");
  std::vector<int32_t> tokens;
  if (o.hasPrompt)
    for (unsigned char c : o.prompt)
      tokens.push_back(c);
  else if (!readTokens(o.tokensFile, tokens, error))
    return fail(kCannotRun, error);
  if (tokens.empty())
    return fail(kCannotRun, "the prompt has no tokens");
  int64_t vocab = model.contains("config") ? model["config"].value("n_vocab", model["config"].value("vocab_size", 0)) : 0;
  for (int32_t t : tokens)
    if (t < 0 || (vocab > 0 && t >= vocab))
      return fail(kCannotRun, "token " + std::to_string(t) + " is outside the vocabulary of " +
                                  std::to_string(vocab));
  for (const std::string &path : {o.logitsOut, o.allLogitsOut})
    if (!path.empty() && !canWrite(path, o.force, error))
      return fail(kCannotRun, error);

  std::map<std::string, importer::FloatTensor> weights;
  if (!importer::readSafetensorsAsFloats(o.dir + "/weights.safetensors", weights, error))
    return fail(kCannotRun, error);

  // The graph for a sequence of any length comes from the model's builder
  // (model.mlir is that graph for the length given at import).
  auto textFor = [&](int64_t len, std::string &text, std::string &err) -> bool {
    return ssm::buildModelMLIR(modelJson, len, text, err);
  };
  std::unique_ptr<Engine> engine;
  if (o.engine == "reference") {
    auto e = std::make_unique<ReferenceEngine>(ctx, weights);
    e->textFor = textFor;
    e->weightsFile = o.dir + "/weights.safetensors";
    engine = std::move(e);
  } else {
    auto e = std::make_unique<CpuEngine>(o, weights);
    e->textFor = textFor;
    e->weightsFile = o.dir + "/weights.safetensors";
    engine = std::move(e);
  }

  std::map<std::string, std::vector<float>> initialStates;
  for (const StateSpec &s : stateSpecs) {
    int64_t n = 1;
    for (int64_t d : s.shape)
      n *= d;
    initialStates[s.name].assign(n, s.init);
  }
  std::map<std::string, std::vector<float>> states = initialStates;
  std::vector<float> allLogits, logits;
  int code = kCannotRun;
  // The prompt from `st`: one forward_sequence call, or forward_step per token.
  auto runPrompt = [&](std::map<std::string, std::vector<float>> &st, std::vector<float> &all) {
    all.clear();
    if (o.mode == "sequence")
      return engine->call("forward_sequence", tokens, st, all, error, code);
    all.reserve(tokens.size() * static_cast<size_t>(std::max<int64_t>(vocab, 1)));
    for (int32_t t : tokens) {
      if (!engine->call("forward_step", {t}, st, logits, error, code))
        return false;
      all.insert(all.end(), logits.begin(), logits.end());
    }
    return true;
  };
  auto t0 = std::chrono::steady_clock::now();
  if (!runPrompt(states, allLogits))
    return fail(code, error);
  double promptSec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (vocab <= 0)
    vocab = static_cast<int64_t>(allLogits.size() / tokens.size());
  if (static_cast<int64_t>(allLogits.size()) != vocab * static_cast<int64_t>(tokens.size()))
    return fail(kFailed, "the model returned " + std::to_string(allLogits.size()) +
                             " logits for " + std::to_string(tokens.size()) + " tokens");
  llvm::errs() << llvm::formatv("ssm-run: prompt: {0} tokens in {1:f1} ms ({2:f1} tokens/s, {3}, {4} "
                                "engine{5})\n",
                                tokens.size(), promptSec * 1e3, tokens.size() / promptSec, o.mode,
                                o.engine,
                                o.engine == "reference"
                                    ? ""
                                    : ", first call includes compilation or cache lookup");
  std::vector<float> last(allLogits.end() - vocab, allLogits.end());
  if (!o.logitsOut.empty() &&
      !writeNpy(o.logitsOut, "<f4", {vocab}, last.data(), error))
    return fail(kCannotRun, error);
  if (!o.allLogitsOut.empty() &&
      !writeNpy(o.allLogitsOut, "<f4", {static_cast<int64_t>(tokens.size()), vocab},
                allLogits.data(), error))
    return fail(kCannotRun, error);

  if (o.repeat > 0) {
    // The first run above was the warm-up (compilation or cache lookup,
    // loading, weight conversion); time only the runs of the prompt.
    std::vector<double> ms;
    std::vector<float> scratchLogits;
    for (unsigned i = 0; i < o.repeat; ++i) {
      std::map<std::string, std::vector<float>> st = initialStates;
      auto r0 = std::chrono::steady_clock::now();
      bool ok = runPrompt(st, scratchLogits);
      auto r1 = std::chrono::steady_clock::now();
      if (!ok)
        return fail(code, error);
      ms.push_back(std::chrono::duration<double, std::milli>(r1 - r0).count());
    }
    std::sort(ms.begin(), ms.end());
    size_t n = ms.size();
    double med = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
    unsigned threads = o.engine == "reference"
                           ? 1u
                           : (o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency()));
    llvm::outs() << llvm::formatv("median_ms={0:f4} threads={1} tokens={2} us_per_token={3:f3} mode={4}\n",
                                  med, threads, tokens.size(), med * 1e3 / tokens.size(), o.mode);
    llvm::outs().flush();
  }

  if (o.generate > 0) {
    bool bytes = model.value("byte_tokens", vocab == 256);
    std::string text;
    int32_t next = argmax(last.data(), vocab);
    auto g0 = std::chrono::steady_clock::now();
    // Each token is printed as it comes (a long run can be watched or cut).
    for (int64_t i = 0; i < o.generate; ++i) {
      if (bytes)
        text = std::string(1, static_cast<char>(next));
      else
        text = (i ? " " : "") + std::to_string(next);
      llvm::outs() << text;
      llvm::outs().flush();
      if (i + 1 == o.generate)
        break;
      if (!engine->call("forward_step", {next}, states, logits, error, code))
        return fail(code, error);
      next = argmax(logits.data(), vocab);
    }
    double genSec = std::chrono::duration<double>(std::chrono::steady_clock::now() - g0).count();
    llvm::outs() << "\n";
    llvm::errs() << llvm::formatv("ssm-run: generated {0} tokens in {1:f1} ms ({2:f1} tokens/s)\n",
                                  o.generate, genSec * 1e3,
                                  o.generate > 1 ? (o.generate - 1) / genSec : 0.0);
  }
  return kOk;
}

} // namespace ssm
