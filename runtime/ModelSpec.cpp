// Reading model.json into a ModelSpec, with checks on every field the runtime uses.
#include "runtime/ModelSpec.h"
#include "runtime/FormatVersions.h"

#include "runtime/Shape.h"

#include <nlohmann/json.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <fstream>
#include <sstream>

namespace ssm::rt {

uint64_t fnv1a(const void *data, size_t n, uint64_t h) {
  const auto *p = static_cast<const unsigned char *>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

int ModelSpec::findState(const std::string &name) const {
  for (size_t i = 0; i < states.size(); ++i)
    if (states[i].name == name)
      return static_cast<int>(i);
  return -1;
}

int64_t ModelSpec::contextLength() const {
  int64_t n = 0;
  for (const StateSpec &s : states)
    if (s.kind == StateKind::Cache)
      n = n == 0 ? s.capacity() : std::min(n, s.capacity());
  return n;
}

Status ModelSpec::checkContext(int64_t position, int64_t n) const {
  const int64_t capacity = contextLength();
  if (capacity == 0 || position + n <= capacity)
    return Status::ok();
  std::string which;
  for (const StateSpec &s : states)
    if (s.kind == StateKind::Cache && s.capacity() == capacity) {
      which = s.name;
      break;
    }
  return {Code::ContextFull, std::to_string(n) + (n == 1 ? " token" : " tokens") +
                                 " at position " + std::to_string(position) + " would pass the " +
                                 std::to_string(capacity) + " positions cache state '" + which +
                                 "' holds (nothing was run: reset the stream or start another)"};
}

namespace {
/// A JSON integer that fits int64_t and is at most `max` (an unsigned one
/// above INT64_MAX, or any float, is not).
bool integerIn(const nlohmann::json &v, int64_t max) {
  if (v.is_number_unsigned())
    return v.get<uint64_t>() <= static_cast<uint64_t>(max);
  return v.is_number_integer() && v.get<int64_t>() <= max;
}

Status parse(const std::string &path, ModelSpec &spec) {
  nlohmann::json model = nlohmann::json::parse(spec.text, nullptr, /*allow_exceptions=*/false);
  if (model.is_discarded() || !model.is_object() || model.value("format", "") != "ssm-opt-model")
    return {Code::InvalidFile, path + ": not an ssm-opt model description"};
  // A folder from another ssm-import (an older or newer format) is refused
  // naming both versions; none given is version 1 (hand-written files).
  if (model.contains("version") && model["version"] != kModelJsonVersion)
    return {Code::InvalidFile, path + ": model.json version " + model["version"].dump() +
                                   "; this runtime reads version " +
                                   std::to_string(kModelJsonVersion) +
                                   " (import the model again with this ssm-import)"};
  spec.architecture = model.value("architecture", "");
  if (model.contains("states") && model["states"].is_array())
    for (const auto &s : model["states"]) {
      StateSpec st;
      if (!s.is_object() || !s.contains("name") || !s.contains("shape"))
        return {Code::InvalidFile, path + ": malformed state entry"};
      st.name = s["name"].get<std::string>();
      // Elements checked before conversion: a float such as 5e45 converted
      // to int64 is undefined behaviour (found by fuzz-model-json, UBSan).
      if (!s["shape"].is_array())
        return {Code::InvalidFile, path + ": state '" + st.name + "' has a shape that is not an array"};
      for (const auto &d : s["shape"]) {
        if (!integerIn(d, INT64_MAX))
          return {Code::InvalidFile, path + ": state '" + st.name + "' has a shape entry " +
                                         d.dump() + " that is not an integer"};
        st.shape.push_back(d.get<int64_t>());
      }
      if (s.contains("init")) {
        const auto &v = s["init"];
        if (!v.is_number() || !std::isfinite(v.get<double>()) ||
            std::fabs(v.get<double>()) > std::numeric_limits<float>::max())
          return {Code::InvalidFile, path + ": state '" + st.name + "' has init " + v.dump() +
                                         ", not a finite float32 value"};
        st.init = static_cast<float>(v.get<double>());
      }
      st.numel = checkedNumel(st.shape, int64_t(1) << 28);
      if (st.numel < 0)
        return {Code::InvalidFile, path + ": state '" + st.name + "' has shape " +
                                       shapeString(st.shape) + " (negative or over 2^28 values)"};
      if (s.contains("kind")) {
        const auto &k = s["kind"];
        if (k == "cache")
          st.kind = StateKind::Cache;
        else if (k != "fixed")
          return {Code::InvalidFile, path + ": state '" + st.name + "' has kind " + k.dump() +
                                         " (\"fixed\" or \"cache\")"};
      }
      if (st.kind == StateKind::Cache) {
        const std::string want = "the dim its positions index, an integer from 0 to " +
                                 std::to_string(static_cast<int64_t>(st.shape.size()) - 1);
        if (!s.contains("axis"))
          return {Code::InvalidFile, path + ": cache state '" + st.name + "' of shape " +
                                         shapeString(st.shape) + " needs \"axis\": " + want};
        if (!integerIn(s["axis"], INT64_MAX) || s["axis"].get<int64_t>() < 0 ||
            s["axis"].get<int64_t>() >= static_cast<int64_t>(st.shape.size()))
          return {Code::InvalidFile, path + ": cache state '" + st.name + "' of shape " +
                                         shapeString(st.shape) + " has \"axis\": " +
                                         s["axis"].dump() + ", not " + want};
        st.axis = static_cast<int>(s["axis"].get<int64_t>());
        if (st.shape[st.axis] < 1)
          return {Code::InvalidFile, path + ": cache state '" + st.name + "' of shape " +
                                         shapeString(st.shape) + " holds no position (dim " +
                                         std::to_string(st.axis) + " is 0)"};
      } else if (s.contains("axis")) {
        return {Code::InvalidFile, path + ": state '" + st.name +
                                       "' has an \"axis\" but is not a cache (\"kind\": \"cache\")"};
      }
      if (spec.findState(st.name) >= 0)
        return {Code::InvalidFile, path + ": state '" + st.name + "' is listed twice"};
      spec.states.push_back(std::move(st));
    }
  nlohmann::json config = model.contains("config") ? model["config"] : nlohmann::json::object();
  if (model.contains("config") && config.is_object())
    for (const char *key : {"vocab_size", "n_vocab"}) // n_vocab wins when both are there
      if (config.contains(key)) {
        if (!integerIn(config[key], INT64_MAX))
          return {Code::InvalidFile, path + ": config." + key + " " + config[key].dump() +
                                         " is not an integer"};
        spec.vocab = config[key].get<int64_t>();
      }
  if (spec.vocab < 0)
    return {Code::InvalidFile, path + ": negative vocabulary size " + std::to_string(spec.vocab)};
  spec.byteTokens = model.value("byte_tokens", spec.vocab == 256);
  if (model.contains("functions") && model["functions"].is_object()) {
    for (const char *key : {"sequence", "step"})
      if (model["functions"].contains(key) && (!model["functions"][key].is_string() ||
                                               model["functions"][key].get<std::string>().empty()))
        return {Code::InvalidFile, path + ": functions." + key +
                                       " must be a function name, got " +
                                       model["functions"][key].dump()};
    spec.sequenceFunction = model["functions"].value("sequence", spec.sequenceFunction);
    spec.stepFunction = model["functions"].value("step", spec.stepFunction);
    if (spec.sequenceFunction == spec.stepFunction)
      return {Code::InvalidFile, path + ": functions.sequence and functions.step both name @" +
                                     spec.stepFunction + " (the scan form and the step form are "
                                     "two functions)"};
    for (const char *key : {"step_batched", "sequence_batched"}) {
      if (!model["functions"].contains(key))
        continue;
      const auto &b = model["functions"][key];
      if (!b.is_object() || !b.contains("name") || !b["name"].is_string() ||
          b["name"].get<std::string>().empty() || !b.contains("batch") ||
          !integerIn(b["batch"], 1024) || b["batch"].get<int64_t>() < 1)
        return {Code::InvalidFile, path + ": functions." + key +
                                       " must be {\"name\": a function "
                                       "name, \"batch\": an integer from 1 to 1024}, got " +
                                       b.dump()};
      const bool step = std::string(key) == "step_batched";
      (step ? spec.batchedStepFunction : spec.batchedSequenceFunction) =
          b["name"].get<std::string>();
      (step ? spec.stepBatch : spec.prefillBatch) = b["batch"].get<int64_t>();
    }
    if (!spec.batchedSequenceFunction.empty() &&
        (spec.batchedSequenceFunction == spec.sequenceFunction ||
         spec.batchedSequenceFunction == spec.stepFunction ||
         spec.batchedSequenceFunction == spec.batchedStepFunction))
      return {Code::InvalidFile, path + ": functions.sequence_batched names @" +
                                     spec.batchedSequenceFunction +
                                     ", which another entry of functions names"};
  }
  std::string id = spec.architecture + '\0' + config.dump() + '\0';
  uint64_t h = fnv1a(id.data(), id.size());
  for (const StateSpec &st : spec.states) {
    h = fnv1a(st.name.data(), st.name.size() + 1, h); // with the terminating NUL
    h = fnv1a(st.shape.data(), st.shape.size() * sizeof(int64_t), h);
    if (st.kind == StateKind::Cache) // fixed states hash as before kinds existed
      h = fnv1a(&st.axis, sizeof st.axis, h);
  }
  spec.fingerprint = h;
  spec.importedContext = spec.contextLength();
  return Status::ok();
}
} // namespace

Status ModelSpec::withContext(int64_t n) {
  if (n >= 1 && importedContext == 0)
    return Status::ok(); // no cache state: nothing to size, no bound
  if (n < 1 || n > kMaxContext)
    return {Code::InvalidArgument,
            "--context " + std::to_string(n) + ": a stream's KV caches hold from 1 to " +
                std::to_string(kMaxContext) + " positions" +
                (importedContext > 0 ? " (this model's default is " +
                                           std::to_string(importedContext) + ")"
                                     : std::string())};
  if (n == contextLength())
    return Status::ok();
  // Checked for every state before any changes.
  for (const StateSpec &st : states)
    if (st.kind == StateKind::Cache) {
      const int64_t perPosition = st.numel / st.capacity();
      if (perPosition > INT32_MAX / 4 / n)
        return {Code::InvalidArgument,
                "--context " + std::to_string(n) + ": cache state '" + st.name + "' would take " +
                    std::to_string(perPosition * 4) + " bytes per position x " +
                    std::to_string(n) + " positions, more than the 2^31 - 1 bytes a compiled "
                    "kernel's buffer holds; give a smaller --context"};
    }
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  for (StateSpec &st : states)
    if (st.kind == StateKind::Cache) {
      st.numel = st.numel / st.capacity() * n;
      st.shape[st.axis] = n;
    }
  // The text as graph builders read it (ModelSpec::load checked its states).
  if (j.is_object()) {
    if (j.contains("config") && j["config"].is_object() && j["config"].contains("context_length"))
      j["config"]["context_length"] = n;
    if (j.contains("states") && j["states"].is_array())
      for (auto &s : j["states"])
        if (s.is_object() && s.value("kind", "") == "cache" && s.contains("axis") &&
            s["axis"].is_number_integer() && s.contains("shape") && s["shape"].is_array()) {
          const auto axis = s["axis"].get<int64_t>();
          if (axis >= 0 && axis < static_cast<int64_t>(s["shape"].size()))
            s["shape"][static_cast<size_t>(axis)] = n;
        }
    text = j.dump(2);
  }
  return Status::ok();
}

Status ModelSpec::load(const std::string &dir, ModelSpec &out) {
  out = ModelSpec();
  out.dir = dir;
  std::string path = dir + "/model.json";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return {Code::NotFound, path + ": no such file (is '" + dir + "' an ssm-import output?)"};
  if (!std::filesystem::is_regular_file(path, ec))
    return {Code::InvalidFile, path + ": not a regular file"};
  // Bounded: a model.json holds names and shapes (tens of KB for models of
  // billions of parameters). Before, a 64 GiB (sparse) model.json was read
  // whole: 16 GB of memory and SIGABRT after 50 s.
  constexpr uintmax_t kMaxModelJson = uintmax_t(64) << 20;
  uintmax_t bytes = std::filesystem::file_size(path, ec);
  if (!ec && bytes > kMaxModelJson)
    return {Code::InvalidFile, path + ": " + std::to_string(bytes) +
                                   " bytes; a model.json is at most 64 MiB (damaged, or not one?)"};
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  if (!in)
    return {Code::InvalidFile, path + ": cannot read the file"};
  out.text = buf.str();
  // A value of the wrong JSON type is reported, not thrown.
  try {
    return parse(path, out);
  } catch (const nlohmann::json::exception &e) {
    return {Code::InvalidFile, path + ": malformed (" + e.what() + ")"};
  } catch (const std::length_error &e) {
    return {Code::InvalidFile, path + ": a shape is too large (" + e.what() + ")"};
  } catch (const std::bad_alloc &) {
    return {Code::OutOfMemory, "out of memory (is a shape in " + path + " too large?)"};
  }
}

std::vector<ModelSpec::StateGroup> ModelSpec::stateGroups() const {
  std::vector<StateGroup> groups;
  for (const StateSpec &st : states) {
    std::string name = st.name;
    if (name.rfind("layers.", 0) == 0) {
      size_t dot = name.find('.', 7);
      if (dot != std::string::npos &&
          name.find_first_not_of("0123456789", 7) == dot && dot > 7)
        name = name.substr(dot + 1);
    }
    int64_t bytes = st.numel * 4;
    if (st.kind == StateKind::Cache)
      bytes /= st.capacity();
    auto it = std::find_if(groups.begin(), groups.end(), [&](const StateGroup &g) {
      return g.name == name && g.kind == st.kind && g.bytesPerLayer == bytes;
    });
    if (it == groups.end())
      groups.push_back({name, 1, st.kind, bytes});
    else
      ++it->layers;
  }
  return groups;
}

void ModelSpec::stateBytes(int64_t &fixed, int64_t &cachePerPosition,
                           int64_t &cacheAllocated) const {
  fixed = cachePerPosition = cacheAllocated = 0;
  for (const StateSpec &st : states)
    if (st.kind == StateKind::Cache) {
      cachePerPosition += st.numel / st.capacity() * 4;
      cacheAllocated += st.numel * 4;
    } else {
      fixed += st.numel * 4;
    }
}

uint64_t usableMemoryBytes() {
  uint64_t usable = UINT64_MAX;
  const long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && pageSize > 0)
    usable = static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize);
  for (int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    struct rlimit r {};
    if (::getrlimit(resource, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
      usable = std::min<uint64_t>(usable, static_cast<uint64_t>(r.rlim_cur));
  }
  return usable;
}

} // namespace ssm::rt
