// manifest.json to and from ModuleManifest: the writer (ssm-compile) and the runtime's reader share this one schema (the compile cache only checks an entry's library name and size itself).
#include "runtime/Manifest.h"
#include "runtime/FormatVersions.h"
#include "runtime/Checksum.h"

#include <nlohmann/json.hpp>

#include <limits>

namespace ssm::rt {

namespace {

using ordered = nlohmann::ordered_json;
using nlohmann::json;

ordered tensorJson(const TensorInfo &t) {
  ordered j;
  j["name"] = t.name;
  if (!t.param.empty())
    j["param"] = t.param;
  if (!t.state.empty())
    j["state"] = t.state;
  j["shape"] = t.shape;
  j["dtype"] = t.dtype;
  if (t.append) {
    j["append"] = {{"axis", t.append->axis},
                   {"argument", t.append->argument},
                   {"position", t.append->position},
                   {"length", t.append->length}};
    if (t.append->rows)
      j["append"]["rows"] = true;
  }
  return j;
}

ordered tensorsJson(const std::vector<TensorInfo> &ts) {
  ordered a = ordered::array();
  for (const TensorInfo &t : ts)
    a.push_back(tensorJson(t));
  return a;
}

ordered functionJson(const FunctionInfo &f) {
  ordered j;
  j["name"] = f.name;
  if (f.segmented) {
    j["arguments"] = tensorsJson(f.arguments);
    j["results"] = tensorsJson(f.results);
    ordered steps = ordered::array();
    for (const SegmentStep &s : f.steps)
      steps.push_back({{"function", s.function}, {"inputs", s.inputs}, {"outputs", s.outputs}});
    j["steps"] = steps;
    j["step_values"] = f.stepValues;
    j["result_values"] = f.resultValues;
    return j;
  }
  j["symbol"] = f.symbol;
  if (f.internal)
    j["internal"] = true;
  j["arguments"] = tensorsJson(f.arguments);
  j["results"] = tensorsJson(f.results);
  if (!f.kernelExtraArguments.empty())
    j["kernel_extra_arguments"] = tensorsJson(f.kernelExtraArguments);
  if (const std::optional<TimeChunking> &c = f.chunking) {
    ordered cj;
    cj["chunk"] = c->chunk;
    cj["length"] = c->length;
    cj["argument_time_axes"] = c->argumentTimeAxes;
    cj["result_time_axes"] = c->resultTimeAxes;
    cj["state_argument"] = c->stateArgument;
    cj["state_result"] = c->stateResult;
    j["time_chunking"] = cj;
  }
  return j;
}

/// A manifest number that is not an integer of the type it is read into
/// (nlohmann's get<int> converts 4.1e100 with undefined behaviour: found by
/// fuzz-manifest under UBSan). Thrown by integerAt / integersAt, caught where
/// the json::exceptions of the same reads are.
struct BadManifestNumber {};

template <typename T> T checkedInteger(const json &v) {
  if (!v.is_number_integer())
    throw BadManifestNumber{};
  if (v.is_number_unsigned()) {
    if (v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<T>::max()))
      throw BadManifestNumber{};
    return static_cast<T>(v.get<uint64_t>());
  }
  int64_t x = v.get<int64_t>();
  if (x < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
      x > static_cast<int64_t>(std::numeric_limits<T>::max()))
    throw BadManifestNumber{};
  return static_cast<T>(x);
}
template <typename T> T integerAt(const json &o, const char *key) {
  return checkedInteger<T>(o.at(key));
}
std::vector<int> integersAt(const json &o, const char *key) {
  const json &v = o.at(key);
  if (!v.is_array())
    throw BadManifestNumber{};
  std::vector<int> out;
  for (const json &e : v)
    out.push_back(checkedInteger<int>(e));
  return out;
}
/// Runs `read`'s reads: false when one is missing, of the wrong JSON type,
/// or not an integer of its type.
template <typename F> bool manifestReads(F read) {
  try {
    read();
    return true;
  } catch (const json::exception &) {
    return false;
  } catch (const BadManifestNumber &) {
    return false;
  }
}

bool readTensors(const json &j, const char *key, std::vector<TensorInfo> &out,
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
    if (t.contains("state") && t["state"].is_string())
      info.state = t["state"].get<std::string>();
    for (const auto &d : t["shape"]) {
      if (!d.is_number_integer() || d.get<int64_t>() < 0) {
        error = where + ": bad shape of '" + info.name + "'";
        return false;
      }
      info.shape.push_back(d.get<int64_t>());
    }
    if (t.contains("dtype") && !t["dtype"].is_string()) {
      error = where + ": '" + info.name + "' has dtype " + t["dtype"].dump() + ", not a string";
      return false;
    }
    info.dtype = t.value("dtype", "float32");
    if (info.dtype != "float32" && info.dtype != "int32" &&
        !((info.dtype == "float16" || info.dtype == "bfloat16" || info.dtype == "int8") &&
          std::string(key) == "arguments")) {
      error = where + ": '" + info.name + "' has dtype " + info.dtype +
              "; float32 and int32 are supported (and float16, bfloat16, int8 for arguments)";
      return false;
    }
    if (t.contains("append")) {
      const json &a = t["append"];
      auto intAt = [&](const char *k, int64_t &v) {
        if (!a.is_object() || !a.contains(k) || !a[k].is_number_integer())
          return false;
        v = a[k].get<int64_t>();
        return true;
      };
      int64_t axis = 0, argument = 0, position = 0, length = 0;
      if (std::string(key) != "results" || !intAt("axis", axis) || !intAt("argument", argument) ||
          !intAt("position", position) || !intAt("length", length) || axis < 0 ||
          axis >= static_cast<int64_t>(info.shape.size()) || argument < 0 || position < 0 ||
          argument > (1 << 20) || position > (1 << 20) || length < 1 ||
          length > info.shape[static_cast<size_t>(axis)]) {
        error = where + ": '" + info.name + "' has a malformed \"append\" " +
                (t["append"].dump());
        return false;
      }
      const bool rows = a.contains("rows") && a["rows"].is_boolean() && a["rows"].get<bool>();
      if (rows && (axis != 1 || info.shape.size() < 2)) {
        error = where + ": '" + info.name + "' has a malformed \"append\" " + a.dump() +
                " (rows appends along axis 1, after the streams)";
        return false;
      }
      info.append = TensorInfo::Append{static_cast<int>(axis), static_cast<int>(argument),
                                       static_cast<int>(position), length, rows};
    }
    out.push_back(std::move(info));
  }
  return true;
}

