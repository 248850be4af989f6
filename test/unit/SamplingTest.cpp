// Sampling (runtime/Sampling.h) and tokens to text (runtime/TokenText.h): seeds, greedy equivalences, the filters' candidate sets on hand-made logits, the draw's distribution, llama.cpp's penalties, UTF-8 hold-back and stop strings.
#include "runtime/Sampling.h"
#include "runtime/TokenText.h"
#include "runtime/tokenizer/Tokenizer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <random>
#include <set>

namespace {

using ssm::rt::argmaxToken;
using ssm::rt::SampleCandidate;
using ssm::rt::Sampler;
using ssm::rt::SamplingParams;
using ssm::rt::TokenTextStream;

std::vector<float> randomLogits(size_t n, uint32_t seed, float scale = 3.0f) {
  std::mt19937 g(seed);
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> l(n);
  for (float &x : l)
    x = d(g);
  return l;
}

/// Logits whose softmax is `p` (at temperature 1).
std::vector<float> logitsOf(const std::vector<double> &p) {
  std::vector<float> l;
  for (double x : p)
    l.push_back(static_cast<float>(std::log(x)));
  return l;
}

std::set<int32_t> ids(const std::vector<SampleCandidate> &c) {
  std::set<int32_t> s;
  for (const SampleCandidate &x : c)
    s.insert(x.id);
  return s;
}

SamplingParams temperature(float t, uint64_t seed = 7) {
  SamplingParams p;
  p.temperature = t;
  p.seed = seed;
  return p;
}

TEST(Sampling, SameSeedSameTokens) {
  const std::vector<float> logits = randomLogits(50, 1, 1.0f);
  SamplingParams p = temperature(1.0f, 1234);
  p.topK = 20;
  p.topP = 0.9f;
  p.minP = 0.01f;
  p.repetitionPenalty = 1.2f;
  auto run = [&](uint64_t seed) {
    SamplingParams q = p;
    q.seed = seed;
    Sampler s(q);
    std::vector<int32_t> out;
    for (int i = 0; i < 300; ++i)
      out.push_back(s.sample(logits));
    return out;
  };
  const std::vector<int32_t> a = run(1234), b = run(1234), c = run(1235);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c); // 300 draws from about 20 tokens: another seed differs
  EXPECT_GT(std::set<int32_t>(a.begin(), a.end()).size(), 3u) << "not sampling at all";

  // reset(seed) gives a new sampler's draws.
  SamplingParams q = p;
  Sampler s(q);
  for (int i = 0; i < 17; ++i)
    s.sample(logits);
  s.reset(1234);
  std::vector<int32_t> again;
  for (int i = 0; i < 300; ++i)
    again.push_back(s.sample(logits));
  EXPECT_EQ(again, a);
}

TEST(Sampling, OneSamplerPerStreamWhateverTheInterleaving) {
  // Two streams' samplers used in different orders (as in batches of
  // different shapes) give each stream the same tokens.
  const std::vector<float> la = randomLogits(30, 2, 1.0f), lb = randomLogits(30, 3, 1.0f);
  Sampler a1(temperature(1.0f, 5)), b1(temperature(1.0f, 6));
  Sampler a2(temperature(1.0f, 5)), b2(temperature(1.0f, 6));
  std::vector<int32_t> ta1, tb1, ta2, tb2;
  for (int i = 0; i < 100; ++i) {
    ta1.push_back(a1.sample(la));
    tb1.push_back(b1.sample(lb));
  }
  for (int i = 0; i < 100; ++i)
    tb2.push_back(b2.sample(lb));
  for (int i = 0; i < 100; ++i)
    ta2.push_back(a2.sample(la));
  EXPECT_EQ(ta1, ta2);
  EXPECT_EQ(tb1, tb2);
}

TEST(Sampling, TemperatureZeroIsGreedy) {
  for (uint32_t seed = 0; seed < 50; ++seed) {
    std::vector<float> l = randomLogits(100, seed);
    if (seed % 5 == 0) // ties: the lowest index, as argmaxToken
      l[17] = l[63] = *std::max_element(l.begin(), l.end()) + 1.0f;
    if (seed % 7 == 0)
      l[3] = std::numeric_limits<float>::quiet_NaN();
    Sampler s(temperature(0.0f, seed));
    EXPECT_EQ(s.sample(l), argmaxToken(l.data(), l.size())) << "seed " << seed;
  }
  // The other filters do not matter at temperature 0.
  SamplingParams p = temperature(0.0f);
  p.topK = 5;
  p.topP = 0.1f;
  p.minP = 0.5f;
  Sampler s(p);
  const std::vector<float> l = randomLogits(1000, 99);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(s.sample(l), argmaxToken(l.data(), l.size()));
}

