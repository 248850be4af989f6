// The batched prefill and the batched step on a cache state with two blocks before its
// position axis (model.json "axis": 1): runtime/BatchedStep.h's StreamStateLayout::outer
// is 2, so gathering a stream's rows into a batch row and scattering the new rows back
// must walk both blocks. The models ssm-import writes hold their caches with the axis
// first (one block), so this toy model is written here by hand and compiled with
// ssm-compile (no ../shared data).
//
// The toy model (vocabulary 3, a cache "kv" of shape (2 blocks, 6 positions, 2 channels),
// a weight "scale" = (1, 3), one per block): reading token t at position p writes
//   kv[o][p][c] = t (o + 1) + c + 10 o          (block o, channel c)
// and the logits after a call ending at position n - 1 (n tokens read in all) are
//   logits[j] = sum over o and r < n of kv[o][r][j mod 2] (r + 1) scale[o] + 100 j,
// every value an integer below 2^24, so exact in f32 whatever the order of the sums.
// A call reads only rows below its position + its tokens, as attention does (the
// batched prefill gathers a stream's rows up to its position only). The functions:
// @forward_sequence (2 tokens), @forward_step, @forward_step_batched (2 streams) and
// @forward_sequence_batched (2 streams of 2 tokens). The expected logits and caches
// come from the formula above (expectedLogits / expectedCache), not from the runtime.
#include "runtime/BatchedStep.h"
#include "runtime/Model.h"
#include "ToyModelFolder.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ssm::rt;

