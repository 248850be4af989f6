// Model::prefillTogether through @forward_sequence_batched (ssm-import --prefill-batch 3) on the
// tiny Mamba-1 (a pure SSM) and the tiny LFM2 (gated convs and attention with KV caches):
// streams at different positions (each first prefilled alone by a different number of
// tokens), with prompts of different lengths (the calls of 4 and 2 tokens split into a
// call of 3 streams and one of 2, a lone stream's call, the one-token remainders through
// the batched step), end with the logits and every state of the same streams prefilled
// one by one through Stream::prefill (the B = 1 path, itself checked against the
// reference interpreter by the import tests), within 1e-6 + 1e-5 x each tensor's largest
// magnitude, the batched step's tolerance (the batched kernels sum in another order; the
// lit test Import/prefill-batched checks the function itself against the reference). A second round continues from there
// (the caches' rows past the first), batching only the calls of up to 2 tokens
// (prefillTogether's longestBatched). Bad calls are refused before anything runs.
#include "runtime/Model.h"
#include "runtime/ssm_runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

using ssm::rt::Code;
using ssm::rt::Model;
using ssm::rt::Status;
using ssm::rt::Stream;

std::unique_ptr<Model> openModel(const std::string &folder) {
  Status st;
  std::unique_ptr<Model> m = Model::open(std::string(SSM_BATCHED_PREFILL_DIR) + "/" + folder, st);
  EXPECT_TRUE(st.isOk()) << st.message();
  return m;
}

/// Within 1e-6 + 1e-5 x the largest magnitude of `want` (as the batched step's tests).
void expectClose(const std::vector<float> &got, const std::vector<float> &want,
                 const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  float scale = 0;
  for (float v : want)
    scale = std::max(scale, std::fabs(v));
  const float tol = 1e-6f + 1e-5f * scale;
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= tol) && bad++ < 5)
      ADD_FAILURE() << what << "[" << i << "]: " << got[i] << " vs " << want[i];
}

std::vector<float> values(const ssm::rt::HostTensor &t) {
  auto v = t.f32();
  return std::vector<float>(v.begin(), v.end());
}

void expectSameStreams(const Stream &got, const Stream &want, const std::string &what) {
  ASSERT_EQ(got.position(), want.position()) << what;
  expectClose(got.logits(), want.logits(), what + " logits");
  const auto &states = got.model().spec().states;
  for (size_t s = 0; s < states.size(); ++s) {
    // A cache's rows past the position were never written: compare those read.
    std::vector<float> a = values(got.state(s)), b = values(want.state(s));
    if (states[s].kind == ssm::rt::StateKind::Cache && states[s].axis == 0) {
      const size_t row = a.size() / static_cast<size_t>(got.state(s).shape[0]);
      a.resize(row * static_cast<size_t>(got.position()));
      b.resize(row * static_cast<size_t>(got.position()));
    }
    expectClose(a, b, what + " state '" + states[s].name + "'");
  }
}

class BatchedPrefill : public ::testing::TestWithParam<const char *> {};

TEST_P(BatchedPrefill, StreamsPrefilledTogetherEqualStreamsAlone) {
  std::unique_ptr<Model> model = openModel(GetParam());
  ASSERT_TRUE(model);
  ASSERT_EQ(model->prefillBatch(), 3);
  ASSERT_EQ(model->batchedSequenceLengths(), (std::vector<int64_t>{2, 4}));
  // The buffers of the batched step and of the 2-token calls made before
  // the first call (as ssm-serve does at start); those of the 4-token calls
  // at their first call.
  ASSERT_TRUE(model->reserveBatchBuffers(2).isOk());
  const int64_t vocab = model->vocab();
  std::mt19937 rng(11);
  auto prompt = [&](size_t n) {
    std::vector<int32_t> t(n);
    for (int32_t &x : t)
      x = static_cast<int32_t>(rng() % static_cast<uint32_t>(vocab));
    return t;
  };
  // Six streams: their positions before (0 to 7 tokens read alone) and two
  // rounds of prompts of different lengths (plans: 13 = 4+4+4+1, 11 = 4+4+2+1,
  // 9 = 4+4+1, 4, 6 = 4+2, 1).
  const std::vector<size_t> before = {0, 3, 7, 1, 5, 2};
  const std::vector<std::vector<size_t>> rounds = {{13, 11, 9, 4, 6, 1}, {5, 8, 2, 3, 12, 7}};
  std::vector<std::unique_ptr<Stream>> together, alone;
  for (size_t i = 0; i < before.size(); ++i) {
    together.push_back(std::make_unique<Stream>(*model));
    alone.push_back(std::make_unique<Stream>(*model));
    if (before[i] > 0) {
      std::vector<int32_t> t = prompt(before[i]);
      ASSERT_TRUE(together[i]->prefill(t.data(), t.size()).isOk());
      ASSERT_TRUE(alone[i]->prefill(t.data(), t.size()).isOk());
    }
  }
  for (size_t r = 0; r < rounds.size(); ++r) {
    std::vector<std::vector<int32_t>> prompts;
    std::vector<const int32_t *> ptrs;
    std::vector<size_t> counts;
    std::vector<Stream *> streams;
    for (size_t i = 0; i < before.size(); ++i) {
      prompts.push_back(prompt(rounds[r][i]));
      counts.push_back(rounds[r][i]);
      streams.push_back(together[i].get());
    }
    for (const auto &p : prompts)
      ptrs.push_back(p.data());
    size_t failed = 99;
    // Round 1 batches only the calls of up to 2 tokens (those of 4 run alone).
    Status st = model->prefillTogether(streams.data(), streams.size(), ptrs.data(), counts.data(),
                                       &failed, r == 1 ? 2 : INT64_MAX);
    ASSERT_TRUE(st.isOk()) << st.message();
    for (size_t i = 0; i < before.size(); ++i) {
      ASSERT_TRUE(alone[i]->prefill(prompts[i].data(), prompts[i].size()).isOk());
      expectSameStreams(*together[i], *alone[i],
                        std::string(GetParam()) + " round " + std::to_string(r) + " stream " +
                            std::to_string(i));
    }
  }
  // Then a step each: the streams go on as the ones prefilled alone.
  for (size_t i = 0; i < before.size(); ++i) {
    ASSERT_TRUE(together[i]->step(5).isOk());
    ASSERT_TRUE(alone[i]->step(5).isOk());
    expectSameStreams(*together[i], *alone[i], std::string(GetParam()) + " step " + std::to_string(i));
  }
}

