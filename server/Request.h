// The body of POST /v1/completions and /v1/chat/completions parsed and checked into typed structs.
//
// Policy (docs in README's ssm-serve section):
//  * Malformed JSON, a body that is not an object, a field of the wrong type
//    or out of range: 400 naming the field (`param`).
//  * Unknown fields are ignored, as OpenAI-compatible servers do (clients
//    send vendor fields: user, metadata, stream_options, ...).
//  * Known fields this server cannot honour are refused with 400 when they
//    ask for something other than the default: n != 1, best_of != 1, echo,
//    suffix, logprobs / top_logprobs, tools / functions, a non-text
//    response_format.
#ifndef SSM_SERVER_REQUEST_H
#define SSM_SERVER_REQUEST_H

#include "server/ApiError.h"
#include "server/Sampler.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ssm::server {

enum class Endpoint { Completions, Chat };

struct ChatMessage {
  std::string role;    // system, developer, user, assistant
  std::string content; // text (an array of text parts is joined)
};

struct CompletionRequest {
  Endpoint endpoint = Endpoint::Completions;
  std::string model; // as sent (any name is accepted: the server holds one model)
  // /v1/completions: a string, or token ids.
  std::string promptText;
  std::vector<int32_t> promptIds;
  bool promptIsIds = false;
  // /v1/chat/completions
  std::vector<ChatMessage> messages;
  int64_t maxTokens = -1; // -1: not given (the server's default applies)
  SamplingSettings sampling;
  std::vector<std::string> stop;
  bool stream = false;
  bool includeUsage = false; // stream_options.include_usage
};

/// What a request may ask for.
struct RequestLimits {
  int64_t maxTokens = 4096;     // max_tokens above this: 400
  size_t maxStops = 4;          // as OpenAI
  size_t maxStopBytes = 256;    // each stop string
  size_t maxMessages = 1024;
  size_t maxPromptIds = 1 << 20;
};

/// Parses `body` for `endpoint`; nullopt when it is acceptable.
std::optional<ApiError> parseCompletionRequest(std::string_view body, Endpoint endpoint,
                                               const RequestLimits &limits,
                                               CompletionRequest &out);

} // namespace ssm::server

#endif