namespace {

constexpr int kBlocks = 2, kCapacity = 6, kChannels = 2, kVocab = 3;
const float kScale[kBlocks] = {1.0f, 3.0f};

/// One function of `streams` streams (batched: a leading dim on the cache) of `len` tokens each.
std::string function(const std::string &name, int streams, int len, bool batched) {
  const std::string S = std::to_string(streams), Ls = std::to_string(len);
  const std::string kv = batched ? "tensor<" + S + "x2x6x2xf32>" : "tensor<2x6x2xf32>";
  const std::string toks = "tensor<" + std::to_string(streams * len) + "xi32>";
  const std::string pos = "tensor<" + S + "xi32>";
  const std::string logits = "tensor<" + S + "x3xf32>";
  const std::string acc = "tensor<" + S + "x2xf32>", mask = "tensor<" + S + "x6xf32>";
  const int lead = batched ? 1 : 0;
  auto idx = [](int d) { return std::to_string(d); };
  std::string kvMap = batched ? "affine_map<(b, o, r, c) -> (b, o, r, c)>"
                              : "affine_map<(o, r, c) -> (o, r, c)>";
  std::string kvIters = batched ? "\"parallel\", \"parallel\", \"parallel\", \"parallel\""
                                : "\"parallel\", \"parallel\", \"parallel\"";
  std::string s;
  s += "func.func @" + name + "(%tokens: " + toks + " {ssm.name = \"tokens\"}, %position: " + pos +
       " {ssm.name = \"position\"}, %kv: " + kv + " {ssm.state = \"kv\"}, %scale: tensor<2xf32> "
       "{ssm.param = \"scale\"}) -> (" + logits + " {ssm.name = \"logits\"}, " + kv +
       " {ssm.state = \"kv\"}) {\n";
  // kv'[b, o, r, c] = token (o + 1) + c + 10 o where position_b <= r < position_b + len.
  s += "  %e = tensor.empty() : " + kv + "\n";
  s += "  %kv2 = linalg.generic {indexing_maps = [" + kvMap + ", " + kvMap +
       "], iterator_types = [" + kvIters + "]} ins(%kv : " + kv + ") outs(%e : " + kv + ") {\n";
  s += "  ^bb0(%old: f32, %out: f32):\n";
  s += batched ? "    %b = linalg.index 0 : index\n" : "    %b = arith.constant 0 : index\n";
  s += "    %o = linalg.index " + idx(lead) + " : index\n";
  s += "    %r = linalg.index " + idx(lead + 1) + " : index\n";
  s += "    %c = linalg.index " + idx(lead + 2) + " : index\n";
  s += "    %p = tensor.extract %position[%b] : " + pos + "\n";
  s += "    %ri = arith.index_cast %r : index to i32\n";
  s += "    %t = arith.subi %ri, %p : i32\n";
  s += "    %zero = arith.constant 0 : i32\n";
  s += "    %len = arith.constant " + Ls + " : i32\n";
  s += "    %last = arith.constant " + std::to_string(len - 1) + " : i32\n";
  s += "    %ge = arith.cmpi sge, %t, %zero : i32\n";
  s += "    %lt = arith.cmpi slt, %t, %len : i32\n";
  s += "    %in = arith.andi %ge, %lt : i1\n";
  s += "    %t0 = arith.maxsi %t, %zero : i32\n";
  s += "    %t1 = arith.minsi %t0, %last : i32\n";
  s += "    %bi = arith.index_cast %b : index to i32\n";
  s += "    %base = arith.muli %bi, %len : i32\n";
  s += "    %ti = arith.addi %base, %t1 : i32\n";
  s += "    %tx = arith.index_cast %ti : i32 to index\n";
  s += "    %tok = tensor.extract %tokens[%tx] : " + toks + "\n";
  s += "    %oi = arith.index_cast %o : index to i32\n";
  s += "    %one = arith.constant 1 : i32\n";
  s += "    %ten = arith.constant 10 : i32\n";
  s += "    %o1 = arith.addi %oi, %one : i32\n";
  s += "    %v0 = arith.muli %tok, %o1 : i32\n";
  s += "    %ci = arith.index_cast %c : index to i32\n";
  s += "    %v1 = arith.addi %v0, %ci : i32\n";
  s += "    %o10 = arith.muli %oi, %ten : i32\n";
  s += "    %v2 = arith.addi %v1, %o10 : i32\n";
  s += "    %vf = arith.sitofp %v2 : i32 to f32\n";
  s += "    %res = arith.select %in, %vf, %old : f32\n";
  s += "    linalg.yield %res : f32\n";
  s += "  } -> " + kv + "\n";
  // mask[b, r] = r + 1 where r < position_b + len, else 0.
  s += "  %me = tensor.empty() : " + mask + "\n";
  s += "  %mask = linalg.generic {indexing_maps = [affine_map<(b, r) -> (b, r)>], iterator_types "
       "= [\"parallel\", \"parallel\"]} outs(%me : " + mask + ") {\n";
  s += "  ^bb0(%out: f32):\n";
  s += "    %b = linalg.index 0 : index\n";
  s += "    %r = linalg.index 1 : index\n";
  s += "    %p = tensor.extract %position[%b] : " + pos + "\n";
  s += "    %len = arith.constant " + Ls + " : i32\n";
  s += "    %end = arith.addi %p, %len : i32\n";
  s += "    %ri = arith.index_cast %r : index to i32\n";
  s += "    %in = arith.cmpi slt, %ri, %end : i32\n";
  s += "    %one = arith.constant 1 : i32\n";
  s += "    %r1 = arith.addi %ri, %one : i32\n";
  s += "    %rf = arith.sitofp %r1 : i32 to f32\n";
  s += "    %zf = arith.constant 0.0 : f32\n";
  s += "    %m = arith.select %in, %rf, %zf : f32\n";
  s += "    linalg.yield %m : f32\n";
  s += "  } -> " + mask + "\n";
  // acc[b, c] = sum over o, r of kv'[b, o, r, c] mask[b, r] scale[o].
  s += "  %zero = arith.constant 0.0 : f32\n";
  s += "  %ae = tensor.empty() : " + acc + "\n";
  s += "  %a0 = linalg.fill ins(%zero : f32) outs(%ae : " + acc + ") -> " + acc + "\n";
  s += "  %acc = linalg.generic {indexing_maps = [" +
       std::string(batched ? "affine_map<(b, c, o, r) -> (b, o, r, c)>"
                           : "affine_map<(b, c, o, r) -> (o, r, c)>") +
       ", affine_map<(b, c, o, r) -> (b, r)>, affine_map<(b, c, o, r) -> (o)>, "
       "affine_map<(b, c, o, r) -> (b, c)>], iterator_types = [\"parallel\", \"parallel\", "
       "\"reduction\", \"reduction\"]} ins(%kv2, %mask, %scale : " + kv + ", " + mask +
       ", tensor<2xf32>) outs(%a0 : " + acc + ") {\n";
  s += "  ^bb0(%x: f32, %m: f32, %w: f32, %in: f32):\n";
  s += "    %xm = arith.mulf %x, %m : f32\n";
  s += "    %xw = arith.mulf %xm, %w : f32\n";
  s += "    %y = arith.addf %in, %xw : f32\n";
  s += "    linalg.yield %y : f32\n";
  s += "  } -> " + acc + "\n";
  // logits[b, j] = acc[b, j mod 2] + 100 j.
  s += "  %le = tensor.empty() : " + logits + "\n";
  s += "  %l = linalg.generic {indexing_maps = [affine_map<(b, j) -> (b, j)>], iterator_types = "
       "[\"parallel\", \"parallel\"]} outs(%le : " + logits + ") {\n";
  s += "  ^bb0(%out: f32):\n";
  s += "    %b = linalg.index 0 : index\n";
  s += "    %j = linalg.index 1 : index\n";
  s += "    %two = arith.constant 2 : index\n";
  s += "    %jc = arith.remui %j, %two : index\n";
  s += "    %a = tensor.extract %acc[%b, %jc] : " + acc + "\n";
  s += "    %ji = arith.index_cast %j : index to i32\n";
  s += "    %jf = arith.sitofp %ji : i32 to f32\n";
  s += "    %hundred = arith.constant 100.0 : f32\n";
  s += "    %jh = arith.mulf %jf, %hundred : f32\n";
  s += "    %y = arith.addf %a, %jh : f32\n";
  s += "    linalg.yield %y : f32\n";
  s += "  } -> " + logits + "\n";
  s += "  return %l, %kv2 : " + logits + ", " + kv + "\n}\n";
  return s;
}

/// A safetensors file holding scale = kScale as F32.
void writeWeights(const std::string &path) {
  std::string header = R"({"scale":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  while (header.size() % 8)
    header += ' ';
  uint64_t n = header.size();
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char *>(&n), 8);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(reinterpret_cast<const char *>(kScale), sizeof kScale);
}

