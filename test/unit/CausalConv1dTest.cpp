// Unit tests for the reference ssm.causal_conv1d: hand example, states, streaming.
#include "reference/kernels/CausalConv1d.h"
#include "reference/kernels/Activations.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

using namespace ssm::ref;
using namespace ssm; // the ops' enums (dialect/SsmEnums.h)
using ssm::ref::test::arraysNear;
using ssm::ref::test::randomArray;

namespace {

std::string conv(const Array &x, const Array &w, const Array *bias, const Array *init,
                 Activation act, Array &out, Array &fin) {
  CausalConv1dArgs args;
  args.x = &x;
  args.weight = &w;
  args.bias = bias;
  args.initialStates = init;
  args.activation = act;
  return causalConv1d(args, out, fin);
}

} // namespace

TEST(CausalConv1dTest, Width2ByHand) {
  // weight (0.5, 2): the last tap (2) multiplies the current sample.
  // out = (0.5*0 + 2*1, 0.5*1 + 2*2, 0.5*2 + 2*3) = (2, 4.5, 7).
  Array x({1, 1, 3}, {1, 2, 3}), w({1, 2}, {0.5, 2}), out, fin;
  ASSERT_EQ(conv(x, w, nullptr, nullptr, Activation::identity, out, fin), "");
  EXPECT_TRUE(arraysNear(out, Array({1, 1, 3}, {2, 4.5, 7}), 0));
  EXPECT_TRUE(arraysNear(fin, Array({1, 1, 1}, {3}), 0));
  // A carried state 10 replaces the zero before x0; bias adds.
  Array init({1, 1, 1}, {10}), bias({1}, {1});
  ASSERT_EQ(conv(x, w, &bias, &init, Activation::identity, out, fin), "");
  EXPECT_TRUE(arraysNear(out, Array({1, 1, 3}, {8, 5.5, 8}), 0));
  ASSERT_EQ(conv(x, w, &bias, &init, Activation::silu, out, fin), "");
  EXPECT_NEAR(out[0], silu(8), 1e-15);
}

TEST(CausalConv1dTest, FinalStatesShorterThanWidth) {
  // W 4, L 2: final states are the last 3 samples of (states, x).
  Array x({1, 1, 2}, {5, 6}), w({1, 4}, {1, 1, 1, 1}), out, fin;
  ASSERT_EQ(conv(x, w, nullptr, nullptr, Activation::identity, out, fin), "");
  EXPECT_TRUE(arraysNear(fin, Array({1, 1, 3}, {0, 5, 6}), 0));
  EXPECT_TRUE(arraysNear(out, Array({1, 1, 2}, {5, 11}), 0));
  Array init({1, 1, 3}, {7, 8, 9});
  ASSERT_EQ(conv(x, w, nullptr, &init, Activation::identity, out, fin), "");
  EXPECT_TRUE(arraysNear(fin, Array({1, 1, 3}, {9, 5, 6}), 0));
  EXPECT_TRUE(arraysNear(out, Array({1, 1, 2}, {7 + 8 + 9 + 5, 8 + 9 + 5 + 6}), 0));
}

TEST(CausalConv1dTest, StreamingEqualsOneCall) {
  // Decode feeds the conv in pieces; carrying final states must not change the result.
  Array x = randomArray({2, 3, 9}, -1, 1, 101), w = randomArray({3, 4}, -1, 1, 102);
  Array bias = randomArray({3}, -1, 1, 103);
  Array out, fin;
  ASSERT_EQ(conv(x, w, &bias, nullptr, Activation::silu, out, fin), "");
  Array state({2, 3, 3});
  const int64_t cuts[] = {0, 2, 3, 7, 9}; // pieces shorter and longer than W - 1
  for (int k = 0; k < 4; ++k) {
    int64_t t0 = cuts[k], t1 = cuts[k + 1];
    Array piece({2, 3, t1 - t0});
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t d = 0; d < 3; ++d)
        for (int64_t t = t0; t < t1; ++t)
          piece.at(b, d, t - t0) = x.at(b, d, t);
    Array pOut, pFin;
    ASSERT_EQ(conv(piece, w, &bias, &state, Activation::silu, pOut, pFin), "");
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t d = 0; d < 3; ++d)
        for (int64_t t = t0; t < t1; ++t)
          EXPECT_NEAR(pOut.at(b, d, t - t0), out.at(b, d, t), 1e-15);
    state = pFin;
  }
  EXPECT_TRUE(arraysNear(state, fin, 0));
}

TEST(CausalConv1dTest, Errors) {
  Array x({1, 2, 3}), w({3, 2}), out, fin;
  EXPECT_NE(conv(x, w, nullptr, nullptr, Activation::identity, out, fin).find("'weight'"),
            std::string::npos);
  Array w2({2, 4}), init({1, 2, 2});
  EXPECT_NE(conv(x, w2, nullptr, &init, Activation::identity, out, fin)
                .find("'initial_states'"),
            std::string::npos);
}
