// The model skeleton (import/graph/ModelGraph.h) on a toy hybrid stack: two block kinds with different states, a carry, every form, and the errors a wrong description gets.
//
// The architectures' graphs (Mamba-1, Mamba-2, RWKV) are checked against
// logits of independent implementations elsewhere (MambaModelTest,
// Mamba2ModelTest, the model tests under test/e2e and test/lit); this
// checks what the skeleton alone promises: signatures, the state order,
// which block function each layer calls, and refusals that name the tensor.
#include "import/graph/ModelGraph.h"

#include <gtest/gtest.h>

namespace {

using namespace ssm::importer;
using namespace ssm::importer::graph;

size_t count(const std::string &s, const std::string &what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1))
    ++n;
  return n;
}

/// A toy hybrid of width 4: "rec" layers keep a (4) running sum state and
/// set the carry "first"; "mix" layers have no state and read it.
struct Toy {
  BlockKind rec, mix;
  ModelDecl m;
  Toy() {
    rec.name = "rec";
    rec.params = {{"w", {4}}};
    rec.states = {{"sum", {4}}};
    rec.carriesOut = {{"first", {4}}};
    rec.body = [](BlockScope &s) {
      s.newStates.push_back(s.state("sum")); // carried unchanged
      s.carriesOut["first"] = s.h;
      s.h = s.e.map("scaled", {{s.h, {}}, {s.param("w"), {"d1"}}}, s.h.shape,
                    [](GenericBody &b) { return b.mul(b.arg(0), b.arg(1)); });
    };
    mix.name = "mix";
    mix.params = {{"v", {4}}};
    mix.carriesIn = {{"first", {4}}};
    mix.body = [](BlockScope &s) {
      s.h = s.e.map("mixed", {{s.h, {}}, {s.carries.at("first"), {}}}, s.h.shape,
                    [](GenericBody &b) { return b.add(b.arg(0), b.arg(1)); });
    };
    m.header = "// toy\n";
    m.width = 4;
    m.vocab = 7;
    m.params = {{"emb", {7, 4}}, {"l0.w", {4}}, {"l1.v", {4}}, {"l2.w", {4}}, {"l3.v", {4}}};
    m.layers = {{&rec, "l0.", "s0."}, {&mix, "l1.", "s1."}, {&rec, "l2.", "s2."},
                {&mix, "l3.", "s3."}};
    m.embed = [](ModelScope &s, const TValue &tokens) {
      return s.e.generic("emb_rows", {{tokens, {"d0"}}}, {tokens.shape[0], 4}, {"d0", "d1"},
                         {"parallel", "parallel"}, [](GenericBody &b) { return b.cst(0.0); });
    };
    m.head = [](ModelScope &s, const TValue &h) { return s.e.linear(h, s.param("emb"), "logits"); };
  }
};

TEST(ModelGraph, WritesEveryFormWithStatesInLayerOrder) {
  Toy t;
  std::string mlir, error;
  ASSERT_TRUE(writeModule(t.m, 6, LogitsRows::Last, 3, mlir, error)) << error;
  // States: the stateful layers only, in layer order.
  EXPECT_EQ(modelStates(t.m).size(), 2u);
  EXPECT_EQ(modelStates(t.m)[1].name, "s2.sum");
  size_t seq = mlir.find("func.func @forward_sequence(%tokens: tensor<6xi32>");
  size_t step = mlir.find("func.func @forward_step(%tokens: tensor<1xi32>");
  size_t batched = mlir.find("func.func @forward_step_batched(%tokens: tensor<3xi32>");
  ASSERT_NE(seq, std::string::npos);
  ASSERT_NE(step, std::string::npos);
  ASSERT_NE(batched, std::string::npos);
  EXPECT_LT(seq, step);
  EXPECT_LT(step, batched);
  // One private function per kind and form, called once per layer of that kind.
  for (const char *f : {"sequence", "step", "step_batched"}) {
    EXPECT_EQ(count(mlir, std::string("func.func private @rec_") + f + "("), 1u) << f;
    EXPECT_EQ(count(mlir, std::string("func.func private @mix_") + f + "("), 1u) << f;
    EXPECT_EQ(count(mlir, std::string("call @rec_") + f + "("), 2u) << f;
    EXPECT_EQ(count(mlir, std::string("call @mix_") + f + "("), 2u) << f;
  }
  // The batched step's states carry the batch dim; the others do not.
  EXPECT_NE(mlir.find("tensor<3x4xf32> {ssm.state = \"s2.sum\"}"), std::string::npos);
  EXPECT_NE(mlir.find("tensor<4xf32> {ssm.state = \"s0.sum\"}"), std::string::npos);
  // Sequence logits of the last row only; the batched step one row per stream.
  EXPECT_NE(mlir.find("-> (tensor<1x7xf32> {ssm.name = \"logits\"}"), std::string::npos);
  EXPECT_NE(mlir.find("-> (tensor<3x7xf32> {ssm.name = \"logits\"}"), std::string::npos);
  // The carry: rec returns it after its state; mix takes it after h.
  EXPECT_NE(mlir.find("-> (tensor<6x4xf32>, tensor<4xf32>, tensor<6x4xf32>) {"),
            std::string::npos);
  EXPECT_NE(mlir.find("func.func private @mix_sequence(%h: tensor<6x4xf32>,\n    %first: "
                      "tensor<6x4xf32>"),
            std::string::npos);
  // No kind reads the position: no position argument.
  EXPECT_EQ(mlir.find("{ssm.name = \"position\"}"), std::string::npos);
  // Without a batch, no batched function.
  ASSERT_TRUE(writeModule(t.m, 6, LogitsRows::All, 0, mlir, error)) << error;
  EXPECT_EQ(mlir.find("step_batched"), std::string::npos);
  EXPECT_NE(mlir.find("-> (tensor<6x7xf32> {ssm.name = \"logits\"}"), std::string::npos);
}

