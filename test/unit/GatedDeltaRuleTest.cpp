// Unit tests for the reference ssm.gated_delta_rule kernel (reference/kernels/GatedDeltaRule.h):
// a two-token example worked by hand, the delta rule's defining property
// (with beta = 1 and a unit key the state then returns v along k), grouped
// value heads against copied keys, a per-channel gate with equal channels
// against the scalar gate, state carry across calls, and the shape errors.
#include "reference/kernels/GatedDeltaRule.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ssm::ref;
using ssm::ref::test::arraysNear;
using ssm::ref::test::randomArray;

namespace {

struct Inputs {
  Array q, k, v, g, beta, s0;
  bool withState = false;
  double scale = 1.0;
  GatedDeltaRuleArgs args() const {
    GatedDeltaRuleArgs a;
    a.q = &q;
    a.k = &k;
    a.v = &v;
    a.g = &g;
    a.beta = &beta;
    a.initialState = withState ? &s0 : nullptr;
    a.scale = scale;
    return a;
  }
};

/// Random inputs with unit keys (as the models L2-normalise them), g in
/// [-1, -0.01], beta in (0.05, 0.95).
Inputs randomInputs(int64_t batch, int64_t len, int64_t hk, int64_t hv, int64_t dk, int64_t dv,
                    bool perChannel, unsigned seed) {
  Inputs in;
  in.q = randomArray({batch, len, hk, dk}, -1, 1, seed);
  in.k = randomArray({batch, len, hk, dk}, -1, 1, seed + 1);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t t = 0; t < len; ++t)
      for (int64_t h = 0; h < hk; ++h) {
        double n = 0;
        for (int64_t i = 0; i < dk; ++i)
          n += in.k.at(b, t, h, i) * in.k.at(b, t, h, i);
        for (int64_t i = 0; i < dk; ++i)
          in.k.at(b, t, h, i) /= std::sqrt(n);
      }
  in.v = randomArray({batch, len, hv, dv}, -1, 1, seed + 2);
  in.g = perChannel ? randomArray({batch, len, hv, dk}, -1, -0.01, seed + 3)
                    : randomArray({batch, len, hv}, -1, -0.01, seed + 3);
  in.beta = randomArray({batch, len, hv}, 0.05, 0.95, seed + 4);
  in.s0 = randomArray({batch, hv, dk, dv}, -1, 1, seed + 5);
  in.scale = 0.7;
  return in;
}

} // namespace

TEST(GatedDeltaRule, TwoTokensByHand) {
  // Dk 2, Dv 1. t = 0: decay 1/2 of a zero state, beta 1/2, k = (1, 0),
  // v = 2: u = 1/2 (2 - 0) = 1, S = (1, 0), o = q . S = 1 with q = (1, 0).
  // t = 1: decay 1/2 gives (1/2, 0); beta 1, k = (0.6, 0.8), v = 1:
  // S^T k = 0.3, u = 0.7, S = (0.5 + 0.42, 0.56) = (0.92, 0.56); with
  // q = (0, 1), o = 0.56; and k . S = 1 = v, the delta rule's write.
  Inputs in;
  in.q = Array({1, 2, 1, 2}, {1, 0, 0, 1});
  in.k = Array({1, 2, 1, 2}, {1, 0, 0.6, 0.8});
  in.v = Array({1, 2, 1, 1}, {2, 1});
  in.g = Array({1, 2, 1}, {std::log(0.5), std::log(0.5)});
  in.beta = Array({1, 2, 1}, {0.5, 1.0});
  Array out, fin;
  ASSERT_EQ(gatedDeltaRule(in.args(), out, fin), "");
  EXPECT_TRUE(arraysNear(out, Array({1, 2, 1, 1}, {1.0, 0.56}), 1e-12));
  EXPECT_TRUE(arraysNear(fin, Array({1, 1, 2, 1}, {0.92, 0.56}), 1e-12));
}

TEST(GatedDeltaRule, BetaOneWritesVAlongTheUnitKey) {
  Inputs in = randomInputs(1, 9, 1, 1, 5, 3, false, 21);
  for (double &b : in.beta.data)
    b = 1.0;
  in.withState = true;
  for (int64_t len = 1; len <= 9; ++len) {
    Inputs part = in;
    part.q = Array({1, len, 1, 5});
    part.k = Array({1, len, 1, 5},
                   std::vector<double>(in.k.data.begin(), in.k.data.begin() + len * 5));
    part.v = Array({1, len, 1, 3},
                   std::vector<double>(in.v.data.begin(), in.v.data.begin() + len * 3));
    part.g = Array({1, len, 1}, std::vector<double>(in.g.data.begin(), in.g.data.begin() + len));
    part.beta = Array({1, len, 1}, std::vector<double>(len, 1.0));
    Array out, fin;
    ASSERT_EQ(gatedDeltaRule(part.args(), out, fin), "");
    for (int64_t j = 0; j < 3; ++j) {
      double read = 0;
      for (int64_t i = 0; i < 5; ++i)
        read += fin.at(0, 0, i, j) * in.k.at(0, len - 1, 0, i);
      EXPECT_NEAR(read, in.v.at(0, len - 1, 0, j), 1e-12) << "len " << len << " column " << j;
    }
  }
}

