// Denormals flushed while kernels run (runtime/DenormalMode.h): the scope sets and restores the
// mode on the calling thread, and a compiled kernel called through the runtime computes with it
// (a product below float32's normal range is 0, a denormal input reads as 0), where the same
// arithmetic outside gives the denormal values. Expected values are IEEE facts, not the code's output.
#include "StateGraphs.h"
#include "runtime/DenormalMode.h"

#include <cstring>

namespace {

using namespace state_graphs;

#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
constexpr bool kHasMode = true;
#else
constexpr bool kHasMode = false;
#endif

float product(float a, float b) {
  volatile float x = a, y = b; // computed at run time, in the thread's mode
  return x * y;
}

/// @mul(a, b) = a * b elementwise, 64 floats (vectorised by the compiler).
std::string mulGraph() {
  const std::string ty = "tensor<64xf32>";
  const std::string map = "affine_map<(i) -> (i)>";
  return "func.func @mul(%a: " + ty + " {ssm.name = \"a\"}, %b: " + ty + " {ssm.name = \"b\"}) -> " +
         ty + " {\n  %e = tensor.empty() : " + ty + "\n  %r = linalg.generic {indexing_maps = [" +
         map + ", " + map + ", " + map + "], iterator_types = [\"parallel\"]} ins(%a, %b : " + ty +
         ", " + ty + ") outs(%e : " + ty + ") {\n  ^bb0(%x: f32, %y: f32, %o: f32):\n" +
         "    %p = arith.mulf %x, %y : f32\n    linalg.yield %p : f32\n  } -> " + ty +
         "\n  return %r : " + ty + "\n}\n";
}

HostTensor filled(float v) {
  HostTensor h;
  h.shape = {64};
  h.allocate<float>(64);
  for (float &x : h.f32())
    x = v;
  return h;
}

} // namespace

TEST(DenormalMode, TheScopeFlushesAndPutsTheCallersModeBack) {
  if (!kHasMode)
    GTEST_SKIP() << "no flush-to-zero mode on this ISA";
  const float tiny = 1e-20f; // 1e-40 is below FLT_MIN (1.18e-38): a denormal
  ASSERT_NE(product(tiny, tiny), 0.0f) << "the test thread starts with denormals kept";
  {
    ssm::rt::DenormalsFlushed flushed;
    EXPECT_EQ(product(tiny, tiny), 0.0f);
    {
      ssm::rt::DenormalsFlushed nested; // already set: a no-op, and so is its end
      EXPECT_EQ(product(tiny, tiny), 0.0f);
    }
    EXPECT_EQ(product(tiny, tiny), 0.0f);
  }
  EXPECT_NE(product(tiny, tiny), 0.0f) << "the caller's mode is back";
}

TEST(DenormalMode, CompiledKernelsRunWithDenormalsFlushed) {
  if (!kHasMode)
    GTEST_SKIP() << "no flush-to-zero mode on this ISA";
  auto module = compileText(mulGraph(), "ssm-denormal-mode", "host");
  ASSERT_TRUE(module);
  const float denormal = 1e-39f;
  ASSERT_NE(product(denormal, 1e10f), 0.0f);
  // A product that underflows, and a denormal input times a large number
  // (1e-29 if the input were read as it is).
  for (auto [a, b] : {std::pair<float, float>{1e-20f, 1e-20f}, {denormal, 1e10f}}) {
    HostTensor x = filled(a), y = filled(b);
    std::vector<HostTensor> out;
    std::string error;
    auto call = module->bind(*module->find("mul"), {&x, &y}, out, error);
    ASSERT_TRUE(call) << error;
    ASSERT_TRUE(call->invoke(error)) << error;
    ASSERT_EQ(out.size(), 1u);
    for (float v : out[0].f32())
      ASSERT_EQ(v, 0.0f) << a << " * " << b;
  }
  EXPECT_NE(product(1e-20f, 1e-20f), 0.0f) << "the caller's mode is back after the call";
}