/// The cache after reading `read` (block-major (2, 6, 2), rows past read.size() at 0).
std::vector<float> expectedCache(const std::vector<int32_t> &read) {
  std::vector<float> kv(kBlocks * kCapacity * kChannels, 0.0f);
  for (int o = 0; o < kBlocks; ++o)
    for (size_t r = 0; r < read.size(); ++r)
      for (int c = 0; c < kChannels; ++c)
        kv[(o * kCapacity + r) * kChannels + c] = float(read[r] * (o + 1) + c + 10 * o);
  return kv;
}

/// The logits after reading `read`.
std::vector<float> expectedLogits(const std::vector<int32_t> &read) {
  std::vector<float> kv = expectedCache(read), out(kVocab);
  for (int j = 0; j < kVocab; ++j) {
    double sum = 100.0 * j;
    for (int o = 0; o < kBlocks; ++o)
      for (size_t r = 0; r < read.size(); ++r)
        sum += kv[(o * kCapacity + r) * kChannels + j % 2] * double(r + 1) * kScale[o];
    out[j] = float(sum);
  }
  return out;
}

class BatchedPrefillBlocks : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    dir_ = ::testing::TempDir() + "ssm-prefill-blocks-" + std::to_string(getpid());
    std::filesystem::create_directories(dir_ + "/compiled");
    std::ofstream(dir_ + "/model.json") << R"({
  "format": "ssm-opt-model", "architecture": "toy-blocks", "config": {"vocab_size": 3},
  "states": [{"name": "kv", "shape": [2, 6, 2], "kind": "cache", "axis": 1}],
  "functions": {"sequence": "forward_sequence", "step": "forward_step",
                "step_batched": {"name": "forward_step_batched", "batch": 2},
                "sequence_batched": {"name": "forward_sequence_batched", "batch": 2}}
})";
    writeWeights(dir_ + "/weights.safetensors");
    std::ofstream(dir_ + "/graph.mlir")
        << function("forward_sequence", 1, 2, false) << function("forward_step", 1, 1, false)
        << function("forward_step_batched", 2, 1, true)
        << function("forward_sequence_batched", 2, 2, true);
    compiled_ = toy_model::compileGraph(dir_);
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }

  std::unique_ptr<Model> open() { return toy_model::open(dir_, compiled_); }

  static std::string dir_;
  static bool compiled_;
};

