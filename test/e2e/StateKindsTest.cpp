// State kinds of the model library (runtime/ModelSpec.h): a cache state that
// grows with the position, the position argument, and ContextFull past the
// cache's capacity, on a compiled toy model whose expected logits are
// written out by hand below (not computed by the code under test).
//
// The toy model (vocabulary 3, a cache "kv" of 4 positions x 2 channels, a
// weight "scale"): a step at position p with token t writes row p of the
// cache as (t, t + 1) and returns logits[j] = scale * kv[j][0] + 100 p for
// j = 0, 1, 2. With scale = 2, the tokens 2, 0, 1 at positions 0, 1, 2 give
//   after 2: kv rows (2,3) (0,0) (0,0) (0,0)  logits 4, 0, 0
//   after 0: kv rows (2,3) (0,1) ...          logits 104, 100, 100
//   after 1: kv rows (2,3) (0,1) (1,2) ...    logits 204, 200, 202
// The batched step function (2 streams) does the same per row, with each
// row's own position.
#include "runtime/Model.h"
#include "ToyModelFolder.h"
#include "runtime/StateFile.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace ssm::rt;

namespace {

/// kv'[.., p, c] = p == position ? token + c : kv[.., p, c]; logits from kv'.
/// `batch` 0: the step function (shapes (1), (4, 2), (1, 3)); else the
/// batched one with a leading batch dim.
std::string stepFunction(int batch) {
  const bool b = batch > 0;
  const std::string B = std::to_string(b ? batch : 1);
  const std::string kv = b ? "tensor<" + B + "x4x2xf32>" : "tensor<4x2xf32>";
  const std::string ids = "tensor<" + B + "xi32>";
  const std::string logits = "tensor<" + B + "x3xf32>";
  const std::string name = b ? "forward_step_batched" : "forward_step";
  const std::string kvMap = b ? "affine_map<(b, p, c) -> (b, p, c)>" : "affine_map<(p, c) -> (p, c)>";
  const std::string kvIters = b ? "\"parallel\", \"parallel\", \"parallel\"" : "\"parallel\", \"parallel\"";
  // Index names inside the bodies: the batch row (0 for the step function).
  const std::string rowIdx = b ? "%r = linalg.index 0 : index\n" : "%r = arith.constant 0 : index\n";
  const std::string pDim = b ? "1" : "0", cDim = b ? "2" : "1";
  std::string s;
  s += "func.func @" + name + "(%tokens: " + ids + " {ssm.name = \"tokens\"}, %position: " + ids +
       " {ssm.name = \"position\"}, %kv: " + kv + " {ssm.state = \"kv\"}, %scale: tensor<1xf32> "
       "{ssm.param = \"scale\"}) -> (" + logits + " {ssm.name = \"logits\"}, " + kv +
       " {ssm.state = \"kv\"}) {\n";
  s += "  %e = tensor.empty() : " + kv + "\n";
  s += "  %kv2 = linalg.generic {indexing_maps = [" + kvMap + ", " + kvMap +
       "], iterator_types = [" + kvIters + "]} ins(%kv : " + kv + ") outs(%e : " + kv + ") {\n";
  s += "  ^bb0(%old: f32, %out: f32):\n";
  s += "    " + rowIdx;
  s += "    %p = linalg.index " + pDim + " : index\n";
  s += "    %c = linalg.index " + cDim + " : index\n";
  s += "    %pos = tensor.extract %position[%r] : " + ids + "\n";
  s += "    %tok = tensor.extract %tokens[%r] : " + ids + "\n";
  s += "    %pi = arith.index_cast %p : index to i32\n";
  s += "    %here = arith.cmpi eq, %pi, %pos : i32\n";
  s += "    %ci = arith.index_cast %c : index to i32\n";
  s += "    %v = arith.addi %tok, %ci : i32\n";
  s += "    %vf = arith.sitofp %v : i32 to f32\n";
  s += "    %r2 = arith.select %here, %vf, %old : f32\n";
  s += "    linalg.yield %r2 : f32\n";
  s += "  } -> " + kv + "\n";
  s += "  %le = tensor.empty() : " + logits + "\n";
  s += "  %l = linalg.generic {indexing_maps = [affine_map<(b, j) -> (b, j)>], iterator_types = "
       "[\"parallel\", \"parallel\"]} outs(%le : " + logits + ") {\n";
  s += "  ^bb0(%out: f32):\n";
  s += "    %r = linalg.index 0 : index\n";
  s += "    %j = linalg.index 1 : index\n";
  s += "    %c0 = arith.constant 0 : index\n";
  s += b ? "    %k = tensor.extract %kv2[%r, %j, %c0] : " + kv + "\n"
         : "    %k = tensor.extract %kv2[%j, %c0] : " + kv + "\n";
  s += "    %sc = tensor.extract %scale[%c0] : tensor<1xf32>\n";
  s += "    %pos = tensor.extract %position[%r] : " + ids + "\n";
  s += "    %pf = arith.sitofp %pos : i32 to f32\n";
  s += "    %hundred = arith.constant 100.0 : f32\n";
  s += "    %ph = arith.mulf %pf, %hundred : f32\n";
  s += "    %ks = arith.mulf %k, %sc : f32\n";
  s += "    %y = arith.addf %ks, %ph : f32\n";
  s += "    linalg.yield %y : f32\n";
  s += "  } -> " + logits + "\n";
  s += "  return %l, %kv2 : " + logits + ", " + kv + "\n}\n";
  return s;
}

/// A safetensors file holding scale = (2.0) as F32.
void writeWeights(const std::string &path) {
  std::string header = R"({"scale":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
  while (header.size() % 8)
    header += ' ';
  uint64_t n = header.size();
  float two = 2.0f;
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char *>(&n), 8);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(reinterpret_cast<const char *>(&two), 4);
}

class StateKindsTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    dir_ = ::testing::TempDir() + "ssm-state-kinds-" + std::to_string(getpid());
    std::filesystem::create_directories(dir_ + "/compiled");
    std::ofstream(dir_ + "/model.json") << R"({
  "format": "ssm-opt-model", "architecture": "toy-cache", "config": {"vocab_size": 3},
  "states": [{"name": "kv", "shape": [4, 2], "kind": "cache", "axis": 0}],
  "functions": {"step": "forward_step", "step_batched": {"name": "forward_step_batched", "batch": 2}}
})";
    writeWeights(dir_ + "/weights.safetensors");
    std::ofstream(dir_ + "/graph.mlir") << stepFunction(0) << stepFunction(2);
    compiled_ = toy_model::compileGraph(dir_);
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }

  std::unique_ptr<Model> open() { return toy_model::open(dir_, compiled_); }

  static std::string dir_;
  static bool compiled_;
};

std::string StateKindsTest::dir_;
bool StateKindsTest::compiled_ = false;

void expectLogits(const Stream &s, std::vector<float> want) {
  ASSERT_EQ(s.logits().size(), want.size());
  for (size_t j = 0; j < want.size(); ++j)
    EXPECT_EQ(s.logits()[j], want[j]) << "logit " << j << " at position " << s.position();
}

} // namespace

TEST_F(StateKindsTest, ModelJsonDeclaresACacheState) {
  auto m = open();
  ASSERT_TRUE(m);
  const StateSpec &kv = m->spec().states.at(0);
  EXPECT_EQ(kv.kind, StateKind::Cache);
  EXPECT_EQ(kv.axis, 0);
  EXPECT_EQ(kv.capacity(), 4);
  EXPECT_EQ(m->contextLength(), 4);
}

TEST_F(StateKindsTest, StepsWriteTheirPositionAndSeeEarlierOnes) {
  auto m = open();
  ASSERT_TRUE(m);
  Stream s(*m);
  ASSERT_TRUE(s.step(2));
  expectLogits(s, {4, 0, 0});
  ASSERT_TRUE(s.step(0));
  expectLogits(s, {104, 100, 100});
  ASSERT_TRUE(s.step(1));
  expectLogits(s, {204, 200, 202});
  const HostTensor &kv = s.state(0);
  std::vector<float> want = {2, 3, 0, 1, 1, 2, 0, 0};
  EXPECT_EQ(std::vector<float>(kv.f32().begin(), kv.f32().end()), want);
}

