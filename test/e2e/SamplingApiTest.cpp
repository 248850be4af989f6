// Sampling and generation through the installed interface (ssm_runtime.h's ssm_sampler_* and ssm_stream_generate, ssm_runtime.hpp's Sampler and generate) on the model library's compiled RWKV-4 (byte tokens): greedy generation is the argmax loop, a seed repeats a stream, temperature 0 and top-k 1 are greedy, the text is valid UTF-8 and ends before a stop string, stop tokens and the callback end it, bad values are refused naming the field.
#include "ssm_runtime.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using ssm::runtime::Error;
using ssm::runtime::Generation;
using ssm::runtime::GenerateOptions;
using ssm::runtime::Model;
using ssm::runtime::Sampler;
using ssm::runtime::Stream;

namespace {

const std::vector<int32_t> kPrompt = {34, 105, 110}; // `"in`

std::string modelDir() {
  std::string dir = std::string(SSM_MODEL_LIBRARY_DIR) + "/m";
  EXPECT_TRUE(fs::exists(dir + "/compiled/l2/manifest.json"))
      << dir << " is not prepared: run the tests through ctest (fixture model-library.setup)";
  return dir;
}

/// Greedy by hand: the argmax (lowest id among equals) of each step's logits.
std::vector<int32_t> argmaxLoop(Model &model, size_t n) {
  Stream s(model);
  std::vector<float> logits = s.prefill(kPrompt);
  std::vector<int32_t> out;
  for (;;) {
    out.push_back(static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin()));
    if (out.size() == n)
      return out;
    logits = s.step(out.back());
  }
}

Generation run(Model &model, int64_t n, const ssm_sampling_params_t *params,
               GenerateOptions options = {}) {
  Stream s(model);
  s.prefill(kPrompt);
  std::unique_ptr<Sampler> sampler;
  if (params) {
    sampler = std::make_unique<Sampler>(*params);
    sampler->accept(kPrompt);
    options.sampler = sampler.get();
  }
  return ssm::runtime::generate(s, n, options);
}

bool validUtf8(const std::string &s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size())
      return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80)
        return false;
    i += n;
  }
  return true;
}

ssm_sampling_params_t sampled(uint64_t seed) {
  ssm_sampling_params_t p = ssm_sampling_params_default();
  p.temperature = 1.0f;
  p.top_p = 0.95f;
  p.min_p = 0.02f;
  p.repetition_penalty = 1.1f;
  p.seed = seed;
  return p;
}

TEST(SamplingApi, Version) { EXPECT_STREQ(ssm_runtime_version(), "0.11.0"); }

TEST(SamplingApi, GreedyGenerationIsTheArgmaxLoop) {
  Model model(modelDir());
  const std::vector<int32_t> want = argmaxLoop(model, 20);
  Generation g = run(model, 20, nullptr);
  EXPECT_EQ(g.tokens, want);
  EXPECT_EQ(g.reason, SSM_STOP_MAX_TOKENS);
  ssm_sampling_params_t t0 = ssm_sampling_params_default(); // temperature 0
  t0.seed = 99;
  EXPECT_EQ(run(model, 20, &t0).tokens, want);
  ssm_sampling_params_t k1 = sampled(5);
  k1.repetition_penalty = 1.0f;
  k1.top_k = 1;
  EXPECT_EQ(run(model, 20, &k1).tokens, want);
}

TEST(SamplingApi, ASeedRepeatsAStream) {
  Model model(modelDir());
  ssm_sampling_params_t p = sampled(1234);
  Generation a = run(model, 24, &p), b = run(model, 24, &p);
  ASSERT_EQ(a.tokens.size(), 24u);
  EXPECT_EQ(a.tokens, b.tokens);
  EXPECT_EQ(a.text, b.text);
  EXPECT_NE(a.tokens, argmaxLoop(model, 24)) << "not sampling";
  ssm_sampling_params_t q = sampled(1235);
  EXPECT_NE(run(model, 24, &q).tokens, a.tokens);

  // ssm_sampler_sample and ssm_stream_step by hand give the same tokens: the
  // generation loop draws nothing more.
  ssm_sampler_t *sampler = nullptr;
  ASSERT_EQ(ssm_sampler_create(&p, &sampler), SSM_OK);
  ASSERT_EQ(ssm_sampler_accept(sampler, kPrompt.data(), kPrompt.size()), SSM_OK);
  Stream s(model);
  s.prefill(kPrompt);
  const float *logits = nullptr;
  ASSERT_EQ(ssm_stream_logits(s.get(), &logits), SSM_OK);
  std::vector<int32_t> byHand;
  for (int i = 0; i < 24; ++i) {
    int32_t t = -1;
    ASSERT_EQ(ssm_sampler_sample(sampler, logits, static_cast<size_t>(model.vocabSize()), &t), SSM_OK);
    byHand.push_back(t);
    ASSERT_EQ(ssm_stream_step(s.get(), t, &logits), SSM_OK);
  }
  EXPECT_EQ(byHand, a.tokens);
  // reset(seed) starts the same draws again (the prompt accepted again).
  ASSERT_EQ(ssm_sampler_reset(sampler, 1234), SSM_OK);
  ASSERT_EQ(ssm_sampler_accept(sampler, kPrompt.data(), kPrompt.size()), SSM_OK);
  s.reset();
  s.prefill(kPrompt);
  int32_t first = -1;
  ASSERT_EQ(ssm_stream_logits(s.get(), &logits), SSM_OK);
  ASSERT_EQ(ssm_sampler_sample(sampler, logits, static_cast<size_t>(model.vocabSize()), &first), SSM_OK);
  EXPECT_EQ(first, a.tokens[0]);
  ssm_sampler_free(sampler);
}

