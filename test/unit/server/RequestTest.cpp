// Request parsing: what is accepted into the typed request, and the 400 (message, param, code) for each kind of bad input.
#include "server/ApiError.h"
#include "server/Request.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace ssm::server;

namespace {

std::optional<ApiError> parse(const std::string &body, CompletionRequest &out,
                              Endpoint e = Endpoint::Completions) {
  return parseCompletionRequest(body, e, RequestLimits(), out);
}

TEST(Request, CompletionFields) {
  CompletionRequest r;
  ASSERT_FALSE(parse(R"({"model": "m", "prompt": "hi", "max_tokens": 7, "temperature": 0.5,
                         "top_p": 0.9, "top_k": 40, "min_p": 0.05, "seed": 12345678901234,
                         "stop": ["\n", "END"], "stream": true,
                         "stream_options": {"include_usage": true}, "user": "ignored"})",
                     r));
  EXPECT_EQ(r.model, "m");
  EXPECT_EQ(r.promptText, "hi");
  EXPECT_FALSE(r.promptIsIds);
  EXPECT_EQ(r.maxTokens, 7);
  EXPECT_DOUBLE_EQ(r.sampling.temperature, 0.5);
  EXPECT_DOUBLE_EQ(r.sampling.topP, 0.9);
  EXPECT_EQ(r.sampling.topK, 40);
  EXPECT_DOUBLE_EQ(r.sampling.minP, 0.05);
  EXPECT_TRUE(r.sampling.hasSeed);
  EXPECT_EQ(r.sampling.seed, 12345678901234ull);
  EXPECT_EQ(r.stop, (std::vector<std::string>{"\n", "END"}));
  EXPECT_TRUE(r.stream);
  EXPECT_TRUE(r.includeUsage);
}

TEST(Request, Defaults) {
  CompletionRequest r;
  ASSERT_FALSE(parse(R"({"prompt": "hi"})", r));
  EXPECT_EQ(r.maxTokens, -1);
  EXPECT_DOUBLE_EQ(r.sampling.temperature, 1.0); // OpenAI's
  EXPECT_FALSE(r.sampling.hasSeed);
  EXPECT_FALSE(r.stream);
  // null is "not given".
  ASSERT_FALSE(parse(R"({"prompt": "hi", "max_tokens": null, "stop": null, "n": 1, "echo": false,
                         "logprobs": null, "tools": []})", r));
}

TEST(Request, PromptForms) {
  CompletionRequest r;
  ASSERT_FALSE(parse(R"({"prompt": [1, 2, 3]})", r));
  EXPECT_TRUE(r.promptIsIds);
  EXPECT_EQ(r.promptIds, (std::vector<int32_t>{1, 2, 3}));
  ASSERT_FALSE(parse(R"({"prompt": ["one string"]})", r));
  EXPECT_EQ(r.promptText, "one string");
  ASSERT_FALSE(parse(R"({"prompt": "x", "top_k": -1})", r)); // vLLM's "off"
  EXPECT_EQ(r.sampling.topK, 0);
}

TEST(Request, ChatMessages) {
  CompletionRequest r;
  ASSERT_FALSE(parse(R"({"messages": [{"role": "system", "content": "be brief"},
                                      {"role": "user", "content": [{"type": "text", "text": "a"},
                                                                   {"type": "text", "text": "b"}]}],
                         "max_completion_tokens": 3})",
                     r, Endpoint::Chat));
  ASSERT_EQ(r.messages.size(), 2u);
  EXPECT_EQ(r.messages[0].role, "system");
  EXPECT_EQ(r.messages[1].content, "ab");
  EXPECT_EQ(r.maxTokens, 3);
}

struct Bad {
  const char *body;
  Endpoint endpoint;
  const char *param; // "" when none
  const char *code;
  const char *message; // a part of it
};