TEST_P(BatchedPrefill, BadCallsAreRefusedBeforeAnythingRuns) {
  std::unique_ptr<Model> model = openModel(GetParam());
  ASSERT_TRUE(model);
  Stream a(*model), b(*model);
  std::vector<int32_t> ok = {1, 2, 3, 4, 5}, bad = {1, 2, static_cast<int32_t>(model->vocab())};
  Stream *streams[] = {&a, &b};
  const int32_t *tokens[] = {ok.data(), bad.data()};
  size_t counts[] = {ok.size(), bad.size()};
  size_t failed = 99;
  Status st = model->prefillTogether(streams, 2, tokens, counts, &failed);
  EXPECT_EQ(st.code(), Code::InvalidArgument) << st.message();
  EXPECT_NE(st.message().find("outside the vocabulary"), std::string::npos) << st.message();
  EXPECT_EQ(failed, 1u);
  EXPECT_EQ(a.position(), 0) << "nothing ran";
  Stream *twice[] = {&a, &a};
  const int32_t *twiceTokens[] = {ok.data(), ok.data()};
  size_t twiceCounts[] = {ok.size(), ok.size()};
  st = model->prefillTogether(twice, 2, twiceTokens, twiceCounts, &failed);
  EXPECT_EQ(st.code(), Code::InvalidArgument) << st.message();
  EXPECT_EQ(failed, 1u);
  size_t empty[] = {ok.size(), 0};
  st = model->prefillTogether(streams, 2, tokens, empty, &failed);
  EXPECT_EQ(st.code(), Code::InvalidArgument) << st.message();
  EXPECT_EQ(model->prefillTogether(streams, 0, tokens, counts).code(), Code::InvalidArgument);
  // An absurd count (SIZE_MAX on a 3-token array) is refused by the length
  // checks before the vocabulary scan reads past the array: its message is
  // about the length, not about the out-of-vocabulary token at index 2 (that
  // scan ran first and read the caller's array up to it).
  size_t absurd[] = {ok.size(), SIZE_MAX};
  st = model->prefillTogether(streams, 2, tokens, absurd, &failed);
  EXPECT_FALSE(st.isOk());
  EXPECT_EQ(st.message().find("outside the vocabulary"), std::string::npos) << st.message();
  EXPECT_EQ(failed, 1u);
  EXPECT_EQ(a.position(), 0) << "nothing ran";
  if (model->contextLength() > 0) {
    std::vector<int32_t> longer(static_cast<size_t>(model->contextLength()) + 1, 1);
    const int32_t *full[] = {ok.data(), longer.data()};
    size_t fullCounts[] = {ok.size(), longer.size()};
    st = model->prefillTogether(streams, 2, full, fullCounts, &failed);
    EXPECT_EQ(st.code(), Code::ContextFull) << st.message();
    EXPECT_EQ(failed, 1u);
    EXPECT_EQ(a.position(), 0) << "nothing ran";
  }
}