TEST(Sampling, TopKOneIsGreedy) {
  for (uint32_t seed = 0; seed < 50; ++seed) {
    const std::vector<float> l = randomLogits(200, seed + 100, 0.5f);
    SamplingParams p = temperature(2.0f, seed);
    p.topK = 1;
    Sampler s(p);
    for (int i = 0; i < 5; ++i)
      EXPECT_EQ(s.sample(l), argmaxToken(l.data(), l.size())) << "seed " << seed;
  }
}

// Probabilities 0.5, 0.3, 0.15, 0.05 on ids 2, 0, 3, 1.
const std::vector<double> kP = {0.3, 0.05, 0.5, 0.15};

TEST(Sampling, TopPKeepsTheSmallestPrefixReachingP) {
  const std::vector<float> l = logitsOf(kP);
  auto keep = [&](float topP) {
    SamplingParams p = temperature(1.0f);
    p.topP = topP;
    return Sampler(p).candidates(l.data(), l.size());
  };
  EXPECT_EQ(ids(keep(0.4f)), (std::set<int32_t>{2}));
  EXPECT_EQ(ids(keep(0.75f)), (std::set<int32_t>{2, 0}));
  EXPECT_EQ(ids(keep(0.9f)), (std::set<int32_t>{2, 0, 3}));
  EXPECT_EQ(ids(keep(0.99f)), (std::set<int32_t>{2, 0, 3, 1}));
  EXPECT_EQ(ids(keep(0.0f)), (std::set<int32_t>{2})); // at least one
  // The survivors' probabilities, renormalized, largest first.
  std::vector<SampleCandidate> c = keep(0.75f);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].id, 2);
  EXPECT_NEAR(c[0].p, 0.5 / 0.8, 1e-6);
  EXPECT_NEAR(c[1].p, 0.3 / 0.8, 1e-6);
  // A long tail: the block-wise sort reaches p past its first blocks.
  std::vector<double> flat(1000, 1.0 / 1000);
  const std::vector<float> lf = logitsOf(flat);
  SamplingParams p = temperature(1.0f);
  p.topP = 0.5f;
  EXPECT_NEAR(static_cast<double>(Sampler(p).candidates(lf.data(), lf.size()).size()), 500.0, 2.0);
}

TEST(Sampling, MinPKeepsTokensAboveAFractionOfTheBest) {
  const std::vector<float> l = logitsOf(kP);
  auto keep = [&](float minP) {
    SamplingParams p = temperature(1.0f);
    p.minP = minP;
    return ids(Sampler(p).candidates(l.data(), l.size()));
  };
  EXPECT_EQ(keep(0.5f), (std::set<int32_t>{2, 0}));      // >= 0.25
  EXPECT_EQ(keep(0.25f), (std::set<int32_t>{2, 0, 3}));  // >= 0.125
  EXPECT_EQ(keep(0.05f), (std::set<int32_t>{2, 0, 3, 1})); // >= 0.025
  EXPECT_EQ(keep(1.0f), (std::set<int32_t>{2}));
}

TEST(Sampling, FiltersRunInLlamaCppsOrder) {
  const std::vector<float> l = logitsOf(kP);
  // top-k 2 first: top-p then sees 0.625 and 0.375, and 0.625 >= 0.55 alone
  // (top-p first would keep two: 0.5 < 0.55).
  SamplingParams p = temperature(1.0f);
  p.topK = 2;
  p.topP = 0.55f;
  EXPECT_EQ(ids(Sampler(p).candidates(l.data(), l.size())), (std::set<int32_t>{2}));
  // Temperature after top-p and min-p: a high temperature does not widen
  // their sets (applied first, T = 10 would flatten 0.5/0.3/0.15/0.05 and
  // top-p 0.75 would keep three).
  p = temperature(10.0f);
  p.topP = 0.75f;
  EXPECT_EQ(ids(Sampler(p).candidates(l.data(), l.size())), (std::set<int32_t>{2, 0}));
  p = temperature(10.0f);
  p.minP = 0.5f;
  EXPECT_EQ(ids(Sampler(p).candidates(l.data(), l.size())), (std::set<int32_t>{2, 0}));
}