std::string BatchedPrefillBlocks::dir_;
bool BatchedPrefillBlocks::compiled_ = false;

void expectStream(const Stream &s, const std::vector<int32_t> &read, const std::string &what) {
  EXPECT_EQ(s.position(), static_cast<int64_t>(read.size())) << what;
  EXPECT_EQ(s.logits(), expectedLogits(read)) << what << ": logits";
  const HostTensor &kv = s.state(0);
  EXPECT_EQ(std::vector<float>(kv.f32().begin(), kv.f32().end()), expectedCache(read))
      << what << ": the cache (block 0's 6 rows of 2, then block 1's)";
}

} // namespace

TEST_F(BatchedPrefillBlocks, TheLayoutHasTwoBlocksBeforeTheAxis) {
  auto m = open();
  ASSERT_TRUE(m);
  const StateSpec &kv = m->spec().states.at(0);
  EXPECT_EQ(kv.axis, 1);
  EXPECT_EQ(kv.capacity(), kCapacity);
  const StreamStateLayout l = streamStateLayout(kv, 3 * kv.numel, 3, kCapacity);
  EXPECT_EQ(l.numel, kv.numel);
  EXPECT_EQ(l.outer, kBlocks);
  EXPECT_EQ(l.inner, kChannels);
  EXPECT_EQ(m->prefillBatch(), 2);
  EXPECT_EQ(m->stepBatch(), 2);
  EXPECT_EQ(m->batchedSequenceLengths(), (std::vector<int64_t>{2}));
}

TEST_F(BatchedPrefillBlocks, StreamsPrefilledTogetherWriteBothBlocks) {
  // Stream a has read one token alone (position 1), b none: one batched
  // call of both streams' first two tokens (at positions 1 and 0), one of
  // the next two, then b's fifth token alone (a has no fifth); both match
  // the formula, as do the same streams prefilled alone.
  auto m = open();
  ASSERT_TRUE(m);
  Stream a(*m), b(*m), aAlone(*m), bAlone(*m);
  const std::vector<int32_t> first = {2};
  ASSERT_TRUE(a.prefill(first.data(), first.size()));
  ASSERT_TRUE(aAlone.prefill(first.data(), first.size()));
  const std::vector<int32_t> pa = {1, 0, 2, 1}, pb = {0, 2, 1, 1, 2};
  Stream *streams[] = {&a, &b};
  const int32_t *tokens[] = {pa.data(), pb.data()};
  size_t counts[] = {pa.size(), pb.size()};
  size_t failed = 99;
  Status st = m->prefillTogether(streams, 2, tokens, counts, &failed);
  ASSERT_TRUE(st) << st.message();
  std::vector<int32_t> readA = first, readB = pb;
  readA.insert(readA.end(), pa.begin(), pa.end());
  expectStream(a, readA, "a prefilled together");
  expectStream(b, readB, "b prefilled together");
  ASSERT_TRUE(aAlone.prefill(pa.data(), pa.size()));
  ASSERT_TRUE(bAlone.prefill(pb.data(), pb.size()));
  expectStream(aAlone, readA, "a prefilled alone");
  expectStream(bAlone, readB, "b prefilled alone");
}

TEST_F(BatchedPrefillBlocks, StreamsSteppedTogetherWriteBothBlocks) {
  // The batched step's gather and scatter (runtime/BatchedStep.cpp) walk the
  // same layout: two streams at positions 2 and 0, three steps together.
  auto m = open();
  ASSERT_TRUE(m);
  Stream a(*m), b(*m);
  std::vector<int32_t> readA = {1, 2}, readB;
  ASSERT_TRUE(a.prefill(readA.data(), readA.size()));
  Stream *streams[] = {&a, &b};
  for (int32_t t : {2, 0, 1}) {
    const int32_t tokens[] = {t, static_cast<int32_t>((t + 1) % kVocab)};
    ASSERT_TRUE(m->stepTogether(streams, 2, tokens));
    readA.push_back(tokens[0]);
    readB.push_back(tokens[1]);
    expectStream(a, readA, "a stepped together");
    expectStream(b, readB, "b stepped together");
  }
}