TEST(SamplingApi, TextAndStops) {
  Model model(modelDir());
  ssm_sampling_params_t p = sampled(7);
  Generation g = run(model, 40, &p);
  EXPECT_TRUE(validUtf8(g.text)) << g.text;
  ASSERT_FALSE(g.text.empty());

  // A stop string: the greedy text's first printable ASCII character past the start.
  Generation greedy = run(model, 40, nullptr);
  size_t i = 1;
  while (i < greedy.text.size() && !(greedy.text[i] > ' ' && greedy.text[i] < 0x7f))
    ++i;
  ASSERT_LT(i, greedy.text.size()) << "no ASCII in the greedy text: " << greedy.text;
  const std::string stop(1, greedy.text[i]);
  GenerateOptions o;
  o.stop = {stop, "\x01\x02\x03"};
  std::vector<std::string> pieces;
  o.onText = [&](int32_t, std::string_view t) {
    pieces.emplace_back(t);
    return true;
  };
  Generation cut = run(model, 40, nullptr, o);
  EXPECT_EQ(cut.reason, SSM_STOP_STRING);
  EXPECT_EQ(cut.text, greedy.text.substr(0, greedy.text.find(stop)));
  EXPECT_LT(cut.tokens.size(), greedy.tokens.size());

  // A stop token: the greedy tokens before its first occurrence.
  const int32_t stopToken = greedy.tokens[5];
  const size_t first = static_cast<size_t>(
      std::find(greedy.tokens.begin(), greedy.tokens.end(), stopToken) - greedy.tokens.begin());
  GenerateOptions st;
  st.stopTokens = {stopToken};
  Generation byToken = run(model, 40, nullptr, st);
  EXPECT_EQ(byToken.reason, SSM_STOP_TOKEN);
  EXPECT_EQ(byToken.tokens, std::vector<int32_t>(greedy.tokens.begin(), greedy.tokens.begin() + first));

  // The callback: false after 3 tokens.
  GenerateOptions cb;
  int calls = 0;
  cb.onText = [&](int32_t, std::string_view) { return ++calls < 3; };
  Generation byCallback = run(model, 40, nullptr, cb);
  EXPECT_EQ(byCallback.reason, SSM_STOP_CALLBACK);
  EXPECT_EQ(byCallback.tokens.size(), 3u);
}

TEST(SamplingApi, Refusals) {
  ssm_sampler_t *sampler = reinterpret_cast<ssm_sampler_t *>(1);
  ssm_sampling_params_t p = ssm_sampling_params_default();
  p.temperature = -1.0f;
  EXPECT_EQ(ssm_sampler_create(&p, &sampler), SSM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(sampler, nullptr);
  EXPECT_NE(std::string(ssm_last_error()).find("temperature"), std::string::npos) << ssm_last_error();
  p = ssm_sampling_params_default();
  p.top_p = 1.5f;
  EXPECT_EQ(ssm_sampler_create(&p, &sampler), SSM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ssm_last_error()).find("top_p"), std::string::npos) << ssm_last_error();
  p = ssm_sampling_params_default();
  p.penalty_last_n = -7;
  EXPECT_THROW(Sampler{p}, Error);
  EXPECT_EQ(ssm_sampler_create(nullptr, &sampler), SSM_ERROR_INVALID_ARGUMENT);

  Sampler ok;
  int32_t t = 0;
  EXPECT_EQ(ssm_sampler_sample(ok.get(), nullptr, 4, &t), SSM_ERROR_INVALID_ARGUMENT);
  float l[2] = {0.0f, 1.0f};
  EXPECT_EQ(ssm_sampler_sample(ok.get(), l, 0, &t), SSM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ssm_sampler_sample(ok.get(), l, 2, &t), SSM_OK);
  EXPECT_EQ(t, 1);

  Model model(modelDir());
  Stream s(model);
  int64_t n = -1;
  ssm_stop_reason_t reason = SSM_STOP_CALLBACK;
  EXPECT_EQ(ssm_stream_generate(s.get(), nullptr, nullptr, 4, nullptr, 0, nullptr, 0, nullptr,
                                nullptr, &n, &reason),
            SSM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ssm_last_error()).find("prefill a prompt first"), std::string::npos);
  EXPECT_EQ(n, 0);
  EXPECT_EQ(reason, SSM_STOP_MAX_TOKENS);
  s.prefill(kPrompt);
  EXPECT_EQ(ssm_stream_generate(s.get(), nullptr, nullptr, -1, nullptr, 0, nullptr, 0, nullptr,
                                nullptr, nullptr, nullptr),
            SSM_ERROR_INVALID_ARGUMENT);
  const char *null[1] = {nullptr};
  EXPECT_EQ(ssm_stream_generate(s.get(), nullptr, nullptr, 4, nullptr, 0, null, 1, nullptr,
                                nullptr, nullptr, nullptr),
            SSM_ERROR_INVALID_ARGUMENT);
  // No callback: the tokens still run.
  EXPECT_EQ(ssm_stream_generate(s.get(), nullptr, nullptr, 4, nullptr, 0, nullptr, 0, nullptr,
                                nullptr, &n, &reason),
            SSM_OK);
  EXPECT_EQ(n, 4);
  EXPECT_EQ(s.position(), 3 + 3);
}

} // namespace