/// The filters as their definitions read: everything sorted (largest logit,
/// then lowest id, first), top-k, top-p over what top-k left, min-p,
/// softmax at the temperature. No penalties.
std::vector<SampleCandidate> naiveFilters(const std::vector<float> &l, const SamplingParams &p) {
  std::vector<SampleCandidate> c;
  for (size_t i = 0; i < l.size(); ++i)
    if (l[i] > -std::numeric_limits<float>::infinity())
      c.push_back({static_cast<int32_t>(i), l[i], 0.0});
  std::sort(c.begin(), c.end(), [](const SampleCandidate &a, const SampleCandidate &b) {
    return a.logit > b.logit || (a.logit == b.logit && a.id < b.id);
  });
  if (p.topK > 0 && static_cast<size_t>(p.topK) < c.size())
    c.resize(static_cast<size_t>(p.topK));
  const double m = c.front().logit;
  if (p.topP < 1.0f) {
    double z = 0.0, cum = 0.0;
    for (const SampleCandidate &x : c)
      z += std::exp(x.logit - m);
    size_t keep = c.size();
    for (size_t i = 0; i < c.size(); ++i) {
      cum += std::exp(c[i].logit - m);
      if (cum >= p.topP * z) {
        keep = i + 1;
        break;
      }
    }
    c.resize(std::max<size_t>(keep, 1));
  }
  if (p.minP > 0.0f)
    c.erase(std::remove_if(c.begin(), c.end(),
                           [&](const SampleCandidate &x) { return x.logit < m + std::log(p.minP); }),
            c.end());
  double total = 0.0;
  for (SampleCandidate &x : c)
    total += (x.p = std::exp((x.logit - m) / p.temperature));
  for (SampleCandidate &x : c)
    x.p /= total;
  return c;
}

TEST(Sampling, FastPathsKeepWhatTheDefinitionsKeep) {
  // Logits rounded to halves (many ties), a few NaN and -inf, a large
  // vocabulary (top-p's selection halves its range many times); top-k's
  // selection over floats, min-p's early cut and top-p's selection against
  // the plain definitions.
  std::mt19937 g(7);
  for (int round = 0; round < 60; ++round) {
    std::vector<float> l = randomLogits(round % 3 == 0 ? 20000 : 300, 1000 + round, 1.5f);
    for (float &x : l)
      x = std::round(x * 2.0f) / 2.0f;
    l[g() % l.size()] = std::numeric_limits<float>::quiet_NaN();
    l[g() % l.size()] = -std::numeric_limits<float>::infinity();
    SamplingParams p = temperature(0.5f + 0.25f * (round % 5));
    p.topK = round % 4 == 0 ? 0 : static_cast<int32_t>(1 + g() % 200);
    p.topP = round % 3 == 1 ? 1.0f : 0.05f + 0.9f * static_cast<float>(g() % 1000) / 1000.0f;
    p.minP = round % 5 == 2 ? 0.0f : 0.001f * static_cast<float>(g() % 300);
    std::vector<SampleCandidate> got = Sampler(p).candidates(l.data(), l.size());
    std::vector<SampleCandidate> want = naiveFilters(l, p);
    ASSERT_EQ(got.size(), want.size()) << "round " << round << ": top-k " << p.topK << " top-p "
                                       << p.topP << " min-p " << p.minP;
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i].id, want[i].id) << "round " << round << " candidate " << i;
      ASSERT_NEAR(got[i].p, want[i].p, 1e-6) << "round " << round << " candidate " << i;
    }
  }
}

/// The largest |empirical frequency - expected probability| over `n` draws.
double maxFrequencyError(Sampler &s, const std::vector<float> &l, const std::vector<double> &want,
                         int n) {
  std::vector<int> count(l.size());
  for (int i = 0; i < n; ++i)
    ++count[static_cast<size_t>(s.sample(l))];
  double worst = 0.0;
  for (size_t i = 0; i < l.size(); ++i)
    worst = std::max(worst, std::fabs(count[i] / static_cast<double>(n) - want[i]));
  return worst;
}

std::vector<double> softmax(const std::vector<float> &l, double t) {
  double m = *std::max_element(l.begin(), l.end()), z = 0.0;
  std::vector<double> p;
  for (float x : l)
    z += std::exp((x - m) / t);
  for (float x : l)
    p.push_back(std::exp((x - m) / t) / z);
  return p;
}

TEST(Sampling, DrawsFollowSoftmaxOverTheTemperature) {
  // 200000 draws: a frequency's standard deviation is at most
  // sqrt(0.25 / 200000) = 0.0011; the tolerance 0.006 is over 5 of them.
  constexpr int kDraws = 200000;
  constexpr double kTol = 0.006;
  const std::vector<float> l = {1.0f, 2.0f, 0.5f, -1.0f, 1.5f, 0.0f, 2.2f, -0.3f};
  for (float t : {0.5f, 1.0f, 2.0f}) {
    Sampler s(temperature(t, 42));
    EXPECT_LT(maxFrequencyError(s, l, softmax(l, t), kDraws), kTol) << "T = " << t;
  }
  // With top-k 3 at T = 1.5: softmax over the three largest alone.
  SamplingParams p = temperature(1.5f, 43);
  p.topK = 3;
  Sampler s(p);
  std::vector<float> top3 = {2.2f, 2.0f, 1.5f};
  std::vector<double> q = softmax(top3, 1.5), want(l.size(), 0.0);
  want[6] = q[0];
  want[1] = q[1];
  want[4] = q[2];
  EXPECT_LT(maxFrequencyError(s, l, want, kDraws), kTol);
}

