// KV caches written in place on a CPU module (BoundCall::carryState with the manifest's
// "append" results): ssm.attention's new caches are marked as the cache arguments with
// this call's rows replaced, and a carried cache is then written where it lives, only
// this call's rows, instead of a whole new cache per call. Checked against the same
// module with every cache copied through the host after each call, bit for bit (the
// same kernel on the same inputs), for a whole cache of decode steps and for 3-token
// prefills; the carried argument holds the state after every call with no sync, the
// result's own buffer is never written, and a position past the cache is refused.
#include "StateGraphs.h"

#include <cstring>

namespace {

using namespace state_graphs;

constexpr int kC = 12, kH = 4, kG = 2, kD = 8;

std::string attendFunction(const std::string &name, int len) {
  const std::string q = t({1, len, kH, kD}), kv = t({1, len, kG, kD}), c = t({1, kC, kG, kD}),
                    o = t({1, len, kH, kD});
  return "func.func @" + name + "(%q: " + q + ", %k: " + kv + ", %v: " + kv + ", %kc: " + c +
         " {ssm.state = \"k\"}, %vc: " + c + " {ssm.state = \"v\"}, %pos: tensor<1xi32>) -> (" + o +
         ", " + c + " {ssm.state = \"k\"}, " + c + " {ssm.state = \"v\"}) {\n"
         "  %o, %kn, %vn = ssm.attention %q, %k, %v, %kc, %vc, %pos {scale = 0.35 : f64} : (" +
         q + ", " + kv + ", " + kv + ", " + c + ", " + c + ", tensor<1xi32>) -> (" + o + ", " + c +
         ", " + c + ")\n  return %o, %kn, %vn : " + o + ", " + c + ", " + c + "\n}\n";
}

std::unique_ptr<CompiledModule> compileAttend() {
  return compileText(attendFunction("step", 1) + attendFunction("prefill", 3), "ssm-kv-append",
                     "host");
}

void expectEqual(const HostTensor &got, const HostTensor &want, const std::string &what) {
  ASSERT_EQ(got.f32().size(), want.f32().size()) << what;
  ASSERT_EQ(0, std::memcmp(got.f32().data(), want.f32().data(), got.f32().size() * 4)) << what;
}

class KvAppendTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() { module = compileAttend().release(); }
  static void TearDownTestSuite() { delete module; }
  void SetUp() override { ASSERT_TRUE(module); }
  static CompiledModule *module;
};
CompiledModule *KvAppendTest::module = nullptr;

TEST_F(KvAppendTest, TheManifestMarksTheCachesAsAppended) {
  for (const char *fn : {"step", "prefill"}) {
    const ssm::rt::FunctionInfo *f = module->find(fn);
    ASSERT_TRUE(f);
    EXPECT_FALSE(f->results[0].append) << "the attention output is no cache";
    for (int r : {1, 2}) {
      ASSERT_TRUE(f->results[r].append) << fn << " result " << r;
      EXPECT_EQ(f->results[r].append->axis, 1);
      EXPECT_EQ(f->results[r].append->argument, r + 2);
      EXPECT_EQ(f->results[r].append->position, 5);
      EXPECT_EQ(f->results[r].append->length, std::string(fn) == "step" ? 1 : 3);
    }
  }
}

/// Calls of `len` tokens until the cache is full: in place against copied.
void runToTheEnd(CompiledModule &module, const std::string &fn, int len) {
  std::mt19937 rng(5 + len);
  HostTensor pkc = random({1, kC, kG, kD}, rng, -1, 1), pvc = random({1, kC, kG, kD}, rng, -1, 1);
  HostTensor ckc = pkc, cvc = pvc;
  HostTensor q = random({1, len, kH, kD}, rng, -1, 1), k = random({1, len, kG, kD}, rng, -1, 1),
             v = random({1, len, kG, kD}, rng, -1, 1);
  HostTensor pos;
  pos.shape = {1};
  pos.dtype = "int32";
  pos.allocate<int32_t>(1, 0);
  std::vector<HostTensor> pout, cout;
  std::string error;
  auto p = module.bind(*module.find(fn), {&q, &k, &v, &pkc, &pvc, &pos}, pout, error);
  auto c = module.bind(*module.find(fn), {&q, &k, &v, &ckc, &cvc, &pos}, cout, error);
  ASSERT_TRUE(p && c) << error;
  ASSERT_TRUE(p->carryState(1, 3));
  ASSERT_TRUE(p->carryState(2, 4));
  EXPECT_TRUE(p->carriesInPlace(1) && p->carriesInPlace(2));
  EXPECT_FALSE(p->carriesInPlace(0) || c->carriesInPlace(1));
  const auto untouched = pout[1].storage;
  for (int at = 0; at + len <= kC; at += len) {
    pos.i32()[0] = at;
    HostTensor nq = random(q.shape, rng, -1, 1), nk = random(k.shape, rng, -1, 1),
               nv = random(v.shape, rng, -1, 1);
    q.storage = nq.storage;
    k.storage = nk.storage;
    v.storage = nv.storage;
    ASSERT_TRUE(p->invoke(error)) << error;
    ASSERT_TRUE(c->invoke(error)) << error;
    ckc.storage = cout[1].storage; // the caches through the host
    cvc.storage = cout[2].storage;
    const std::string what = fn + " at position " + std::to_string(at);
    expectEqual(pout[0], cout[0], "attention output of " + what);
    expectEqual(pkc, ckc, "k cache (no sync) after " + what);
    expectEqual(pvc, cvc, "v cache (no sync) after " + what);
  }
  EXPECT_TRUE(pout[1].storage == untouched) << "the result's own buffer was written";
  ASSERT_TRUE(p->syncToHost(error)) << error; // nothing to do
  expectEqual(pkc, ckc, "k cache after a sync");
  // Past the cache: refused by the runtime, the caches unchanged.
  pos.i32()[0] = kC - len + 1;
  const HostTensor before = pkc;
  EXPECT_FALSE(p->invoke(error));
  EXPECT_NE(error.find("outside the 12 rows"), std::string::npos) << error;
  expectEqual(pkc, before, "k cache after a refused call");
}

TEST_F(KvAppendTest, DecodeStepsWriteInPlaceLikeCopiesThroughTheHost) {
  runToTheEnd(*module, "step", 1);
}

TEST_F(KvAppendTest, PrefillsWriteInPlaceLikeCopiesThroughTheHost) {
  runToTheEnd(*module, "prefill", 3);
}

} // namespace