TEST_F(StateKindsTest, PastTheCapacityIsContextFullAndRunsNothing) {
  auto m = open();
  ASSERT_TRUE(m);
  Stream s(*m);
  const int32_t three[] = {2, 0, 1};
  ASSERT_TRUE(s.prefill(three, 3));
  const int32_t two[] = {1, 1};
  Status st = s.prefill(two, 2);
  EXPECT_EQ(st.code(), Code::ContextFull);
  EXPECT_NE(st.message().find("'kv'"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("4 positions"), std::string::npos) << st.message();
  EXPECT_EQ(s.position(), 3);
  expectLogits(s, {204, 200, 202});
  ASSERT_TRUE(s.step(2)); // the fourth position fits
  expectLogits(s, {304, 300, 302});
  EXPECT_EQ(s.step(0).code(), Code::ContextFull);
  s.reset();
  EXPECT_EQ(s.position(), 0);
  ASSERT_TRUE(s.step(1)); // a reset stream starts over with an empty cache
  expectLogits(s, {2, 0, 0});
}

TEST_F(StateKindsTest, SaveAndLoadKeepTheCacheAndPosition) {
  auto m = open();
  ASSERT_TRUE(m);
  Stream a(*m), b(*m);
  ASSERT_TRUE(a.step(2));
  ASSERT_TRUE(a.step(0));
  std::string path = dir_ + "/a.state";
  ASSERT_TRUE(a.save(path));
  ASSERT_TRUE(b.load(path));
  EXPECT_EQ(b.position(), 2);
  ASSERT_TRUE(b.step(1));
  expectLogits(b, {204, 200, 202});
}

TEST_F(StateKindsTest, ACompactSnapshotHoldsTheRowsReadAndRestoresLikeAWholeOne) {
  // A server's prompt cache keeps compact snapshots: the cache's rows of the
  // positions read only. Restored into a stream that had read other tokens,
  // the rows past them are the init (0) again, and the stream continues as
  // the hand-computed logits say.
  auto m = open();
  ASSERT_TRUE(m);
  Stream a(*m);
  ASSERT_TRUE(a.step(2));
  ASSERT_TRUE(a.step(0));
  SavedState compact, whole;
  ASSERT_TRUE(a.snapshot(compact, /*compactCaches=*/true));
  ASSERT_TRUE(a.snapshot(whole));
  EXPECT_EQ(compact.states.at(0).shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(compact.states.at(0).values, (std::vector<float>{2, 3, 0, 1}));
  EXPECT_EQ(whole.states.at(0).shape, (std::vector<int64_t>{4, 2}));

  Stream b(*m);
  const int32_t other[] = {1, 2, 2};
  ASSERT_TRUE(b.prefill(other, 3)); // rows 0..2 hold (1,2) (2,3) (2,3)
  ASSERT_TRUE(b.restore(compact));
  EXPECT_EQ(b.position(), 2);
  const HostTensor &kv = b.state(0);
  EXPECT_EQ(std::vector<float>(kv.f32().begin(), kv.f32().end()),
            (std::vector<float>{2, 3, 0, 1, 0, 0, 0, 0}));
  ASSERT_TRUE(b.step(1));
  expectLogits(b, {204, 200, 202});

  // Fewer rows than the position (the saved stream passes its own caches:
  // corrupt): refused, the stream unchanged.
  SavedState shortRows = compact;
  shortRows.states[0].shape = {1, 2};
  shortRows.states[0].values = {2, 3};
  Stream c(*m);
  Status st = c.restore(shortRows, "short");
  EXPECT_EQ(st.code(), Code::InvalidFile) << st.message();
  EXPECT_EQ(c.position(), 0);
  // More rows than the capacity (saved from the model opened with a larger
  // context, Model::open): the rows this capacity holds, as the position
  // fits it.
  SavedState longRows = whole;
  longRows.states[0].shape = {5, 2};
  longRows.states[0].values.resize(10, 9.0f);
  Stream d(*m);
  ASSERT_TRUE(d.restore(longRows, "long"));
  const HostTensor &kvLong = d.state(0);
  EXPECT_EQ(std::vector<float>(kvLong.f32().begin(), kvLong.f32().end()),
            (std::vector<float>{2, 3, 0, 1, 0, 0, 0, 0}));
  SavedState wrongCount = compact;
  wrongCount.states[0].values.pop_back();
  EXPECT_EQ(c.restore(wrongCount, "count").code(), Code::Mismatch);
  EXPECT_EQ(c.position(), 0);
}

TEST_F(StateKindsTest, AStateFileWithAPositionOutsideTheCacheIsRefused) {
  // The position is handed to kernels that index the cache with it: a file
  // (checksum intact) whose position is negative or past the capacity is
  // refused, the stream left as it was.
  auto m = open();
  ASSERT_TRUE(m);
  Stream a(*m);
  ASSERT_TRUE(a.step(2));
  std::string path = dir_ + "/pos.state";
  ASSERT_TRUE(a.save(path));
  SavedState saved;
  ASSERT_TRUE(readStateFile(path, saved));
  for (int64_t bad : {int64_t(-5), int64_t(5), int64_t(1) << 62}) {
    saved.position = bad;
    ASSERT_TRUE(writeStateFile(path, saved));
    Stream b(*m);
    Status st = b.load(path);
    EXPECT_EQ(st.code(), Code::InvalidFile) << bad << ": " << st.message();
    EXPECT_NE(st.message().find("position " + std::to_string(bad)), std::string::npos)
        << st.message();
    EXPECT_EQ(b.position(), 0);
  }
}

TEST(StateFileRead, AFifoWhoseWriterSendsNothingTimesOut) {
  // A writer opens the FIFO, sends the first 8 bytes of a state file and
  // holds it open for 1.5 s: the read gives up after its idle timeout (here
  // 300 ms) naming the file, instead of waiting for the writer (before: it
  // blocked until the writer closed, forever for one that never does).
  std::string fifo = ::testing::TempDir() + "/state-" + std::to_string(::getpid()) + ".fifo";
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // A reader held for the writer's non-blocking open, closed once the bytes
  // are in the pipe (they stay while the writer holds it open).
  int holder = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(holder, 0);
  int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "SSMSTATE", 8), 8);
  ::close(holder);
  std::thread writer([fd] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    ::close(fd);
  });
  SavedState s;
  const auto t0 = std::chrono::steady_clock::now();
  Status st = readStateFile(fifo, s, 1 << 20, nullptr, /*idleTimeoutMs=*/300);
  const auto took = std::chrono::steady_clock::now() - t0;
  writer.join();
  ::unlink(fifo.c_str());
  EXPECT_EQ(st.code(), Code::InvalidFile) << st.message();
  EXPECT_NE(st.message().find("nothing more came for 300 ms after 8 bytes"), std::string::npos)
      << st.message();
  EXPECT_LT(took, std::chrono::milliseconds(1200)) << "the read waited for the writer";
}

