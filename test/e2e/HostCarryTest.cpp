// States carried between calls of a CPU module (BoundCall::carryState): the result's and
// the argument's buffers trade memory after each call instead of the state being copied
// back into the argument. Checked against the same module with the state copied through
// the host after each call, bit for bit (the same kernel on the same inputs), for odd and
// even numbers of calls, with the host changing the state in between, and on a segmented
// function with two layers' states. Graphs: StateGraphs.h.
#include "StateGraphs.h"

namespace {

using namespace state_graphs;

void expectEqual(const HostTensor &got, const HostTensor &want, const std::string &what) {
  ASSERT_EQ(got.f32().size(), want.f32().size()) << what;
  for (size_t i = 0; i < got.f32().size(); ++i)
    ASSERT_EQ(got.f32()[i], want.f32()[i]) << what << ", element " << i;
}

class HostCarryTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() { module = compile("host").release(); }
  static void TearDownTestSuite() { delete module; }
  void SetUp() override {
    ASSERT_TRUE(module);
    ASSERT_FALSE(module->onDevice());
  }
  static CompiledModule *module;
};
CompiledModule *HostCarryTest::module = nullptr;

TEST_F(HostCarryTest, PingPongStateMatchesTheCopyThroughTheHost) {
  std::mt19937 rng(21);
  StepInputs in(rng), pin = in, cin = in;
  HostTensor h0 = random({1, kDim, kN}, rng, -1, 1);
  HostTensor ph = h0, ch = h0; // carried, copied through the host
  std::vector<HostTensor> pout, cout;
  std::string error;
  auto bindDecode = [&](HostTensor &h, StepInputs &s, std::vector<HostTensor> &o) {
    return module->bind(*module->find("decode"), {&h, &s.x, &s.dt, &s.A, &s.B, &s.C, &s.D}, o,
                        error);
  };
  auto p = bindDecode(ph, pin, pout);
  auto c = bindDecode(ch, cin, cout);
  ASSERT_TRUE(p && c) << error;
  EXPECT_FALSE(p->carryState(0, 0)) << "y (1, 64) is not the state's shape";
  EXPECT_FALSE(p->carryState(1, 7)) << "no argument 7";
  ASSERT_TRUE(p->carryState(1, 0));
  EXPECT_FALSE(p->carryState(1, 0)) << "already carried";

  auto stepBoth = [&](const std::string &what) {
    in.next(rng);
    in.copyInto(pin);
    in.copyInto(cin);
    ASSERT_TRUE(p->invoke(error)) << error;
    ASSERT_TRUE(c->invoke(error)) << error;
    ch.storage = cout[1].storage; // the state through the host
    expectEqual(pout[0], cout[0], "y of " + what);
  };
  // An odd number of calls leaves the state in the result's memory, an even
  // one in the argument's: the sync gives the same state either way.
  for (int calls : {kSteps - 1, kSteps}) {
    for (int s = 0; s < calls; ++s)
      stepBoth("step " + std::to_string(s) + " of " + std::to_string(calls));
    ASSERT_TRUE(p->syncToHost(error)) << error;
    expectEqual(ph, ch, "state after " + std::to_string(calls) + " calls and a sync");
    ASSERT_TRUE(p->syncToHost(error)) << error; // again: nothing to do
    expectEqual(ph, ch, "state after a second sync");
  }
  // After a sync the argument's memory is the one read: a changed state is used.
  for (float &v : ph.f32())
    v *= -0.5f;
  for (float &v : ch.f32())
    v *= -0.5f;
  for (int s = 0; s < 3; ++s)
    stepBoth("step " + std::to_string(s) + " after the host changed the state");
  ASSERT_TRUE(p->syncToHost(error)) << error;
  expectEqual(ph, ch, "state after the host changed it");
}

TEST_F(HostCarryTest, SegmentedFunctionCarriesEveryLayersState) {
  std::mt19937 rng(22);
  StepInputs in(rng), pin = in, cin = in;
  HostTensor h1 = random({1, kDim, kN}, rng, -1, 1), h2 = random({1, kDim, kN}, rng, -1, 1);
  HostTensor p1 = h1, p2 = h2, c1 = h1, c2 = h2;
  std::vector<HostTensor> pout, cout;
  std::string error;
  auto bindTwo = [&](HostTensor &a, HostTensor &b, StepInputs &s, std::vector<HostTensor> &o) {
    const ssm::rt::FunctionInfo *fn = module->find("two");
    EXPECT_TRUE(fn && fn->segmented) << "@two calls @layer: a segmented function";
    return module->bind(*fn, {&a, &b, &s.x, &s.dt, &s.A, &s.B, &s.C, &s.D}, o, error);
  };
  auto p = bindTwo(p1, p2, pin, pout);
  auto c = bindTwo(c1, c2, cin, cout);
  ASSERT_TRUE(p && c) << error;
  ASSERT_TRUE(p->carryState(1, 0));
  ASSERT_TRUE(p->carryState(2, 1));
  for (int s = 0; s < kSteps + 1; ++s) {
    in.next(rng);
    in.copyInto(pin);
    in.copyInto(cin);
    ASSERT_TRUE(p->invoke(error)) << error;
    ASSERT_TRUE(c->invoke(error)) << error;
    c1.storage = cout[1].storage;
    c2.storage = cout[2].storage;
    expectEqual(pout[0], cout[0], "y of step " + std::to_string(s));
  }
  ASSERT_TRUE(p->syncToHost(error)) << error;
  expectEqual(p1, c1, "layer 1 state after sync");
  expectEqual(p2, c2, "layer 2 state after sync");
}

} // namespace
