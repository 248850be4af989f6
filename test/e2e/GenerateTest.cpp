// The generation loop (runtime/Generate.h) over a scripted stream whose logits are known in advance: which tokens are handed out, how many steps run, and how it stops.
#include "runtime/Generate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace {

using namespace ssm::rt;

/// A stream of vocabulary 5 whose logits after token t favour (t + 2) mod 5:
/// from a prompt ending in 0 greedy decoding gives 2, 4, 1, 3, 0, 2, ...
class ScriptedStream : public TokenStream {
public:
  void reset() override {
    logits_.clear();
    position_ = 0;
  }
  Status prefill(const int32_t *tokens, size_t n, std::vector<float> *) override {
    for (size_t i = 0; i < n; ++i)
      if (Status st = step(tokens[i]); !st)
        return st;
    return {};
  }
  Status step(int32_t token) override {
    if (failAt >= 0 && position_ == failAt)
      return {Code::KernelFailed, "scripted failure"};
    stepped.push_back(token);
    logits_.assign(5, 0.0f);
    logits_[(token + 2) % 5] = 1.0f;
    ++position_;
    return {};
  }
  const std::vector<float> &logits() const override { return logits_; }
  int64_t position() const override { return position_; }

  std::vector<int32_t> stepped;
  int64_t failAt = -1;

private:
  std::vector<float> logits_;
  int64_t position_ = 0;
};

TEST(Generate, ArgmaxTakesTheFirstMaximumAndSkipsNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> a = {0.5f, 2.0f, 2.0f, -1.0f};
  EXPECT_EQ(argmaxToken(a.data(), a.size()), 1);
  std::vector<float> b = {nan, -3.0f, nan, -2.0f};
  EXPECT_EQ(argmaxToken(b.data(), b.size()), 3);
  std::vector<float> c = {nan, nan};
  EXPECT_EQ(argmaxToken(c.data(), c.size()), 0);
  EXPECT_EQ(argmaxToken(nullptr, 0), -1);
}

TEST(Generate, HandsOutTokensAndStepsAllButTheLast) {
  ScriptedStream s;
  int32_t prompt = 0;
  ASSERT_TRUE(s.prefill(&prompt, 1, nullptr));
  std::vector<int32_t> out;
  GenerateResult r;
  GenerateOptions o;
  o.maxTokens = 4;
  ASSERT_TRUE(generate(s, o, [&](int32_t t) { out.push_back(t); return true; }, &r));
  EXPECT_EQ(out, (std::vector<int32_t>{2, 4, 1, 3}));
  EXPECT_EQ(r.tokens, 4);
  EXPECT_FALSE(r.stopped);
  // The prompt's token, then the first three generated: n tokens, n - 1 steps.
  EXPECT_EQ(s.stepped, (std::vector<int32_t>{0, 2, 4, 1}));
}

TEST(Generate, StopsAtAStopTokenOrWhenTheCallerSaysSo) {
  ScriptedStream s;
  int32_t prompt = 0;
  ASSERT_TRUE(s.prefill(&prompt, 1, nullptr));
  std::vector<int32_t> out;
  GenerateResult r;
  GenerateOptions o;
  o.maxTokens = 10;
  o.stopTokens = {1};
  ASSERT_TRUE(generate(s, o, [&](int32_t t) { out.push_back(t); return true; }, &r));
  EXPECT_EQ(out, (std::vector<int32_t>{2, 4})); // 1 is chosen next: not handed out
  EXPECT_TRUE(r.stopped);

  s.reset();
  ASSERT_TRUE(s.prefill(&prompt, 1, nullptr));
  out.clear();
  o.stopTokens.clear();
  ASSERT_TRUE(generate(s, o, [&](int32_t t) { out.push_back(t); return out.size() < 3; }, &r));
  EXPECT_EQ(out.size(), 3u);
  EXPECT_TRUE(r.stopped);
  EXPECT_EQ(r.tokens, 3);
}

TEST(Generate, ACustomChooserAndErrors) {
  ScriptedStream s;
  GenerateOptions o;
  o.maxTokens = 2;
  // No prompt yet: no logits to choose from.
  Status st = generate(s, o, [](int32_t) { return true; });
  EXPECT_EQ(st.code(), Code::InvalidArgument);
  o.maxTokens = -1;
  EXPECT_EQ(generate(s, o, [](int32_t) { return true; }).code(), Code::InvalidArgument);

  int32_t prompt = 3;
  ASSERT_TRUE(s.prefill(&prompt, 1, nullptr));
  o.maxTokens = 3;
  o.choose = [](const std::vector<float> &) { return 4; };
  std::vector<int32_t> out;
  ASSERT_TRUE(generate(s, o, [&](int32_t t) { out.push_back(t); return true; }));
  EXPECT_EQ(out, (std::vector<int32_t>{4, 4, 4}));

  // A failing step ends the loop with its error; what was handed out counts.
  s.failAt = s.position() + 1;
  GenerateResult r;
  st = generate(s, o, [](int32_t) { return true; }, &r);
  EXPECT_EQ(st.code(), Code::KernelFailed);
  EXPECT_EQ(r.tokens, 2);
}

} // namespace