TEST(Sampling, PenaltiesAsLlamaCppDefinesThem) {
  SamplingParams p = temperature(1.0f);
  p.repetitionPenalty = 1.5f;
  p.frequencyPenalty = 0.25f;
  p.presencePenalty = 0.5f;
  p.penaltyLastN = 4;
  Sampler s(p);
  // Window (last 4): 0 7 1 1 -> 0 once, 1 twice; 7 is past the vocabulary.
  s.accept(std::vector<int32_t>{3, 0, 7, 1, 1}.data(), 5);
  ASSERT_EQ(s.window().size(), 4u);
  std::vector<float> l = {3.0f, -2.0f, 1.0f, 4.0f};
  s.applyPenalties(l.data(), l.size());
  EXPECT_FLOAT_EQ(l[0], 3.0f / 1.5f - 0.25f - 0.5f);       // positive: divided
  EXPECT_FLOAT_EQ(l[1], -2.0f * 1.5f - 2 * 0.25f - 0.5f);   // negative: multiplied
  EXPECT_FLOAT_EQ(l[2], 1.0f);                              // not in the window
  EXPECT_FLOAT_EQ(l[3], 4.0f);                              // 3 left the window
  // Greedy takes the penalized logits: 3 wins either way here, so penalize
  // it and see 0 win.
  SamplingParams g = temperature(0.0f);
  g.repetitionPenalty = 10.0f;
  Sampler gs(g);
  gs.accept(3);
  std::vector<float> l2 = {3.0f, -2.0f, 1.0f, 4.0f};
  EXPECT_EQ(gs.sample(l2), 0);
  // sample() accepts the token it chose: now 0 is penalized too.
  EXPECT_EQ(gs.sample(l2), 2);
  // Window 0: no penalties at all.
  SamplingParams off = g;
  off.penaltyLastN = 0;
  Sampler os(off);
  os.accept(3);
  EXPECT_EQ(os.sample(l2), 3);
  EXPECT_TRUE(os.window().empty());
}

TEST(Sampling, NonFiniteLogits) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  Sampler s(temperature(1.0f, 3));
  std::vector<float> l = {nan, 0.0f, -inf, 0.0f};
  for (int i = 0; i < 200; ++i) {
    int32_t t = s.sample(l);
    EXPECT_TRUE(t == 1 || t == 3) << t;
  }
  std::vector<float> l2 = {1.0f, inf, 2.0f, inf};
  std::set<int32_t> seen;
  for (int i = 0; i < 200; ++i)
    seen.insert(s.sample(l2));
  EXPECT_EQ(seen, (std::set<int32_t>{1, 3}));
  EXPECT_EQ(s.sample(std::vector<float>{nan, nan}), 0); // nothing drawable: argmaxToken's rule
  EXPECT_EQ(s.sample(nullptr, 0), -1);
}

TEST(Sampling, ParamsProblemsNameTheField) {
  auto problem = [](auto set) {
    SamplingParams p;
    set(p);
    return ssm::rt::samplingParamsProblem(p);
  };
  EXPECT_EQ(problem([](SamplingParams &) {}), "");
  EXPECT_NE(problem([](SamplingParams &p) { p.temperature = -1; }).find("temperature"), std::string::npos);
  EXPECT_NE(problem([](SamplingParams &p) { p.temperature = NAN; }).find("temperature"), std::string::npos);
  EXPECT_NE(problem([](SamplingParams &p) { p.topK = -2; }).find("top_k"), std::string::npos);
  EXPECT_NE(problem([](SamplingParams &p) { p.topP = 1.5f; }).find("top_p"), std::string::npos);
  EXPECT_NE(problem([](SamplingParams &p) { p.minP = -0.1f; }).find("min_p"), std::string::npos);
  EXPECT_NE(problem([](SamplingParams &p) { p.repetitionPenalty = 0; }).find("repetition_penalty"),
            std::string::npos);
  EXPECT_NE(problem([](SamplingParams &p) { p.presencePenalty = INFINITY; }).find("presence_penalty"),
            std::string::npos);
  EXPECT_NE(problem([](SamplingParams &p) { p.penaltyLastN = -2; }).find("penalty_last_n"),
            std::string::npos);
}