TEST_F(StateKindsTest, BatchedStepTakesEachStreamsPosition) {
  auto m = open();
  ASSERT_TRUE(m);
  ASSERT_EQ(m->stepBatch(), 2);
  Stream a(*m), b(*m);
  ASSERT_TRUE(a.step(2)); // a at position 1, b at 0
  Stream *both[] = {&a, &b};
  const int32_t tokens[] = {0, 1};
  ASSERT_TRUE(m->stepTogether(both, 2, tokens));
  expectLogits(a, {104, 100, 100}); // as the second step alone
  expectLogits(b, {2, 0, 0});       // as a first step alone: row 0 = (1, 2)
  EXPECT_EQ(a.position(), 2);
  EXPECT_EQ(b.position(), 1);
  // a stream at its capacity stops the batched call before anything runs
  ASSERT_TRUE(a.step(1));
  ASSERT_TRUE(a.step(1));
  ASSERT_EQ(a.position(), 4);
  Stream *full_last[] = {&b, &a};
  size_t failed = 99;
  Status st = m->stepTogether(full_last, 2, tokens, &failed);
  EXPECT_EQ(st.code(), Code::ContextFull);
  EXPECT_NE(st.message().find("'kv'"), std::string::npos) << st.message();
  EXPECT_EQ(failed, 1u); // the full stream, a
  EXPECT_EQ(b.position(), 1);
}

