// Reading model.json into a ModelSpec, with checks on every field the runtime uses.
#include "runtime/ModelSpec.h"

#include "runtime/Shape.h"

#include <nlohmann/json.hpp>

#include <filesystem>
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

namespace {
Status parse(const std::string &path, ModelSpec &spec) {
  nlohmann::json model = nlohmann::json::parse(spec.text, nullptr, /*allow_exceptions=*/false);
  if (model.is_discarded() || !model.is_object() || model.value("format", "") != "ssm-opt-model")
    return {Code::InvalidFile, path + ": not an ssm-opt model description"};
  spec.architecture = model.value("architecture", "");
  if (model.contains("states") && model["states"].is_array())
    for (const auto &s : model["states"]) {
      StateSpec st;
      if (!s.is_object() || !s.contains("name") || !s.contains("shape"))
        return {Code::InvalidFile, path + ": malformed state entry"};
      st.name = s["name"].get<std::string>();
      st.shape = s["shape"].get<std::vector<int64_t>>();
      st.init = s.value("init", 0.0f);
      st.numel = checkedNumel(st.shape, int64_t(1) << 28);
      if (st.numel < 0)
        return {Code::InvalidFile, path + ": state '" + st.name + "' has shape " +
                                       shapeString(st.shape) + " (negative or over 2^28 values)"};
      if (spec.findState(st.name) >= 0)
        return {Code::InvalidFile, path + ": state '" + st.name + "' is listed twice"};
      spec.states.push_back(std::move(st));
    }
  nlohmann::json config = model.contains("config") ? model["config"] : nlohmann::json::object();
  if (model.contains("config"))
    spec.vocab = config.value("n_vocab", config.value("vocab_size", int64_t(0)));
  if (spec.vocab < 0)
    return {Code::InvalidFile, path + ": negative vocabulary size " + std::to_string(spec.vocab)};
  spec.byteTokens = model.value("byte_tokens", spec.vocab == 256);
  if (model.contains("functions") && model["functions"].is_object()) {
    spec.sequenceFunction = model["functions"].value("sequence", spec.sequenceFunction);
    spec.stepFunction = model["functions"].value("step", spec.stepFunction);
  }
  std::string id = spec.architecture + '\0' + config.dump() + '\0';
  uint64_t h = fnv1a(id.data(), id.size());
  for (const StateSpec &st : spec.states) {
    h = fnv1a(st.name.data(), st.name.size() + 1, h); // with the terminating NUL
    h = fnv1a(st.shape.data(), st.shape.size() * sizeof(int64_t), h);
  }
  spec.fingerprint = h;
  return Status::ok();
}
} // namespace

Status ModelSpec::load(const std::string &dir, ModelSpec &out) {
  out = ModelSpec();
  out.dir = dir;
  std::string path = dir + "/model.json";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return {Code::NotFound, path + ": no such file (is '" + dir + "' an ssm-import output?)"};
  if (!std::filesystem::is_regular_file(path, ec))
    return {Code::InvalidFile, path + ": not a regular file"};
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

} // namespace ssm::rt
