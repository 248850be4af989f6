// States carried on the device between calls of a GPU module (BoundCall::carryState):
// decode steps on the opencl engine (PoCL in CI) give what the cpu engine gives with the
// state carried through the host, without moving the state between host and device.
//
// Needs an OpenCL ICD (pocl-opencl-icd, ocl-icd-opencl-dev: scripts/install-deps.sh);
// ctest label opencl. Graphs: selective_update decode steps (dim 64, N 16), as one
// kernel and as a segmented function calling a layer twice (two states).
#include "StateGraphs.h"

namespace {

using namespace state_graphs;

class DeviceStateTest : public ::testing::Test {
protected:
  // Compiled once for the suite (two ssm-compile runs).
  static void SetUpTestSuite() {
    gpuModule = compile("host-opencl").release();
    cpuModule = compile("host").release();
  }
  static void TearDownTestSuite() {
    delete gpuModule;
    delete cpuModule;
  }
  void SetUp() override {
    ASSERT_TRUE(gpuModule && cpuModule);
    ASSERT_TRUE(gpuModule->onDevice());
    gpu = gpuModule;
    cpu = cpuModule;
  }
  static CompiledModule *gpuModule, *cpuModule;
  CompiledModule *gpu = nullptr, *cpu = nullptr;
};
CompiledModule *DeviceStateTest::gpuModule = nullptr;
CompiledModule *DeviceStateTest::cpuModule = nullptr;

TEST_F(DeviceStateTest, CarriedStateStaysOnTheDeviceAndMatchesTheCpu) {
  std::mt19937 rng(11);
  StepInputs in(rng), gin = in, cin = in, nin = in;
  HostTensor h0 = random({1, kDim, kN}, rng, -1, 1);
  HostTensor gh = h0, ch = h0, nh = h0; // device-carried, cpu, device through the host
  std::vector<HostTensor> gout, cout, nout;
  std::string error;
  auto bindDecode = [&](CompiledModule &m, HostTensor &h, StepInputs &s, std::vector<HostTensor> &o) {
    return m.bind(*m.find("decode"), {&h, &s.x, &s.dt, &s.A, &s.B, &s.C, &s.D}, o, error);
  };
  auto g = bindDecode(*gpu, gh, gin, gout);
  auto c = bindDecode(*cpu, ch, cin, cout);
  auto n = bindDecode(*gpu, nh, nin, nout);
  ASSERT_TRUE(g && c && n) << error;
  ASSERT_TRUE(g->carryState(1, 0));
  EXPECT_FALSE(g->carryState(0, 0)) << "y (1, 64) is not the state's shape";
  EXPECT_FALSE(g->carryState(1, 7)) << "no argument 7";

  int64_t gPrev = 0, nPrev = 0;
  for (int s = 0; s < kSteps; ++s) {
    in.next(rng);
    in.copyInto(gin);
    in.copyInto(cin);
    in.copyInto(nin);
    ASSERT_TRUE(g->invoke(error)) << error;
    ASSERT_TRUE(c->invoke(error)) << error;
    ASSERT_TRUE(n->invoke(error)) << error;
    ch.storage = cout[1].storage; // the state through the host, as before
    nh.storage = nout[1].storage;
    expectNear(gout[0], cout[0], "y of step " + std::to_string(s));
    expectNear(nout[0], cout[0], "y (host carry) of step " + std::to_string(s));
    int64_t gStep = g->hostTransferBytes() - gPrev, nStep = n->hostTransferBytes() - nPrev;
    gPrev += gStep;
    nPrev += nStep;
    // h' is never copied back; after the first call h is not uploaded either.
    EXPECT_EQ(nStep - gStep, (s == 0 ? 1 : 2) * kStateBytes) << "step " << s;
  }
  // The host copy is stale until synced; then it is the CPU's state.
  ASSERT_TRUE(g->syncToHost(error)) << error;
  expectNear(gh, ch, "state after sync");
  ASSERT_TRUE(g->syncToHost(error)) << error; // again: nothing to do
  expectNear(gh, ch, "state after a second sync");

  // After a sync the host's copy is the one used: a changed state is uploaded.
  for (float &v : gh.f32())
    v *= -0.5f;
  for (float &v : ch.f32())
    v *= -0.5f;
  for (int s = 0; s < 2; ++s) {
    in.next(rng);
    in.copyInto(gin);
    in.copyInto(cin);
    ASSERT_TRUE(g->invoke(error)) << error;
    ASSERT_TRUE(c->invoke(error)) << error;
    ch.storage = cout[1].storage;
    expectNear(gout[0], cout[0], "y after the host changed the state, step " + std::to_string(s));
  }
  ASSERT_TRUE(g->syncToHost(error)) << error;
  expectNear(gh, ch, "state after the host changed it");
}

TEST_F(DeviceStateTest, SegmentedFunctionCarriesEveryLayersState) {
  std::mt19937 rng(12);
  StepInputs in(rng), gin = in, cin = in;
  HostTensor h1 = random({1, kDim, kN}, rng, -1, 1), h2 = random({1, kDim, kN}, rng, -1, 1);
  HostTensor g1 = h1, g2 = h2, c1 = h1, c2 = h2;
  std::vector<HostTensor> gout, cout;
  std::string error;
  auto bindTwo = [&](CompiledModule &m, HostTensor &a, HostTensor &b, StepInputs &s,
                     std::vector<HostTensor> &o) {
    const ssm::rt::FunctionInfo *fn = m.find("two");
    EXPECT_TRUE(fn && fn->segmented) << "@two calls @layer: a segmented function";
    return m.bind(*fn, {&a, &b, &s.x, &s.dt, &s.A, &s.B, &s.C, &s.D}, o, error);
  };
  auto g = bindTwo(*gpu, g1, g2, gin, gout);
  auto c = bindTwo(*cpu, c1, c2, cin, cout);
  ASSERT_TRUE(g && c) << error;
  ASSERT_TRUE(g->carryState(1, 0));
  ASSERT_TRUE(g->carryState(2, 1));
  int64_t prev = 0, first = 0;
  for (int s = 0; s < kSteps; ++s) {
    in.next(rng);
    in.copyInto(gin);
    in.copyInto(cin);
    ASSERT_TRUE(g->invoke(error)) << error;
    ASSERT_TRUE(c->invoke(error)) << error;
    c1.storage = cout[1].storage;
    c2.storage = cout[2].storage;
    expectNear(gout[0], cout[0], "y of step " + std::to_string(s));
    int64_t step = g->hostTransferBytes() - prev;
    prev += step;
    if (s == 0)
      first = step;
    else // the first call uploads both states, the others neither
      EXPECT_EQ(first - step, 2 * kStateBytes) << "step " << s;
  }
  ASSERT_TRUE(g->syncToHost(error)) << error;
  expectNear(g1, c1, "layer 1 state after sync");
  expectNear(g2, c2, "layer 2 state after sync");
}

} // namespace
