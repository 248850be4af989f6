// The model library on a GPU module (opencl engine, PoCL in CI): the states stay on the
// device between calls (BoundCall::carryOnDevice), and everything that reads or writes
// them on the host (a sequence call after steps, state(), setState(), save, load, reset,
// a DLPack view) sees and sets the state the kernels use. Checked against rwkv.cpp's
// logits and against the same model compiled for the CPU (ctest fixture
// model-library.setup: m/compiled/l2 for the CPU, m-gpu/compiled/opencl-l2).
//
// Needs ../shared/models/rwkv (fails, naming the folder, when it is missing) and an
// OpenCL ICD (pocl-opencl-icd, ocl-icd-opencl-dev: scripts/install-deps.sh).
#include "ssm_runtime.hpp"

#include <dlpack/dlpack.h>

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;
using ssm::runtime::Model;
using ssm::runtime::Stream;

namespace {

const std::vector<int32_t> kPrompt = {34, 105, 110}; // `"in`
const std::vector<int32_t> kMore = {32, 116, 104, 101, 32, 98};

class ModelLibraryGpuTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    std::string models = std::string(SSM_SHARED_DIR) + "/models/rwkv";
    ASSERT_TRUE(fs::exists(models + "/reseeded-rwkv-4v0-seed1-FP32.bin"))
        << models << " is missing: this test needs the shared model files";
    root = SSM_MODEL_LIBRARY_DIR;
    ASSERT_TRUE(fs::exists(root + "/m-gpu/compiled/opencl-l2/manifest.json"))
        << root << "/m-gpu is not prepared: run the tests through ctest (fixture "
        << "model-library-gpu.setup)";
    std::ifstream f(models + "/expected-logits-reseeded-4v0-seed1.bin", std::ios::binary);
    expected.resize(256);
    f.read(reinterpret_cast<char *>(expected.data()), 256 * sizeof(float));
    ASSERT_TRUE(f) << "cannot read rwkv.cpp's expected logits";
  }
  static std::string root;
  static std::vector<float> expected;
};
std::string ModelLibraryGpuTest::root;
std::vector<float> ModelLibraryGpuTest::expected;

float maxAbsDiff(const std::vector<float> &a, const std::vector<float> &b) {
  EXPECT_EQ(a.size(), b.size());
  float worst = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    worst = std::max(worst, std::fabs(a[i] - b[i]));
  return worst;
}

// Tolerance: the shared models' README (a faithful float32 implementation lands
// within 3e-6 of rwkv.cpp), with the margin of the other engines' tests.
constexpr float kTol = 1e-4f;

TEST_F(ModelLibraryGpuTest, SequenceThenStepsMatchRwkvCppAndTheCpu) {
  Model gpu(root + "/m-gpu"), cpu(root + "/m");
  Stream g(gpu), c(cpu);
  // 3 tokens: one 2-token sequence call, then a step (the states pass from
  // one compiled function to the other).
  EXPECT_LE(maxAbsDiff(g.prefill(kPrompt), expected), kTol);
  c.prefill(kPrompt);
  for (int32_t t : kMore)
    EXPECT_LE(maxAbsDiff(g.step(t), c.step(t)), kTol) << "token " << t;
  // A sequence call after steps starts from the steps' state.
  EXPECT_LE(maxAbsDiff(g.prefill({104, 105}), c.prefill({104, 105})), kTol);
  for (const auto &st : gpu.states())
    EXPECT_LE(maxAbsDiff(g.state(st.name, st.numel), c.state(st.name, st.numel)), kTol)
        << st.name;
}

TEST_F(ModelLibraryGpuTest, HostReadsAndWritesOfTheStateAreSeen) {
  Model gpu(root + "/m-gpu"), cpu(root + "/m");
  Stream g(gpu), c(cpu);
  g.prefill(kPrompt);
  c.prefill(kPrompt);
  g.step(kMore[0]);
  c.step(kMore[0]);
  // setState after steps: the next step starts from the values set.
  auto states = gpu.states();
  ASSERT_FALSE(states.empty());
  for (const auto &st : states) {
    std::vector<float> v = c.state(st.name, st.numel);
    for (float &x : v)
      x *= 0.5f;
    g.setState(st.name, v);
    c.setState(st.name, v);
  }
  EXPECT_LE(maxAbsDiff(g.step(kMore[1]), c.step(kMore[1])), kTol);

  // save and load: a new stream continues like the saved one.
  std::string path = root + "/gpu-after.ssmstate";
  g.save(path);
  std::vector<std::vector<float>> unbroken;
  for (size_t i = 2; i < kMore.size(); ++i)
    unbroken.push_back(g.step(kMore[i]));
  Stream loaded(gpu);
  loaded.step(7); // some other state first, left on the device by the load
  loaded.load(path);
  for (size_t i = 2; i < kMore.size(); ++i)
    EXPECT_EQ(loaded.step(kMore[i]), unbroken[i - 2]) << "token " << i; // same kernels: bit for bit

  // reset: the prompt gives rwkv.cpp's logits again.
  g.reset();
  EXPECT_LE(maxAbsDiff(g.prefill(kPrompt), expected), kTol);
}

TEST_F(ModelLibraryGpuTest, DlpackStateViewFollowsEveryStep) {
  Model gpu(root + "/m-gpu"), cpu(root + "/m");
  Stream g(gpu), c(cpu);
  auto st = gpu.states().front();
  DLManagedTensor *view = nullptr;
  ASSERT_EQ(ssm_stream_state_dlpack(g.get(), st.name.c_str(), &view), SSM_OK);
  const float *data = static_cast<const float *>(view->dl_tensor.data);
  g.prefill(kPrompt);
  c.prefill(kPrompt);
  for (int k = 0; k < 3; ++k) {
    g.step(kMore[k]);
    c.step(kMore[k]);
    std::vector<float> want = c.state(st.name, st.numel);
    EXPECT_LE(maxAbsDiff(std::vector<float>(data, data + st.numel), want), kTol) << "step " << k;
  }
  // Writing through the view sets the state the next step uses.
  std::vector<float> zeros(st.numel, 0.0f);
  std::copy(zeros.begin(), zeros.end(), static_cast<float *>(view->dl_tensor.data));
  c.setState(st.name, zeros);
  EXPECT_LE(maxAbsDiff(g.step(kMore[3]), c.step(kMore[3])), kTol);
  view->deleter(view);
}

} // namespace