bool readFunction(const json &f, const std::string &path, FunctionInfo &info,
                  std::string &error) {
  if (!f.is_object() || !f.contains("name") || !f["name"].is_string() ||
      (!f.contains("steps") && (!f.contains("symbol") || !f["symbol"].is_string()))) {
    error = path + ": malformed function entry";
    return false;
  }
  info.name = f["name"].get<std::string>();
  info.symbol = f.value("symbol", "");
  info.internal = f.value("internal", false);
  if (!readTensors(f, "arguments", info.arguments, error, path) ||
      !readTensors(f, "results", info.results, error, path))
    return false;
  for (size_t i = 0; i < info.arguments.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (info.arguments[i].name == info.arguments[j].name) {
        error = path + ": @" + info.name + " has two arguments named '" + info.arguments[i].name +
                "'";
        return false;
      }
  if (f.contains("kernel_extra_arguments") &&
      !readTensors(f, "kernel_extra_arguments", info.kernelExtraArguments, error, path))
    return false;
  // An appended result names an argument of its shape and dtype and an
  // int32 position of one element.
  for (const TensorInfo &r : info.results) {
    if (!r.append)
      continue;
    const TensorInfo::Append &a = *r.append;
    const size_t n = info.arguments.size();
    if (static_cast<size_t>(a.argument) >= n || static_cast<size_t>(a.position) >= n ||
        info.arguments[a.argument].shape != r.shape || info.arguments[a.argument].dtype != r.dtype ||
        info.arguments[a.position].dtype != "int32" ||
        info.arguments[a.position].shape != std::vector<int64_t>{a.rows ? r.shape[0] : 1}) {
      error = path + ": @" + info.name + ": result '" + r.name +
              "' appends to an argument that is not of its shape and dtype, or its position "
              "is not one int32 (one per stream for \"rows\")";
      return false;
    }
  }
  if (f.contains("steps")) {
    info.segmented = true;
    const std::string where = path + ": malformed \"steps\" of @" + info.name;
    if (!f["steps"].is_array() || !manifestReads([&] {
          info.stepValues = integerAt<int>(f, "step_values");
          info.resultValues = integersAt(f, "result_values");
          for (const auto &st : f["steps"])
            info.steps.push_back({st.at("function").get<std::string>(), integersAt(st, "inputs"),
                                  integersAt(st, "outputs")});
        })) {
      error = where + " (a field is missing or not of its type: steps [{function, inputs, "
                      "outputs}], step_values, result_values)";
      return false;
    }
    // Every value is defined once, before it is read: arguments first, then
    // each step's outputs in order.
    int defined = static_cast<int>(info.arguments.size());
    for (size_t k = 0; k < info.steps.size(); ++k) {
      const SegmentStep &st = info.steps[k];
      for (int v : st.inputs)
        if (v < 0 || v >= defined) {
          error = where + " (step " + std::to_string(k) + " reads value " + std::to_string(v) +
                  ", not defined before it: values 0 to " + std::to_string(defined - 1) + ")";
          return false;
        }
      for (int v : st.outputs)
        if (v != defined++) {
          error = where + " (step " + std::to_string(k) + " writes value " + std::to_string(v) +
                  ", expected the next new value " + std::to_string(defined - 1) + ")";
          return false;
        }
    }
    if (defined != info.stepValues || info.resultValues.size() != info.results.size()) {
      error = where + " (step_values " + std::to_string(info.stepValues) + " for " +
              std::to_string(defined) + " values, " + std::to_string(info.resultValues.size()) +
              " result_values for " + std::to_string(info.results.size()) + " results)";
      return false;
    }
    for (int v : info.resultValues)
      if (v < 0 || v >= defined) {
        error = where + " (result value " + std::to_string(v) + " is not defined)";
        return false;
      }
  }
  if (f.contains("time_chunking")) {
    const auto &c = f["time_chunking"];
    TimeChunking tc;
    bool ok = c.is_object() && manifestReads([&] {
      tc.chunk = integerAt<int64_t>(c, "chunk");
      tc.length = integerAt<int64_t>(c, "length");
      tc.argumentTimeAxes = integersAt(c, "argument_time_axes");
      tc.resultTimeAxes = integersAt(c, "result_time_axes");
      tc.stateArgument = integerAt<int>(c, "state_argument");
      tc.stateResult = integerAt<int>(c, "state_result");
    });
    size_t kernelArgs = info.arguments.size() + info.kernelExtraArguments.size();
    ok = ok && tc.chunk > 0 && tc.length > 0 &&
         tc.argumentTimeAxes.size() == info.arguments.size() &&
         tc.resultTimeAxes.size() == info.results.size() && tc.stateArgument >= 0 &&
         static_cast<size_t>(tc.stateArgument) < kernelArgs && tc.stateResult >= 0 &&
         static_cast<size_t>(tc.stateResult) < info.results.size();
    if (!ok) {
      error = path + ": malformed \"time_chunking\" of @" + info.name;
      return false;
    }
    info.chunking = tc;
  }
  return true;
}

bool sameType(const TensorInfo &a, const TensorInfo &b) {
  return a.shape == b.shape && a.dtype == b.dtype;
}

/// Each value of a segmented function has the shape and dtype of what
/// defines it (an argument, or a result of the kernel a step calls), and
/// each read (a step's input, a result) expects that type: the runtime
/// copies by these sizes, so a mismatch would read past a buffer.
bool checkSegmentTypes(const ModuleManifest &m, const std::string &path, std::string &error) {
  for (const FunctionInfo &f : m.functions) {
    if (!f.segmented)
      continue;
    const std::string where = path + ": \"steps\" of @" + f.name;
    std::vector<const TensorInfo *> values;
    for (const TensorInfo &a : f.arguments)
      values.push_back(&a);
    for (size_t k = 0; k < f.steps.size(); ++k) {
      const SegmentStep &st = f.steps[k];
      const FunctionInfo *callee = nullptr;
      for (const FunctionInfo &g : m.functions)
        if (g.name == st.function && !g.segmented)
          callee = &g;
      if (!callee) {
        error = where + ": step " + std::to_string(k) + " calls @" + st.function +
                ", which is not a kernel of this manifest";
        return false;
      }
      if (callee->arguments.size() != st.inputs.size() ||
          callee->results.size() != st.outputs.size()) {
        error = where + ": step " + std::to_string(k) + " passes " +
                std::to_string(st.inputs.size()) + " values and takes " +
                std::to_string(st.outputs.size()) + " to @" + st.function + ", which has " +
                std::to_string(callee->arguments.size()) + " arguments and " +
                std::to_string(callee->results.size()) + " results";
        return false;
      }
      for (size_t i = 0; i < st.inputs.size(); ++i)
        if (!sameType(*values[st.inputs[i]], callee->arguments[i])) {
          error = where + ": step " + std::to_string(k) + " passes value " +
                  std::to_string(st.inputs[i]) + " ('" + values[st.inputs[i]]->name +
                  "') as argument '" + callee->arguments[i].name + "' of @" + st.function +
                  ", of another shape or dtype";
          return false;
        }
      for (const TensorInfo &r : callee->results)
        values.push_back(&r);
    }
    for (size_t i = 0; i < f.resultValues.size(); ++i)
      if (!sameType(*values[f.resultValues[i]], f.results[i])) {
        error = where + ": result " + std::to_string(i) + " ('" + f.results[i].name +
                "') is value " + std::to_string(f.resultValues[i]) + " ('" +
                values[f.resultValues[i]]->name + "'), of another shape or dtype";
        return false;
      }
  }
  return true;
}

bool parse(const std::string &text, const std::string &path, ModuleManifest &m,
           std::string &error) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || j.value("format", "") != "ssm-opt-module") {
    error = path + ": not an ssm-opt module manifest";
    return false;
  }
  if (j.contains("version") && j["version"] != kManifestVersion) {
    error = path + ": manifest version " + j["version"].dump() + "; this runtime reads version " +
            std::to_string(kManifestVersion) + " (recompile with this ssm-compile)";
    return false;
  }
  m.compiler = j.value("compiler", "");
  m.target = j.value("target", "");
  m.requestedTarget = j.value("requested_target", "");
  m.autoscheduler = j.value("autoscheduler", "");
  m.staticLibrary = j.value("static_library", "");
  m.header = j.value("header", "");
  m.symbolPrefix = j.value("symbol_prefix", "");
  if (!j.contains("functions") || !j["functions"].is_array() || !j.contains("shared_library")) {
    error = path + ": missing \"functions\" or \"shared_library\"";
    return false;
  }
  if (j["shared_library"].is_string()) {
    // A file of the module's folder: never a path that leaves it.
    std::string lib = j["shared_library"].get<std::string>();
    if (lib.empty() || lib.find('/') != std::string::npos || lib == "." || lib == "..") {
      error = path + ": \"shared_library\" is " + j["shared_library"].dump() +
              ", not a file name in the module's folder";
      return false;
    }
    m.sharedLibrary = lib;
  } else if (!j["shared_library"].is_null()) {
    error = path + ": \"shared_library\" is " + j["shared_library"].dump() +
            ", not a file name (or null for a cross target)";
    return false;
  }
  if (j.contains("shared_library_bytes")) {
    if (!j["shared_library_bytes"].is_number_unsigned()) {
      error = path + ": \"shared_library_bytes\" is " + j["shared_library_bytes"].dump() +
              ", not a byte count";
      return false;
    }
    m.sharedLibraryBytes = j["shared_library_bytes"].get<uint64_t>();
  }
  if (j.contains("shared_library_xxh3")) {
    if (!j["shared_library_xxh3"].is_string() ||
        !isChecksum(j["shared_library_xxh3"].get<std::string>())) {
      error = path + ": \"shared_library_xxh3\" is " + j["shared_library_xxh3"].dump() +
              ", not 16 lower-case hex digits";
      return false;
    }
    m.sharedLibraryXxh3 = j["shared_library_xxh3"].get<std::string>();
  }
  for (const auto &f : j["functions"]) {
    FunctionInfo info;
    if (!readFunction(f, path, info, error))
      return false;
    for (const FunctionInfo &other : m.functions)
      if (other.name == info.name) {
        error = path + ": function @" + info.name + " is listed twice";
        return false;
      }
    m.functions.push_back(std::move(info));
  }
  return checkSegmentTypes(m, path, error);
}

} // namespace