std::string pushAll(TokenTextStream &t, const std::vector<int32_t> &ids,
                    std::vector<std::string> *pieces = nullptr) {
  std::string all;
  for (int32_t id : ids) {
    std::string out;
    EXPECT_TRUE(t.push(id, out).isOk());
    if (pieces)
      pieces->push_back(out);
    all += out;
  }
  return all;
}

std::vector<int32_t> bytes(const std::string &s) {
  std::vector<int32_t> v;
  for (unsigned char c : s)
    v.push_back(c);
  return v;
}

TEST(TokenText, BytesHoldBackAnIncompleteCharacter) {
  TokenTextStream t(nullptr);
  std::vector<std::string> pieces;
  // "aé€😀" then a stray continuation byte and a lead byte cut short.
  std::string all = pushAll(t, bytes("a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\x80\xE2\x82"), &pieces);
  EXPECT_EQ(pieces, (std::vector<std::string>{"a", "", "\xC3\xA9", "", "", "\xE2\x82\xAC", "", "", "",
                                               "\xF0\x9F\x98\x80", "\xEF\xBF\xBD", "", ""}));
  std::string rest;
  t.finish(rest);
  EXPECT_EQ(rest, "\xEF\xBF\xBD");
  std::string out;
  EXPECT_TRUE(t.push(300, out).isOk()); // past the bytes: not text
  EXPECT_EQ(out, "\xEF\xBF\xBD");
  EXPECT_FALSE(t.push(-1, out).isOk());
}

TEST(TokenText, StopStringsAcrossTokens) {
  TokenTextStream t(nullptr, {"\n\n", "END"});
  std::vector<std::string> pieces;
  pushAll(t, bytes("ab\nc\nEN"), &pieces);
  // A newline or an "E"/"EN" is held until it cannot start a stop string.
  EXPECT_EQ(pieces, (std::vector<std::string>{"a", "b", "", "\nc", "", "\n", ""}));
  EXPECT_FALSE(t.stopped());
  std::string out;
  ASSERT_TRUE(t.push('D', out).isOk());
  EXPECT_TRUE(t.stopped());
  EXPECT_EQ(t.stopString(), "END");
  EXPECT_EQ(out, "");
  out.clear();
  t.push('x', out);
  t.finish(out);
  EXPECT_EQ(out, ""); // nothing after the stop

  // A stop string inside one token's text: the text before it comes out.
  TokenTextStream u(nullptr, {"lo w"});
  std::string all = pushAll(u, bytes("hello world"));
  EXPECT_TRUE(u.stopped());
  EXPECT_EQ(all, "hel");
  // Held back, never completed: finish hands it out.
  TokenTextStream v(nullptr, {"xyz"});
  all = pushAll(v, bytes("abxy"));
  EXPECT_EQ(all, "ab");
  v.finish(all);
  EXPECT_EQ(all, "abxy");
}

std::filesystem::path sharedDir() {
  if (const char *env = std::getenv("SSM_SHARED_DIR"))
    return env;
  return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path().parent_path() /
         "shared";
}

TEST(TokenText, TokenizerPiecesAreValidUtf8AndAddUpToTheText) {
  ssm::rt::Status st;
  auto tok = ssm::rt::tok::Tokenizer::open((sharedDir() / "tokenizers" / "qwen3").string(), st);
  ASSERT_TRUE(tok) << st.message();
  // Byte-level BPE: CJK and emoji take several tokens per character.
  const std::string text = "Héllo 世界! 😀🎉 𓀀𓁐 naïve — ok\n\nbye";
  std::vector<int32_t> ids;
  ASSERT_TRUE(tok->encode(text, false, ids).isOk());
  TokenTextStream t(tok.get());
  std::vector<std::string> pieces;
  std::string all = pushAll(t, ids, &pieces);
  t.finish(all);
  EXPECT_EQ(all, text);
  for (const std::string &p : pieces)
    EXPECT_EQ(p.find("\xEF\xBF\xBD"), std::string::npos) << "a piece with U+FFFD: " << p;
  EXPECT_GT(std::count(pieces.begin(), pieces.end(), ""), 0) << "no character was held back";
  // With a stop string across tokens.
  TokenTextStream s(tok.get(), {"\n\n"});
  all = pushAll(s, ids);
  EXPECT_TRUE(s.stopped());
  EXPECT_EQ(all, "Héllo 世界! 😀🎉 𓀀𓁐 naïve — ok");
}

} // namespace
