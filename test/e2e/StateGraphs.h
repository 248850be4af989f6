// Graphs and inputs shared by the carried-state tests (DeviceStateTest.cpp on a GPU
// module, HostCarryTest.cpp on the CPU): selective_update decode steps (dim 64, N 16),
// as one kernel (@decode) and as a segmented function calling a layer twice (@two,
// two states), compiled with ssm-compile (SSM_COMPILE_PATH). StreamingSessionTest.cpp
// uses its tensor-type (t) and random-input (random) helpers.
#ifndef SSM_TEST_E2E_STATE_GRAPHS_H
#define SSM_TEST_E2E_STATE_GRAPHS_H

#include "runtime/Module.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>

namespace state_graphs {

using ssm::rt::BoundCall;
using ssm::rt::CompiledModule;
using ssm::rt::HostTensor;

constexpr int kDim = 64, kN = 16, kSteps = 6;
constexpr int64_t kStateBytes = int64_t(kDim) * kN * 4;

inline std::string t(std::initializer_list<int> shape) {
  std::string s = "tensor<";
  for (int d : shape)
    s += std::to_string(d) + "x";
  return s + "f32>";
}

/// @decode(h {state h}, x, dt, A, B, C, D) -> (y, h') and @two(h1, h2, x, ...) ->
/// (y, h1', h2'): @layer twice, the second on the first's output.
inline std::string moduleText() {
  std::string st = t({1, kDim, kN}), x = t({1, kDim}), A = t({kDim, kN}), bn = t({1, kN}),
              D = t({kDim});
  std::string types = st + ", " + x + ", " + x + ", " + A + ", " + bn + ", " + bn + ", " + D;
  std::string update = "ssm.selective_update %s, %x, %dt, %A, %B, %C D(%D) {dt_softplus} : (" +
                       types + ") -> (" + x + ", " + st + ")";
  std::string params = "%x: " + x + ", %dt: " + x + ", %A: " + A + ", %B: " + bn + ", %C: " + bn +
                       ", %D: " + D;
  std::string decode = "func.func @decode(%s: " + st + " {ssm.state = \"h\"}, " + params +
                       ") -> (" + x + ", " + st + " {ssm.state = \"h\"}) {\n  %y, %s2 = " + update +
                       "\n  return %y, %s2 : " + x + ", " + st + "\n}\n";
  std::string layer = "func.func private @layer(%s: " + st + ", " + params + ") -> (" + x + ", " +
                      st + ") {\n  %y, %s2 = " + update + "\n  return %y, %s2 : " + x + ", " + st +
                      "\n}\n";
  std::string two =
      "func.func @two(%h1: " + st + " {ssm.state = \"h1\"}, %h2: " + st + " {ssm.state = \"h2\"}, " +
      params + ") -> (" + x + ", " + st + " {ssm.state = \"h1\"}, " + st +
      " {ssm.state = \"h2\"}) {\n" + "  %y1, %n1 = func.call @layer(%h1, %x, %dt, %A, %B, %C, %D) : (" +
      types + ") -> (" + x + ", " + st + ")\n" +
      "  %y2, %n2 = func.call @layer(%h2, %y1, %dt, %A, %B, %C, %D) : (" + types + ") -> (" + x +
      ", " + st + ")\n  return %y2, %n1, %n2 : " + x + ", " + st + ", " + st + "\n}\n";
  return decode + layer + two;
}

inline HostTensor random(std::vector<int64_t> shape, std::mt19937 &rng, float lo, float hi) {
  HostTensor h;
  h.shape = shape;
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::uniform_real_distribution<float> u(lo, hi);
  h.allocate<float>(n);
  for (float &v : h.f32())
    v = u(rng);
  return h;
}

/// Compiles `text` with ssm-compile for `target` into a temporary folder
/// named after `name` and loads it (null, with a test failure, otherwise).
inline std::unique_ptr<CompiledModule> compileText(const std::string &text,
                                                   const std::string &name,
                                                   const std::string &target) {
  std::string dir = ::testing::TempDir() + name + "-" + target + "-" + std::to_string(getpid());
  std::string mlir = dir + ".mlir";
  std::ofstream(mlir) << text;
  std::string cmd = std::string(SSM_COMPILE_PATH) + " " + mlir + " --target " + target + " -o " +
                    dir + " --force";
  if (std::system(cmd.c_str()) != 0) {
    ADD_FAILURE() << "failed: " << cmd;
    return nullptr;
  }
  std::string error;
  auto m = CompiledModule::load(dir, error);
  EXPECT_TRUE(m) << error;
  return m;
}

inline std::unique_ptr<CompiledModule> compile(const std::string &target) {
  return compileText(moduleText(), "ssm-device-state", target);
}

inline void expectNear(const HostTensor &got, const HostTensor &want, const std::string &what) {
  ASSERT_EQ(got.f32().size(), want.f32().size()) << what;
  for (size_t i = 0; i < got.f32().size(); ++i)
    ASSERT_NEAR(got.f32()[i], want.f32()[i], 1e-5 + 1e-4 * std::fabs(want.f32()[i]))
        << what << ", element " << i;
}

/// The inputs of one decode step (x, dt, B, C change per step; A, D do not).
struct StepInputs {
  HostTensor x, dt, A, B, C, D;
  explicit StepInputs(std::mt19937 &rng)
      : x(random({1, kDim}, rng, -1, 1)), dt(random({1, kDim}, rng, -1, 1)),
        A(random({kDim, kN}, rng, -2, -0.1f)), B(random({1, kN}, rng, -1, 1)),
        C(random({1, kN}, rng, -1, 1)), D(random({kDim}, rng, 0.5f, 1.5f)) {}
  void next(std::mt19937 &rng) {
    x = random({1, kDim}, rng, -1, 1);
    dt = random({1, kDim}, rng, -1, 1);
    B = random({1, kN}, rng, -1, 1);
    C = random({1, kN}, rng, -1, 1);
  }
  /// Copies into `to` keeping its storage (bound calls hold its address).
  void copyInto(StepInputs &to) const {
    to.x.storage = x.storage;
    to.dt.storage = dt.storage;
    to.B.storage = B.storage;
    to.C.storage = C.storage;
  }
};

} // namespace state_graphs

#endif