// The C API (ssm_streams_prefill): four streams' prompts of 9 (4+4+1), 6 (4+2),
// 4 and 3 (2+1) tokens prefilled together end with the logits and position of
// each prompt prefilled alone through ssm_stream_prefill (same tolerance);
// bad calls change no stream and name the stream.
TEST_P(BatchedPrefill, TheCApiPrefillsStreamsTogetherAsEachAlone) {
  const std::string dir = std::string(SSM_BATCHED_PREFILL_DIR) + "/" + GetParam();
  ssm_model_t *model = nullptr;
  ASSERT_EQ(ssm_model_open(dir.c_str(), &model), SSM_OK) << ssm_last_error();
  EXPECT_EQ(ssm_model_prefill_batch(model), 3);
  const int64_t vocab = ssm_model_vocab_size(model);
  std::mt19937 rng(5);
  const std::vector<size_t> lengths = {9, 6, 4, 3};
  std::vector<std::vector<int32_t>> prompts;
  for (size_t n : lengths) {
    prompts.emplace_back(n);
    for (int32_t &t : prompts.back())
      t = static_cast<int32_t>(rng() % static_cast<uint32_t>(vocab));
  }
  std::vector<ssm_stream_t *> together(lengths.size()), alone(lengths.size());
  for (size_t i = 0; i < lengths.size(); ++i) {
    ASSERT_EQ(ssm_stream_create(model, &together[i]), SSM_OK);
    ASSERT_EQ(ssm_stream_create(model, &alone[i]), SSM_OK);
  }
  std::vector<const int32_t *> tokens;
  for (const auto &p : prompts)
    tokens.push_back(p.data());
  // Refused before anything runs: a repeated stream, an empty prompt, a token
  // outside the vocabulary, n 0, NULL arguments.
  ssm_stream_t *twice[] = {together[0], together[0]};
  size_t counts2[] = {lengths[0], lengths[0]};
  const int32_t *tokens2[] = {tokens[0], tokens[0]};
  EXPECT_EQ(ssm_streams_prefill(twice, 2, tokens2, counts2, nullptr), SSM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ssm_last_error()).find("stream 1"), std::string::npos) << ssm_last_error();
  auto namedOnce = [](const std::string &m) { return m.find("stream 1") == m.rfind("stream 1"); };
  EXPECT_TRUE(namedOnce(ssm_last_error())) << ssm_last_error();
  size_t empty[] = {lengths[0], 0};
  EXPECT_EQ(ssm_streams_prefill(together.data(), 2, tokens.data(), empty, nullptr),
            SSM_ERROR_INVALID_ARGUMENT);
  std::vector<int32_t> bad = {1, static_cast<int32_t>(vocab)};
  const int32_t *badTokens[] = {tokens[0], bad.data()};
  size_t badCounts[] = {lengths[0], bad.size()};
  EXPECT_EQ(ssm_streams_prefill(together.data(), 2, badTokens, badCounts, nullptr),
            SSM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ssm_last_error()).find("stream 1"), std::string::npos) << ssm_last_error();
  EXPECT_TRUE(namedOnce(ssm_last_error())) << ssm_last_error();
  EXPECT_EQ(ssm_streams_prefill(together.data(), 0, tokens.data(), counts2, nullptr),
            SSM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ssm_streams_prefill(nullptr, 1, tokens.data(), counts2, nullptr),
            SSM_ERROR_INVALID_ARGUMENT);
  for (ssm_stream_t *s : together)
    EXPECT_EQ(ssm_stream_position(s), 0) << "nothing ran";
  // Streams of two models are refused.
  ssm_model_t *other = nullptr;
  ASSERT_EQ(ssm_model_open(dir.c_str(), &other), SSM_OK) << ssm_last_error();
  ssm_stream_t *foreign = nullptr;
  ASSERT_EQ(ssm_stream_create(other, &foreign), SSM_OK);
  ssm_stream_t *mixed[] = {together[0], foreign};
  EXPECT_EQ(ssm_streams_prefill(mixed, 2, tokens.data(), lengths.data(), nullptr),
            SSM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ssm_stream_position(foreign), 0);
  ssm_stream_free(foreign);
  ssm_model_free(other);

  std::vector<const float *> logits(lengths.size(), nullptr);
  ASSERT_EQ(ssm_streams_prefill(together.data(), together.size(), tokens.data(), lengths.data(),
                                logits.data()),
            SSM_OK)
      << ssm_last_error();
  for (size_t i = 0; i < lengths.size(); ++i) {
    ASSERT_EQ(ssm_stream_prefill(alone[i], prompts[i].data(), prompts[i].size(), nullptr), SSM_OK)
        << ssm_last_error();
    const float *want = nullptr;
    ASSERT_EQ(ssm_stream_logits(alone[i], &want), SSM_OK);
    EXPECT_EQ(ssm_stream_position(together[i]), static_cast<int64_t>(lengths[i]));
    ASSERT_NE(logits[i], nullptr);
    expectClose(std::vector<float>(logits[i], logits[i] + vocab),
                std::vector<float>(want, want + vocab),
                std::string(GetParam()) + " C API stream " + std::to_string(i) + " logits");
  }
  for (size_t i = 0; i < lengths.size(); ++i) {
    ssm_stream_free(together[i]);
    ssm_stream_free(alone[i]);
  }
  ssm_model_free(model);
}

INSTANTIATE_TEST_SUITE_P(Models, BatchedPrefill, ::testing::Values("mamba", "lfm2"),
                         [](const auto &info) { return std::string(info.param); });

} // namespace