TEST_F(StateKindsTest, AContextAtOpenTheKernelCannotHoldIsNamed) {
  // The toy step function rewrites its whole cache (no "append" in place),
  // so it runs at the 4 positions it was compiled for only: opened with 3
  // (Model::open's context), its first call is refused naming both
  // capacities and how to get the other. The batched function, whose caches
  // are copied in and out of its batch buffers row by row, runs at 3 and
  // ends at the hand-computed logits; position 3 is then ContextFull.
  ASSERT_TRUE(compiled_);
  Status st;
  std::unique_ptr<Model> m = Model::open(dir_, st, WeightLoad::Copy, 3);
  ASSERT_TRUE(m) << st.message();
  EXPECT_EQ(m->contextLength(), 3);
  EXPECT_EQ(m->spec().states.at(0).shape, (std::vector<int64_t>{3, 2}));
  Stream alone(*m);
  st = alone.step(2);
  EXPECT_EQ(st.code(), Code::Unsupported) << st.message();
  EXPECT_NE(st.message().find("compiled for KV caches of 4 positions"), std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("--context 3"), std::string::npos) << st.message();
  Stream a(*m), b(*m);
  Stream *both[] = {&a, &b};
  const int32_t first[] = {2, 1}, second[] = {0, 0}, third[] = {1, 1};
  ASSERT_TRUE(m->stepTogether(both, 2, first));
  expectLogits(a, {4, 0, 0});
  expectLogits(b, {2, 0, 0});
  ASSERT_TRUE(m->stepTogether(both, 2, second));
  expectLogits(a, {104, 100, 100});
  expectLogits(b, {102, 100, 100});
  ASSERT_TRUE(m->stepTogether(both, 2, third));
  expectLogits(a, {204, 200, 202});
  const HostTensor &kv = a.state(0);
  EXPECT_EQ(std::vector<float>(kv.f32().begin(), kv.f32().end()),
            (std::vector<float>{2, 3, 0, 1, 1, 2}));
  EXPECT_EQ(m->stepTogether(both, 2, third).code(), Code::ContextFull);
  EXPECT_EQ(a.position(), 3);
  // Out of range: named.
  for (int64_t bad : {int64_t(-1), (int64_t(1) << 30) + 1}) { // 0: model.json's
    EXPECT_FALSE(Model::open(dir_, st, WeightLoad::Copy, bad)) << bad;
    EXPECT_EQ(st.code(), Code::InvalidArgument) << st.message();
    EXPECT_NE(st.message().find("--context " + std::to_string(bad)), std::string::npos)
        << st.message();
  }
}

TEST(StateKindsSpec, MalformedKindsAreRefusedNamingTheState) {
  std::string dir = ::testing::TempDir() + "ssm-state-kinds-bad-" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  auto load = [&](const std::string &states) {
    std::ofstream(dir + "/model.json")
        << R"({"format": "ssm-opt-model", "architecture": "x", "states": [)" << states << "]}";
    ModelSpec spec;
    return ModelSpec::load(dir, spec);
  };
  Status st = load(R"({"name": "kv", "shape": [4, 2], "kind": "cache"})");
  EXPECT_EQ(st.code(), Code::InvalidFile);
  EXPECT_NE(st.message().find("cache state 'kv'"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("\"axis\""), std::string::npos) << st.message();
  st = load(R"({"name": "kv", "shape": [4, 2], "kind": "cache", "axis": 2})");
  EXPECT_EQ(st.code(), Code::InvalidFile) << st.message();
  st = load(R"({"name": "kv", "shape": [4, 2], "kind": "cache", "axis": -1})");
  EXPECT_EQ(st.code(), Code::InvalidFile) << st.message();
  st = load(R"({"name": "kv", "shape": [0, 2], "kind": "cache", "axis": 0})");
  EXPECT_EQ(st.code(), Code::InvalidFile);
  EXPECT_NE(st.message().find("holds no position"), std::string::npos) << st.message();
  st = load(R"({"name": "kv", "shape": [4, 2], "kind": "cache", "axis": 1e0})");
  EXPECT_EQ(st.code(), Code::InvalidFile);
  EXPECT_NE(st.message().find("has \"axis\": 1.0"), std::string::npos) << st.message();
  st = load(R"({"name": "h", "shape": [4], "kind": "ring"})");
  EXPECT_EQ(st.code(), Code::InvalidFile);
  EXPECT_NE(st.message().find("\"ring\""), std::string::npos) << st.message();
  st = load(R"({"name": "h", "shape": [4], "axis": 0})");
  EXPECT_EQ(st.code(), Code::InvalidFile);
  EXPECT_NE(st.message().find("not a cache"), std::string::npos) << st.message();
  // A model with fixed states only keeps its fingerprint and has no bound.
  ModelSpec spec;
  std::ofstream(dir + "/model.json")
      << R"({"format": "ssm-opt-model", "architecture": "x", "states": [{"name": "h", "shape": [4], "kind": "fixed"}]})";
  ASSERT_TRUE(ModelSpec::load(dir, spec));
  EXPECT_EQ(spec.contextLength(), 0);
  ModelSpec plain;
  std::ofstream(dir + "/model.json")
      << R"({"format": "ssm-opt-model", "architecture": "x", "states": [{"name": "h", "shape": [4]}]})";
  ASSERT_TRUE(ModelSpec::load(dir, plain));
  EXPECT_EQ(plain.fingerprint, spec.fingerprint);
  std::filesystem::remove_all(dir);
}