TEST(Request, BadInputIs400NamingTheField) {
  const Bad cases[] = {
      {R"({"prompt": "hi", )", Endpoint::Completions, "", "invalid_json", "not valid JSON"},
      {"[1]", Endpoint::Completions, "", "invalid_json", "must be a JSON object, got an array"},
      {"{}", Endpoint::Completions, "prompt", "missing_required_parameter", "'prompt' is required"},
      {R"({"prompt": {}})", Endpoint::Completions, "prompt", "invalid_type", "got an object"},
      {R"({"prompt": ""})", Endpoint::Completions, "prompt", "invalid_value", "empty"},
      {R"({"prompt": ["a", "b"]})", Endpoint::Completions, "prompt", "unsupported_parameter",
       "one prompt per request"},
      {R"({"prompt": [1, -1]})", Endpoint::Completions, "prompt", "invalid_value", "token id -1"},
      {R"({"prompt": [1, 4294967296]})", Endpoint::Completions, "prompt", "invalid_value", ""},
      {R"({"prompt": [1, true]})", Endpoint::Completions, "prompt", "invalid_type", "boolean"},
      // The first element decides the form: named by its type, not "got an array".
      {R"({"prompt": [true]})", Endpoint::Completions, "prompt", "invalid_type", "got a boolean"},
      {R"({"prompt": [null, 1]})", Endpoint::Completions, "prompt", "invalid_type", "got null"},
      {R"({"prompt": []})", Endpoint::Completions, "prompt", "invalid_value", "'prompt' is empty"},
      {R"({"prompt": "x", "max_tokens": 0})", Endpoint::Completions, "max_tokens", "invalid_value",
       "[1, 4096]"},
      {R"({"prompt": "x", "max_tokens": 1.5})", Endpoint::Completions, "max_tokens", "invalid_type",
       "an integer"},
      {R"({"prompt": "x", "max_tokens": 18446744073709551615})", Endpoint::Completions, "max_tokens",
       "invalid_value", "at most 4096"},
      {R"({"prompt": "x", "temperature": 2.5})", Endpoint::Completions, "temperature",
       "invalid_value", "[0.0, 2.0]"},
      {R"({"prompt": "x", "temperature": true})", Endpoint::Completions, "temperature",
       "invalid_type", "a number"},
      {R"({"prompt": "x", "top_p": 0})", Endpoint::Completions, "top_p", "invalid_value", "(0.0"},
      {R"({"prompt": "x", "min_p": -0.1})", Endpoint::Completions, "min_p", "invalid_value", ""},
      {R"({"prompt": "x", "top_k": "5"})", Endpoint::Completions, "top_k", "invalid_type", ""},
      {R"({"prompt": "x", "seed": [1]})", Endpoint::Completions, "seed", "invalid_type", ""},
      {R"({"prompt": "x", "stop": [1]})", Endpoint::Completions, "stop", "invalid_type", ""},
      {R"({"prompt": "x", "stop": ""})", Endpoint::Completions, "stop", "invalid_value", "empty"},
      {R"({"prompt": "x", "stream": 1})", Endpoint::Completions, "stream", "invalid_type", ""},
      {R"({"prompt": "x", "stream_options": {"include_usage": "y"}})", Endpoint::Completions,
       "stream_options.include_usage", "invalid_type", ""},
      {R"({"prompt": "x", "n": 2})", Endpoint::Completions, "n", "unsupported_parameter", ""},
      {R"({"prompt": "x", "best_of": 3})", Endpoint::Completions, "best_of", "unsupported_parameter", ""},
      {R"({"prompt": "x", "suffix": "y"})", Endpoint::Completions, "suffix", "unsupported_parameter", ""},
      {R"({"prompt": "x", "logprobs": true})", Endpoint::Completions, "logprobs",
       "unsupported_parameter", ""},
      {R"({"prompt": "x", "tools": [{}]})", Endpoint::Completions, "tools", "unsupported_parameter", ""},
      {R"({"prompt": "x", "response_format": {"type": "json_object"}})", Endpoint::Completions,
       "response_format", "unsupported_parameter", ""},
      {R"({"prompt": "x", "frequency_penalty": 3})", Endpoint::Completions, "frequency_penalty",
       "invalid_value", ""},
      {R"({"prompt": "x", "repetition_penalty": 0})", Endpoint::Completions, "repetition_penalty",
       "invalid_value", ""},
      {R"({"messages": {}})", Endpoint::Chat, "messages", "invalid_type", ""},
      {R"({"messages": [1]})", Endpoint::Chat, "messages[0]", "invalid_type", ""},
      {R"({"messages": [{"role": "user", "content": 5}]})", Endpoint::Chat, "messages[0].content",
       "invalid_type", ""},
      {R"({"messages": [{"role": "user", "content": [{"type": "image_url"}]}]})", Endpoint::Chat,
       "messages[0].content", "invalid_value", "text only"},
      {R"({"messages": [{"content": "x"}]})", Endpoint::Chat, "messages[0].role", "invalid_type", ""},
  };
  for (const Bad &b : cases) {
    CompletionRequest r;
    std::optional<ApiError> e = parse(b.body, r, b.endpoint);
    ASSERT_TRUE(e) << b.body;
    EXPECT_EQ(e->status, 400) << b.body;
    EXPECT_EQ(e->param, b.param) << b.body;
    EXPECT_EQ(e->code, b.code) << b.body;
    EXPECT_NE(e->message.find(b.message), std::string::npos) << b.body << ": " << e->message;
    // The body is OpenAI's error object, param and code null when empty.
    nlohmann::json j = nlohmann::json::parse(errorBody(*e));
    EXPECT_EQ(j["error"]["message"], e->message);
    EXPECT_EQ(j["error"]["type"], "invalid_request_error");
    EXPECT_EQ(j["error"]["param"].is_null(), e->param.empty());
  }
}

TEST(Request, LimitsAreTheServers) {
  RequestLimits limits;
  limits.maxTokens = 10;
  limits.maxStops = 1;
  CompletionRequest r;
  EXPECT_TRUE(parseCompletionRequest(R"({"prompt": "x", "max_tokens": 11})", Endpoint::Completions,
                                     limits, r));
  EXPECT_FALSE(parseCompletionRequest(R"({"prompt": "x", "max_tokens": 10})", Endpoint::Completions,
                                      limits, r));
  EXPECT_TRUE(parseCompletionRequest(R"({"prompt": "x", "stop": ["a", "b"]})", Endpoint::Completions,
                                     limits, r));
}

} // namespace
