// Typed reads of config.json fields, one at a time or as an architecture's field table, with messages that name the field.
#include "import/ConfigFields.h"

#include <cmath>
#include <limits>

namespace ssm::importer::config_fields {

using nlohmann::json;

Field Field::integer(const char *key, int64_t &out, int64_t lo, int64_t hi, bool required) {
  Field f;
  f.kind = Kind::Int;
  f.key = key;
  f.intOut = &out;
  f.lo = lo;
  f.hi = hi;
  f.required = required;
  return f;
}

Field Field::boolean(const char *key, bool &out) {
  Field f;
  f.kind = Kind::Bool;
  f.key = key;
  f.boolOut = &out;
  return f;
}

Field Field::number(const char *key, double &out, double lo) {
  Field f;
  f.kind = Kind::Number;
  f.key = key;
  f.numberOut = &out;
  f.numberLo = lo;
  return f;
}

bool readFields(const json &cfg, const std::vector<Field> &table, std::string &error) {
  for (const Field &f : table) {
    bool ok = true;
    switch (f.kind) {
    case Field::Kind::Int:
      ok = readInt(cfg, f.key, f.required, f.lo, f.hi, *f.intOut, error);
      break;
    case Field::Kind::Bool:
      ok = readBool(cfg, f.key, *f.boolOut, error);
      break;
    case Field::Kind::Number:
      ok = readNumber(cfg, f.key, f.numberLo, *f.numberOut, error);
      break;
    }
    if (!ok)
      return false;
  }
  return true;
}

std::string typeName(const json &v) {
  if (v.is_number_integer())
    return "an integer";
  if (v.is_number_float())
    return "a number";
  if (v.is_boolean())
    return "a boolean";
  if (v.is_string())
    return "the string " + v.dump();
  if (v.is_null())
    return "null";
  if (v.is_array())
    return "an array";
  return "an object";
}

/// A positive integer field; a float with an integral value (2.0) counts, as
/// Python's int() would take it. `required` fields have no default.
bool readInt(const json &cfg, const char *key, bool required, int64_t lo, int64_t hi,
             int64_t &out, std::string &error) {
  auto it = cfg.find(key);
  if (it == cfg.end() || it->is_null()) {
    if (!required)
      return true;
    error = std::string("missing field '") + key + "'";
    return false;
  }
  int64_t v = 0;
  if (it->is_number_integer()) {
    v = it->get<int64_t>();
  } else if (it->is_number_float() && std::isfinite(it->get<double>()) &&
             std::floor(it->get<double>()) == it->get<double>() &&
             std::fabs(it->get<double>()) < 9e15) {
    v = int64_t(it->get<double>());
  } else {
    error = std::string("field '") + key + "' must be an integer, got " + typeName(*it);
    return false;
  }
  if (v < lo || v > hi) {
    error = std::string("field '") + key + "' is " + std::to_string(v) + ", expected " +
            (hi == std::numeric_limits<int64_t>::max()
                 ? "at least " + std::to_string(lo)
                 : std::to_string(lo) + " to " + std::to_string(hi));
    return false;
  }
  out = v;
  return true;
}

bool readBool(const json &cfg, const char *key, bool &out, std::string &error) {
  auto it = cfg.find(key);
  if (it == cfg.end() || it->is_null())
    return true;
  if (!it->is_boolean()) {
    error = std::string("field '") + key + "' must be true or false, got " + typeName(*it);
    return false;
  }
  out = it->get<bool>();
  return true;
}

bool readNumber(const json &cfg, const char *key, double lo, double &out, std::string &error) {
  auto it = cfg.find(key);
  if (it == cfg.end() || it->is_null())
    return true;
  if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < lo) {
    error = std::string("field '") + key + "' must be a number >= " + json(lo).dump() + ", got " +
            (it->is_number() ? it->dump() : typeName(*it));
    return false;
  }
  // The graphs hold these as f32 constants: beyond FLT_MAX one would print as
  // `inf`, which MLIR does not parse.
  if (std::fabs(it->get<double>()) > std::numeric_limits<float>::max()) {
    error = std::string("field '") + key + "' is " + it->dump() +
            ", beyond float32 (the model's type holds at most 3.4e38)";
    return false;
  }
  out = it->get<double>();
  return true;
}

std::string jsonWithNonFiniteAsStrings(const std::string &text) {
  std::string out;
  out.reserve(text.size());
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char ch = text[i];
    if (inString) {
      out += ch;
      if (ch == '\\' && i + 1 < text.size())
        out += text[++i];
      else if (ch == '"')
        inString = false;
      continue;
    }
    if (ch == '"') {
      inString = true;
      out += ch;
      continue;
    }
    bool matched = false;
    for (const char *word : {"-Infinity", "Infinity", "NaN"}) {
      size_t n = std::char_traits<char>::length(word);
      if (text.compare(i, n, word) == 0) {
        out += '"';
        out += word;
        out += '"';
        i += n - 1;
        matched = true;
        break;
      }
    }
    if (!matched)
      out += ch;
  }
  return out;
}

bool extendedNumber(const json &v, double &out) {
  if (v.is_number()) {
    out = v.get<double>();
    return true;
  }
  if (v.is_string()) {
    const std::string &s = v.get_ref<const std::string &>();
    if (s == "Infinity" || s == "inf") {
      out = std::numeric_limits<double>::infinity();
      return true;
    }
    if (s == "-Infinity" || s == "-inf") {
      out = -std::numeric_limits<double>::infinity();
      return true;
    }
  }
  return false;
}

} // namespace ssm::importer::config_fields
