// Parsing and checking completion and chat requests (Request.h states the policy).
#include "server/Request.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

namespace ssm::server {
namespace {

using json = nlohmann::json;

const char *typeName(const json &v) {
  switch (v.type()) {
  case json::value_t::null: return "null";
  case json::value_t::boolean: return "a boolean";
  case json::value_t::string: return "a string";
  case json::value_t::array: return "an array";
  case json::value_t::object: return "an object";
  case json::value_t::number_float: return "a non-integer number";
  default: return "an integer";
  }
}

ApiError wrongType(const std::string &field, const char *want, const json &got) {
  return ApiError::badRequest("'" + field + "' must be " + want + ", got " + typeName(got), field,
                              "invalid_type");
}

ApiError outOfRange(const std::string &field, const std::string &what) {
  return ApiError::badRequest("'" + field + "' " + what, field, "invalid_value");
}

/// A number field (integers accepted) in [lo, hi]; absent or null leaves `out`.
std::optional<ApiError> number(const json &body, const char *field, double lo, double hi,
                               bool loOpen, double &out) {
  auto it = body.find(field);
  if (it == body.end() || it->is_null())
    return std::nullopt;
  if (!it->is_number())
    return wrongType(field, "a number", *it);
  double v = it->get<double>();
  if (!std::isfinite(v) || v > hi || (loOpen ? v <= lo : v < lo))
    return outOfRange(field, "must be in " + std::string(loOpen ? "(" : "[") +
                                 json(lo).dump() + ", " + json(hi).dump() + "], got " + it->dump());
  out = v;
  return std::nullopt;
}

/// An integer field in [lo, hi]; absent or null leaves `out`.
std::optional<ApiError> integer(const json &body, const char *field, int64_t lo, int64_t hi,
                                int64_t &out) {
  auto it = body.find(field);
  if (it == body.end() || it->is_null())
    return std::nullopt;
  if (it->is_number_unsigned()) {
    if (it->get<uint64_t>() > static_cast<uint64_t>(hi))
      return outOfRange(field, "must be at most " + std::to_string(hi) + ", got " + it->dump());
    out = static_cast<int64_t>(it->get<uint64_t>());
  } else if (it->is_number_integer()) {
    out = it->get<int64_t>();
  } else {
    return wrongType(field, "an integer", *it);
  }
  if (out < lo || out > hi)
    return outOfRange(field, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                 "], got " + it->dump());
  return std::nullopt;
}

std::optional<ApiError> boolean(const json &body, const char *field, bool &out) {
  auto it = body.find(field);
  if (it == body.end() || it->is_null())
    return std::nullopt;
  if (!it->is_boolean())
    return wrongType(field, "a boolean", *it);
  out = it->get<bool>();
  return std::nullopt;
}

/// Fields this server does not implement: refused unless they ask for the default.
std::optional<ApiError> unsupported(const json &body) {
  auto refuse = [](const std::string &field, const std::string &why) {
    return ApiError::badRequest("'" + field + "' " + why + " is not supported by ssm-serve", field,
                                "unsupported_parameter");
  };
  auto isDefault = [&](const char *field, const json &dflt) {
    auto it = body.find(field);
    return it == body.end() || it->is_null() || *it == dflt;
  };
  if (!isDefault("n", 1))
    return refuse("n", "other than 1");
  if (!isDefault("best_of", 1))
    return refuse("best_of", "other than 1");
  if (!isDefault("echo", false))
    return refuse("echo", "true");
  if (!isDefault("suffix", ""))
    return refuse("suffix", "(insertion)");
  for (const char *f : {"logprobs", "top_logprobs"})
    if (!isDefault(f, false) && !isDefault(f, 0))
      return refuse(f, "(log probabilities)");
  for (const char *f : {"tools", "functions"})
    if (auto it = body.find(f); it != body.end() && !it->is_null() && !(it->is_array() && it->empty()))
      return refuse(f, "(tool calls)");
  if (auto it = body.find("response_format"); it != body.end() && !it->is_null()) {
    if (!it->is_object() || it->value("type", json()) != "text")
      return refuse("response_format", "other than {\"type\": \"text\"}");
  }
  return std::nullopt;
}

std::optional<ApiError> parsePrompt(const json &body, const RequestLimits &limits,
                                    CompletionRequest &out) {
  auto it = body.find("prompt");
  if (it == body.end() || it->is_null())
    return ApiError::badRequest("'prompt' is required", "prompt", "missing_required_parameter");
  const json &p = *it;
  if (p.is_string()) {
    out.promptText = p.get<std::string>();
  } else if (p.is_array() && p.size() == 1 && p[0].is_string()) {
    out.promptText = p[0].get<std::string>();
  } else if (p.is_array() && !p.empty() && p[0].is_number()) {
    if (p.size() > limits.maxPromptIds)
      return outOfRange("prompt", "holds " + std::to_string(p.size()) + " token ids, more than " +
                                      std::to_string(limits.maxPromptIds));
    for (const json &id : p) {
      if (!id.is_number_integer() && !id.is_number_unsigned())
        return wrongType("prompt", "a string or an array of token ids (integers)", id);
      if (id.is_number_unsigned() ? id.get<uint64_t>() > INT32_MAX
                                  : (id.get<int64_t>() < 0 || id.get<int64_t>() > INT32_MAX))
        return outOfRange("prompt", "holds token id " + id.dump() + ", outside [0, 2^31)");
      out.promptIds.push_back(static_cast<int32_t>(id.get<int64_t>()));
    }
    out.promptIsIds = true;
  } else if (p.is_array() && p.size() > 1 && (p[0].is_string() || p[0].is_array())) {
    return ApiError::badRequest("'prompt' holds " + std::to_string(p.size()) +
                                    " prompts: ssm-serve takes one prompt per request",
                                "prompt", "unsupported_parameter");
  } else if (p.is_array() && p.empty()) {
    return ApiError::badRequest("'prompt' is empty (an array of no token ids)", "prompt",
                                "invalid_value");
  } else if (p.is_array()) {
    // Named by what its first element is (a boolean, null, an object), not "an array".
    return wrongType("prompt", "a string or an array of token ids (integers)", p[0]);
  } else {
    return wrongType("prompt", "a string or an array of token ids", p);
  }
  if (!out.promptIsIds && out.promptText.empty())
    return ApiError::badRequest("'prompt' is empty", "prompt", "invalid_value");
  return std::nullopt;
}

std::optional<ApiError> parseMessages(const json &body, const RequestLimits &limits,
                                      CompletionRequest &out) {
  auto it = body.find("messages");
  if (it == body.end() || it->is_null())
    return ApiError::badRequest("'messages' is required", "messages", "missing_required_parameter");
  if (!it->is_array())
    return wrongType("messages", "an array of messages", *it);
  if (it->empty())
    return ApiError::badRequest("'messages' is empty", "messages", "invalid_value");
  if (it->size() > limits.maxMessages)
    return outOfRange("messages", "holds " + std::to_string(it->size()) + " messages, more than " +
                                      std::to_string(limits.maxMessages));
  for (size_t i = 0; i < it->size(); ++i) {
    const json &m = (*it)[i];
    const std::string where = "messages[" + std::to_string(i) + "]";
    if (!m.is_object())
      return wrongType(where, "an object", m);
    ChatMessage msg;
    auto role = m.find("role");
    if (role == m.end() || !role->is_string())
      return ApiError::badRequest(where + ".role must be a string", where + ".role",
                                  "invalid_type");
    msg.role = role->get<std::string>();
    if (msg.role != "system" && msg.role != "developer" && msg.role != "user" &&
        msg.role != "assistant")
      return ApiError::badRequest(where + ".role '" + msg.role +
                                      "' is not one of system, developer, user, assistant",
                                  where + ".role", "invalid_value");
    auto content = m.find("content");
    if (content == m.end() || content->is_null()) {
      return ApiError::badRequest(where + ".content is required", where + ".content",
                                  "missing_required_parameter");
    } else if (content->is_string()) {
      msg.content = content->get<std::string>();
    } else if (content->is_array()) {
      // Content parts: text only.
      for (const json &part : *content) {
        if (!part.is_object() || part.value("type", json()) != "text" ||
            !part.contains("text") || !part["text"].is_string())
          return ApiError::badRequest(where + ".content parts must be {\"type\": \"text\", "
                                              "\"text\": string} (ssm-serve takes text only)",
                                      where + ".content", "invalid_value");
        msg.content += part["text"].get<std::string>();
      }
    } else {
      return wrongType(where + ".content", "a string or an array of text parts", *content);
    }
    out.messages.push_back(std::move(msg));
  }
  return std::nullopt;
}

} // namespace

std::optional<ApiError> parseCompletionRequest(std::string_view text, Endpoint endpoint,
                                               const RequestLimits &limits,
                                               CompletionRequest &out) {
  out = CompletionRequest();
  out.endpoint = endpoint;
  json body = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded())
    return ApiError::badRequest("the body is not valid JSON", "", "invalid_json");
  if (!body.is_object())
    return ApiError::badRequest(std::string("the body must be a JSON object, got ") +
                                    typeName(body),
                                "", "invalid_json");
  if (auto it = body.find("model"); it != body.end() && !it->is_null()) {
    if (!it->is_string())
      return wrongType("model", "a string", *it);
    out.model = it->get<std::string>();
  }
  if (auto e = endpoint == Endpoint::Completions ? parsePrompt(body, limits, out)
                                                 : parseMessages(body, limits, out))
    return e;
  if (auto e = unsupported(body))
    return e;
  // max_completion_tokens is the chat API's newer name for max_tokens.
  for (const char *f : {"max_tokens", "max_completion_tokens"})
    if (auto e = integer(body, f, 1, limits.maxTokens, out.maxTokens))
      return e;
  SamplingSettings &s = out.sampling;
  if (auto e = number(body, "temperature", 0.0, 2.0, false, s.temperature))
    return e;
  if (auto e = number(body, "top_p", 0.0, 1.0, true, s.topP))
    return e;
  if (auto e = number(body, "min_p", 0.0, 1.0, false, s.minP))
    return e;
  if (auto e = number(body, "presence_penalty", -2.0, 2.0, false, s.presencePenalty))
    return e;
  if (auto e = number(body, "frequency_penalty", -2.0, 2.0, false, s.frequencyPenalty))
    return e;
  if (auto e = number(body, "repetition_penalty", 0.0, 100.0, true, s.repetitionPenalty))
    return e;
  // top_k: 0 or -1 (vLLM's spelling) turn it off.
  if (auto e = integer(body, "top_k", -1, 1 << 30, s.topK))
    return e;
  if (s.topK < 0)
    s.topK = 0;
  if (auto it = body.find("seed"); it != body.end() && !it->is_null()) {
    if (it->is_number_unsigned())
      s.seed = it->get<uint64_t>();
    else if (it->is_number_integer())
      s.seed = static_cast<uint64_t>(it->get<int64_t>());
    else
      return wrongType("seed", "an integer", *it);
    s.hasSeed = true;
  }
  if (auto it = body.find("stop"); it != body.end() && !it->is_null()) {
    if (it->is_string()) {
      out.stop.push_back(it->get<std::string>());
    } else if (it->is_array()) {
      for (const json &v : *it) {
        if (!v.is_string())
          return wrongType("stop", "a string or an array of strings", v);
        out.stop.push_back(v.get<std::string>());
      }
    } else {
      return wrongType("stop", "a string or an array of strings", *it);
    }
    if (out.stop.size() > limits.maxStops)
      return outOfRange("stop", "holds " + std::to_string(out.stop.size()) +
                                    " sequences, more than " + std::to_string(limits.maxStops));
    for (const std::string &st : out.stop) {
      if (st.empty())
        return outOfRange("stop", "holds an empty string");
      if (st.size() > limits.maxStopBytes)
        return outOfRange("stop", "holds a sequence of " + std::to_string(st.size()) +
                                      " bytes, more than " + std::to_string(limits.maxStopBytes));
    }
  }
  if (auto e = boolean(body, "stream", out.stream))
    return e;
  if (auto it = body.find("stream_options"); it != body.end() && !it->is_null()) {
    if (!it->is_object())
      return wrongType("stream_options", "an object", *it);
    if (auto e = boolean(*it, "include_usage", out.includeUsage))
      return ApiError::badRequest("'stream_options.include_usage' must be a boolean",
                                  "stream_options.include_usage", "invalid_type");
  }
  return std::nullopt;
}

} // namespace ssm::server
