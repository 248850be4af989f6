// Typed reads of config.json fields for the importers: each failure names the field and what it holds.
#ifndef SSM_IMPORT_CONFIGFIELDS_H
#define SSM_IMPORT_CONFIGFIELDS_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ssm::importer::config_fields {

/// Large enough for any real checkpoint, small enough that products of
/// dimensions stay far from int64 overflow.
constexpr int64_t kMaxDim = int64_t(1) << 24;

/// "an integer", "the string \"4\"", ...: what a JSON value is, for messages.
std::string typeName(const nlohmann::json &v);

/// An integer field in [lo, hi]; a float with an integral value (2.0)
/// counts, as Python's int() would take it. A missing (or null) field is an
/// error when `required`, else leaves `out` as it is.
bool readInt(const nlohmann::json &cfg, const char *key, bool required, int64_t lo, int64_t hi,
             int64_t &out, std::string &error);
/// A boolean field; missing or null leaves `out` as it is.
bool readBool(const nlohmann::json &cfg, const char *key, bool &out, std::string &error);
/// A finite number >= lo that float32 can hold (|x| <= 3.4e38: the graphs
/// hold these as f32 constants); missing or null leaves `out` as it is.
bool readNumber(const nlohmann::json &cfg, const char *key, double lo, double &out,
                std::string &error);

/// One row of an architecture's config field table: the key, where its
/// value goes, and what it may hold. readFields reads a table in order.
struct Field {
  enum class Kind { Int, Bool, Number } kind = Kind::Int;
  const char *key = "";
  int64_t *intOut = nullptr;
  bool *boolOut = nullptr;
  double *numberOut = nullptr;
  bool required = false;
  int64_t lo = 0, hi = 0; // Int: the allowed range
  double numberLo = 0.0;  // Number: the least value

  /// An integer in [lo, hi] (readInt); `required` or left as is when missing.
  static Field integer(const char *key, int64_t &out, int64_t lo, int64_t hi,
                       bool required = false);
  /// A boolean (readBool), left as is when missing.
  static Field boolean(const char *key, bool &out);
  /// A finite number >= lo that float32 holds (readNumber), left as is when missing.
  static Field number(const char *key, double &out, double lo);
};

/// Reads the fields of `table` in order into their outputs; the first that
/// fails sets `error` (naming the field and what it holds) and returns false.
bool readFields(const nlohmann::json &cfg, const std::vector<Field> &table, std::string &error);

/// Python's json module writes Infinity, -Infinity and NaN bare (not strict
/// JSON; transformers' configs hold `"time_step_limit": [0.0, Infinity]`).
/// Returns the text with those tokens, outside strings, quoted, so a strict
/// parser reads them as the strings "Infinity", "-Infinity", "NaN".
std::string jsonWithNonFiniteAsStrings(const std::string &text);
/// A number, or one of the strings "Infinity", "-Infinity" (also "inf",
/// "-inf") as the double it names. False for anything else (NaN included).
bool extendedNumber(const nlohmann::json &v, double &out);

} // namespace ssm::importer::config_fields

#endif // SSM_IMPORT_CONFIGFIELDS_H