TEST(ModelGraph, PassesThePositionToTheKindsThatTakeIt) {
  Toy t;
  t.mix.takesPosition = true;
  std::string mlir, error;
  ASSERT_TRUE(writeModule(t.m, 6, LogitsRows::Last, 3, mlir, error)) << error;
  // After the tokens, one per stream.
  EXPECT_NE(mlir.find("func.func @forward_sequence(%tokens: tensor<6xi32> {ssm.name = \"tokens\"},\n"
                      "    %position: tensor<1xi32> {ssm.name = \"position\"},"),
            std::string::npos);
  EXPECT_NE(mlir.find("func.func @forward_step_batched(%tokens: tensor<3xi32> {ssm.name = "
                      "\"tokens\"},\n    %position: tensor<3xi32> {ssm.name = \"position\"},"),
            std::string::npos);
  // The kind that takes it gets it after h; the other does not.
  EXPECT_NE(mlir.find("func.func private @mix_step(%h: tensor<1x4xf32>,\n    %position: "
                      "tensor<1xi32>,\n    %first: tensor<1x4xf32>"),
            std::string::npos);
  EXPECT_NE(mlir.find("func.func private @rec_step(%h: tensor<1x4xf32>,\n    %s_sum: "),
            std::string::npos);
  // Layer 1 (mix) reads layer 0's h and carry, and the position.
  EXPECT_EQ(count(mlir, "call @mix_step_batched(%l0#0, %position, %l0#2, %w_l1_v) : "
                        "(tensor<3x4xf32>, tensor<3xi32>, tensor<3x4xf32>, tensor<4xf32>)"),
            1u);
}

TEST(ModelGraph, RefusesWrongDescriptionsNamingTheTensor) {
  std::string mlir, error;
  {
    Toy t;
    t.m.params[3].shape = {5}; // l2.w: not its kind's shape
    EXPECT_FALSE(writeModule(t.m, 2, LogitsRows::Last, 0, mlir, error));
    EXPECT_NE(error.find("parameter 'l2.w' is missing or has another shape than tensor<4xf32>"),
              std::string::npos)
        << error;
  }
  {
    Toy t;
    t.m.params.erase(t.m.params.begin() + 2); // l1.v
    EXPECT_FALSE(writeModule(t.m, 2, LogitsRows::Last, 0, mlir, error));
    EXPECT_NE(error.find("'l1.v' is missing"), std::string::npos) << error;
  }
  {
    Toy t;
    t.m.layers = {{&t.mix, "l1.", "s1."}}; // reads a carry nothing set
    t.m.params = {{"emb", {7, 4}}, {"l1.v", {4}}};
    EXPECT_FALSE(writeModule(t.m, 2, LogitsRows::Last, 0, mlir, error));
    EXPECT_NE(error.find("the carry 'first'"), std::string::npos) << error;
  }
  {
    Toy t;
    t.m.head = [](ModelScope &s, const TValue &h) { return s.e.linear(h, s.param("head"), "x"); };
    EXPECT_FALSE(writeModule(t.m, 2, LogitsRows::Last, 0, mlir, error));
    EXPECT_NE(error.find("the weight 'head'"), std::string::npos) << error;
  }
  {
    Toy t;
    t.rec.body = [](BlockScope &s) { s.carriesOut["first"] = s.h; }; // forgets its state
    EXPECT_FALSE(writeModule(t.m, 2, LogitsRows::Last, 0, mlir, error));
    EXPECT_NE(error.find("block 'rec' returned 0 states for 1"), std::string::npos) << error;
  }
  {
    Toy t;
    EXPECT_FALSE(writeModule(t.m, 2, LogitsRows::Last, 1025, mlir, error));
    EXPECT_NE(error.find("step batch 1025 is out of range"), std::string::npos) << error;
    EXPECT_FALSE(writeModule(t.m, 0, LogitsRows::Last, 0, mlir, error));
    EXPECT_NE(error.find("sequence length 0"), std::string::npos) << error;
  }
  {
    // The batched sequence function (--prefill-batch) of a stack with a kind
    // that does not write its form: refused naming that kind; every kind
    // declaring it: written.
    Toy t;
    t.mix.batchedSequence = true;
    SequenceBatchScope scope(2);
    EXPECT_FALSE(writeModule(t.m, 3, LogitsRows::Last, 0, mlir, error));
    EXPECT_NE(error.find("not written for the 'rec' layers"), std::string::npos) << error;
    t.rec.batchedSequence = true;
    ASSERT_TRUE(writeModule(t.m, 3, LogitsRows::Last, 0, mlir, error)) << error;
    EXPECT_NE(mlir.find("func.func @forward_sequence_batched(%tokens: tensor<6xi32>"),
              std::string::npos);
    EXPECT_NE(mlir.find("tensor<2x4xf32> {ssm.state = \"s2.sum\"}"), std::string::npos);
  }
}

} // namespace