std::string manifestToJson(const ModuleManifest &m) {
  ordered j;
  j["format"] = "ssm-opt-module";
  j["version"] = kManifestVersion;
  j["compiler"] = m.compiler;
  j["target"] = m.target;
  j["requested_target"] = m.requestedTarget;
  if (m.sharedLibrary)
    j["shared_library"] = *m.sharedLibrary;
  else
    j["shared_library"] = nullptr; // a cross target: link it where it runs
  if (!m.autoscheduler.empty())
    j["autoscheduler"] = m.autoscheduler;
  j["static_library"] = m.staticLibrary;
  j["header"] = m.header;
  j["symbol_prefix"] = m.symbolPrefix;
  j["functions"] = ordered::array();
  for (const FunctionInfo &f : m.functions)
    j["functions"].push_back(functionJson(f));
  if (m.sharedLibraryBytes)
    j["shared_library_bytes"] = *m.sharedLibraryBytes;
  if (m.sharedLibraryXxh3)
    j["shared_library_xxh3"] = *m.sharedLibraryXxh3;
  return j.dump(2) + "\n";
}

bool manifestFromJson(const std::string &text, const std::string &path, ModuleManifest &out,
                      std::string &error) {
  out = ModuleManifest();
  // A value of the wrong JSON type is reported, not thrown.
  try {
    return parse(text, path, out, error);
  } catch (const json::exception &e) {
    error = path + ": malformed (" + e.what() + ")";
    return false;
  }
}

} // namespace ssm::rt