TEST(GatedDeltaRule, ValueHeadsShareTheirKeyHead) {
  // Hk 2 -> Hv 6: value head h reads key head h / 3. The same with the key
  // and query heads copied three times (Hk = Hv = 6).
  Inputs in = randomInputs(2, 11, 2, 6, 4, 5, false, 31);
  in.withState = true;
  Inputs copied = in;
  copied.q = Array({2, 11, 6, 4});
  copied.k = Array({2, 11, 6, 4});
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t t = 0; t < 11; ++t)
      for (int64_t h = 0; h < 6; ++h)
        for (int64_t i = 0; i < 4; ++i) {
          copied.q.at(b, t, h, i) = in.q.at(b, t, h / 3, i);
          copied.k.at(b, t, h, i) = in.k.at(b, t, h / 3, i);
        }
  Array o1, f1, o2, f2;
  ASSERT_EQ(gatedDeltaRule(in.args(), o1, f1), "");
  ASSERT_EQ(gatedDeltaRule(copied.args(), o2, f2), "");
  EXPECT_TRUE(arraysNear(o1, o2, 1e-12));
  EXPECT_TRUE(arraysNear(f1, f2, 1e-12));
}

TEST(GatedDeltaRule, EqualChannelGatesAreTheScalarGate) {
  Inputs in = randomInputs(1, 13, 1, 2, 6, 4, false, 41);
  in.withState = true;
  Inputs perChannel = in;
  perChannel.g = Array({1, 13, 2, 6});
  for (int64_t t = 0; t < 13; ++t)
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t i = 0; i < 6; ++i)
        perChannel.g.at(0, t, h, i) = in.g.at(0, t, h);
  Array o1, f1, o2, f2;
  ASSERT_EQ(gatedDeltaRule(in.args(), o1, f1), "");
  ASSERT_EQ(gatedDeltaRule(perChannel.args(), o2, f2), "");
  EXPECT_TRUE(arraysNear(o1, o2, 1e-12));
  EXPECT_TRUE(arraysNear(f1, f2, 1e-12));
}

TEST(GatedDeltaRule, StateCarriesAcrossCalls) {
  // 10 tokens at once = 4 tokens, then 6 from the state the first call left.
  Inputs in = randomInputs(1, 10, 1, 2, 3, 4, true, 51);
  in.withState = true;
  auto slice = [](const Array &x, int64_t from, int64_t to) {
    std::vector<int64_t> sh = x.shape;
    int64_t inner = x.numel() / sh[1];
    sh[1] = to - from;
    return Array(sh, std::vector<double>(x.data.begin() + from * inner,
                                         x.data.begin() + to * inner));
  };
  Array whole, wholeFin;
  ASSERT_EQ(gatedDeltaRule(in.args(), whole, wholeFin), "");
  Inputs a = in, b = in;
  for (auto [part, from, to] : {std::tuple<Inputs *, int64_t, int64_t>{&a, 0, 4}, {&b, 4, 10}}) {
    part->q = slice(in.q, from, to);
    part->k = slice(in.k, from, to);
    part->v = slice(in.v, from, to);
    part->g = slice(in.g, from, to);
    part->beta = slice(in.beta, from, to);
  }
  Array outA, finA, outB, finB;
  ASSERT_EQ(gatedDeltaRule(a.args(), outA, finA), "");
  b.s0 = finA;
  ASSERT_EQ(gatedDeltaRule(b.args(), outB, finB), "");
  EXPECT_TRUE(arraysNear(finB, wholeFin, 1e-12));
  EXPECT_TRUE(arraysNear(outB, slice(whole, 4, 10), 1e-12));
}

TEST(GatedDeltaRule, ShapeErrorsNameTheOperand) {
  Inputs in = randomInputs(1, 3, 2, 4, 4, 5, false, 61);
  Array out, fin;
  Inputs bad = in;
  bad.v = Array({1, 3, 3, 5});
  EXPECT_NE(gatedDeltaRule(bad.args(), out, fin).find("operand 'v'"), std::string::npos);
  bad = in;
  bad.g = Array({1, 3, 4, 3});
  EXPECT_NE(gatedDeltaRule(bad.args(), out, fin).find("operand 'g'"), std::string::npos);
  bad = in;
  bad.beta = Array({1, 3, 2});
  EXPECT_NE(gatedDeltaRule(bad.args(), out, fin).find("operand 'beta'"), std::string::npos);
  bad = in;
  bad.withState = true;
  bad.s0 = Array({1, 4, 5, 4});
  EXPECT_NE(gatedDeltaRule(bad.args(), out, fin).find("operand 'initial_state'"),
            std::string::npos);
}
