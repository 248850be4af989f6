// The model library through its public C++ wrapper (ssm_runtime.hpp over the C API): a
// real RWKV-4 model imported and compiled, logits against rwkv.cpp's, state save/restore,
// independent streams, and refusals of bad input.
//
// Needs ../shared/models/rwkv (the reseeded tiny RWKV-4 and rwkv.cpp's logits for the
// prompt `"in`); fails, naming the folder, when it is missing.
#include "ssm_runtime.hpp"

#include <dlpack/dlpack.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <tuple>

namespace fs = std::filesystem;
using ssm::runtime::Error;
using ssm::runtime::Model;
using ssm::runtime::Stream;

namespace {

const std::string kShared = SSM_SHARED_DIR;
const std::vector<int32_t> kPrompt = {34, 105, 110}; // `"in`

/// The test folder: the reseeded RWKV-4 imported and compiled for sequences of 2
/// tokens (so the 3-token prompt runs as one sequence call and one step), and
/// the RWKV-5.2 imported only.
class ModelLibraryTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    std::string models = kShared + "/models/rwkv";
    ASSERT_TRUE(fs::exists(models + "/reseeded-rwkv-4v0-seed1-FP32.bin"))
        << models << " is missing: this test needs the shared model files";
    // The ctest fixture model-library.setup imports and compiles the models.
    root = SSM_MODEL_LIBRARY_DIR;
    ASSERT_TRUE(fs::exists(root + "/m/compiled/l2/manifest.json") && fs::exists(root + "/v5/model.json"))
        << root << " is not prepared: run the tests through ctest (fixture model-library.setup)";
    std::ifstream f(models + "/expected-logits-reseeded-4v0-seed1.bin", std::ios::binary);
    expected.resize(256);
    f.read(reinterpret_cast<char *>(expected.data()), 256 * sizeof(float));
    ASSERT_TRUE(f) << "cannot read rwkv.cpp's expected logits";
  }

  static std::string root;
  static std::vector<float> expected;
};
std::string ModelLibraryTest::root;
std::vector<float> ModelLibraryTest::expected;

float maxAbsDiff(const std::vector<float> &a, const std::vector<float> &b) {
  EXPECT_EQ(a.size(), b.size());
  float worst = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    worst = std::max(worst, std::fabs(a[i] - b[i]));
  return worst;
}

ssm_status_t statusOf(const std::function<void()> &f) {
  try {
    f();
  } catch (const Error &e) {
    return e.status();
  }
  return SSM_OK;
}

TEST_F(ModelLibraryTest, PrefillAndStepsMatchRwkvCpp) {
  Model model(root + "/m");
  EXPECT_EQ(model.vocabSize(), 256);
  EXPECT_TRUE(model.hasStep());
  EXPECT_EQ(model.sequenceLengths(), std::vector<int64_t>{2});
  Stream prefilled(model);
  // Tolerance of the shared models' README: a faithful float32 implementation lands within 3e-6.
  EXPECT_LE(maxAbsDiff(prefilled.prefill(kPrompt), expected), 1e-4f);
  EXPECT_EQ(prefilled.position(), 3);
  Stream stepped(model);
  std::vector<float> last;
  for (int32_t t : kPrompt)
    last = stepped.step(t);
  EXPECT_LE(maxAbsDiff(last, expected), 1e-4f);
}

TEST_F(ModelLibraryTest, WeightsAreUsedInPlaceNotConverted) {
  for (unsigned flags : {0u, unsigned(SSM_MODEL_MAP_WEIGHTS)}) {
    Model model(root + "/m", flags);
    Stream s(model);
    s.step(1);
    size_t file = 0, inPlace = 0, converted = 0;
    ssm_model_weight_bytes(model.get(), &file, &inPlace, &converted);
    EXPECT_EQ(converted, 0u) << "flags " << flags;
    EXPECT_GT(inPlace, file * 9 / 10) << "flags " << flags; // every F32 tensor in place (the header is the rest)
  }
}

TEST_F(ModelLibraryTest, ReadAndMappedWeightsGiveTheSameLogits) {
  Model read(root + "/m"), mapped(root + "/m", SSM_MODEL_MAP_WEIGHTS);
  Stream a(read), b(mapped);
  std::vector<float> la = a.prefill(kPrompt), lb = b.prefill(kPrompt);
  EXPECT_EQ(la, lb); // the same kernels on the same bytes: bit for bit
  EXPECT_LE(maxAbsDiff(lb, expected), 1e-4f);
  EXPECT_EQ(a.step(32), b.step(32));
  ssm_model_t *m = reinterpret_cast<ssm_model_t *>(1);
  EXPECT_EQ(ssm_model_open_flags((root + "/m").c_str(), 1u << 7, &m), SSM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(m, nullptr);
  EXPECT_NE(std::string(ssm_last_error()).find("unknown flags"), std::string::npos);
}

TEST_F(ModelLibraryTest, SavedStateContinuesLikeAnUnbrokenRun) {
  std::string path = root + "/after3.ssmstate";
  std::vector<int32_t> more = {32, 116, 104, 101};
  std::vector<std::vector<float>> unbroken;
  {
    Model model(root + "/m");
    Stream s(model);
    s.prefill(kPrompt);
    s.save(path);
    for (int32_t t : more)
      unbroken.push_back(s.step(t));
  }
  Model model(root + "/m"); // a new model and stream: nothing shared but the file
  Stream s(model);
  s.load(path);
  EXPECT_EQ(s.position(), 3);
  EXPECT_LE(maxAbsDiff(s.logits(), expected), 1e-4f);
  for (size_t i = 0; i < more.size(); ++i)
    EXPECT_EQ(s.step(more[i]), unbroken[i]) << "token " << i; // the same kernels: bit for bit
}

TEST_F(ModelLibraryTest, BadStateFilesAreRefusedAndLeaveTheStream) {
  Model model(root + "/m");
  Stream s(model);
  s.prefill(kPrompt);
  std::string good = root + "/good.ssmstate";
  s.save(good);
  std::ifstream in(good, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto write = [&](const std::string &name, const std::string &content) {
    std::ofstream(root + "/" + name, std::ios::binary) << content;
    return root + "/" + name;
  };
  std::string truncated = write("truncated.ssmstate", bytes.substr(0, bytes.size() / 2));
  std::string corrupt = bytes;
  corrupt[bytes.size() / 2] ^= 0x40;
  std::string flipped = write("corrupt.ssmstate", corrupt);
  std::string foreign = write("foreign.ssmstate", "{\"not\": \"a state\"}");
  std::string newer = bytes;
  newer[8] = 9; // version 9
  std::string version = write("version.ssmstate", newer);

  Stream fresh(model);
  fresh.step(7);
  std::vector<float> before = fresh.logits();
  for (const auto &[path, status, words] :
       std::vector<std::tuple<std::string, ssm_status_t, std::string>>{
           {truncated, SSM_ERROR_INVALID_FILE, "truncated"},
           {flipped, SSM_ERROR_INVALID_FILE, "checksum"},
           {foreign, SSM_ERROR_INVALID_FILE, "not an ssm-opt state file"},
           {version, SSM_ERROR_INVALID_FILE, "version 9"},
           {root + "/missing.ssmstate", SSM_ERROR_NOT_FOUND, "no such state file"}}) {
    EXPECT_EQ(statusOf([&] { fresh.load(path); }), status) << path;
    EXPECT_NE(std::string(ssm_last_error()).find(words), std::string::npos) << ssm_last_error();
    EXPECT_EQ(fresh.position(), 1);
    EXPECT_EQ(fresh.logits(), before);
  }
  // A state saved from another model (RWKV-5.2: other states).
  Model v5(root + "/v5");
  Stream other(v5);
  std::string v5state = root + "/v5.ssmstate";
  other.save(v5state);
  EXPECT_EQ(statusOf([&] { fresh.load(v5state); }), SSM_ERROR_MISMATCH);
  EXPECT_NE(std::string(ssm_last_error()).find("saved from another model"), std::string::npos);
  EXPECT_EQ(fresh.logits(), before);
}

TEST_F(ModelLibraryTest, InterleavedStreamsEqualStreamsAlone) {
  Model model(root + "/m");
  std::vector<std::vector<int32_t>> texts = {{72, 105, 33, 10}, {34, 105, 110, 32}, {0, 255, 1, 254}};
  std::vector<std::vector<float>> alone;
  for (const auto &t : texts) {
    Stream s(model);
    alone.push_back(s.prefillAll(t));
  }
  std::vector<Stream> streams;
  for (size_t i = 0; i < texts.size(); ++i)
    streams.emplace_back(model);
  std::vector<std::vector<float>> together(texts.size());
  for (size_t k = 0; k < 4; ++k)
    for (size_t i = 0; i < texts.size(); ++i) {
      std::vector<float> l = streams[i].step(texts[i][k]);
      together[i].insert(together[i].end(), l.begin(), l.end());
    }
  for (size_t i = 0; i < texts.size(); ++i)
    EXPECT_LE(maxAbsDiff(together[i], alone[i]), 1e-4f) << "stream " << i;
}

TEST_F(ModelLibraryTest, StreamsOnThreadsEqualStreamsAlone) {
  Model model(root + "/m");
  std::vector<std::vector<int32_t>> texts;
  for (int i = 0; i < 4; ++i) {
    std::vector<int32_t> t;
    for (int k = 0; k < 9; ++k)
      t.push_back((37 * i + 11 * k) % 256);
    texts.push_back(t);
  }
  std::vector<std::vector<float>> alone, threaded(texts.size());
  for (const auto &t : texts) {
    Stream s(model);
    alone.push_back(s.prefillAll(t));
  }
  std::vector<std::thread> threads;
  for (size_t i = 0; i < texts.size(); ++i)
    threads.emplace_back([&, i] {
      Stream s(model);
      for (int round = 0; round < 20; ++round) {
        s.reset();
        threaded[i] = s.prefillAll(texts[i]);
      }
    });
  for (auto &t : threads)
    t.join();
  for (size_t i = 0; i < texts.size(); ++i)
    EXPECT_EQ(threaded[i], alone[i]) << "stream " << i; // the same calls: bit for bit
}

TEST_F(ModelLibraryTest, StreamsSteppedTogetherEqualStreamsAlone) {
  Model model(root + "/m");
  std::vector<std::vector<int32_t>> texts;
  for (int i = 0; i < 5; ++i) {
    std::vector<int32_t> t;
    for (int k = 0; k < 7; ++k)
      t.push_back((53 * i + 29 * k + 3) % 256);
    texts.push_back(t);
  }
  // Alone: each stream stepped token by token on its own.
  std::vector<std::vector<std::vector<float>>> alone(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    Stream s(model);
    for (int32_t tok : texts[i])
      alone[i].push_back(s.step(tok));
  }
  std::vector<Stream> streams;
  for (size_t i = 0; i < texts.size(); ++i)
    streams.emplace_back(model);
  std::vector<Stream *> ptrs;
  for (Stream &s : streams)
    ptrs.push_back(&s);
  for (size_t k = 0; k < texts[0].size(); ++k) {
    std::vector<int32_t> tokens;
    for (const auto &t : texts)
      tokens.push_back(t[k]);
    std::vector<std::vector<float>> got = ssm::runtime::stepTogether(ptrs, tokens);
    for (size_t i = 0; i < texts.size(); ++i)
      EXPECT_EQ(got[i], alone[i][k]) << "stream " << i << ", token " << k; // bit for bit
  }
  for (size_t i = 0; i < texts.size(); ++i)
    EXPECT_EQ(streams[i].position(), static_cast<int64_t>(texts[i].size()));

  // Refused before any stream runs: a repeated stream, a token out of range.
  ssm_stream_t *twice[] = {streams[0].get(), streams[0].get()};
  int32_t two[] = {1, 2};
  EXPECT_EQ(ssm_streams_step(twice, 2, two, nullptr), SSM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ssm_last_error()).find("are the same stream"), std::string::npos);
  ssm_stream_t *pair[] = {streams[0].get(), streams[1].get()};
  int32_t bad[] = {1, 256};
  EXPECT_EQ(ssm_streams_step(pair, 2, bad, nullptr), SSM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ssm_last_error()).find("token 256 of stream 1"), std::string::npos);
  EXPECT_EQ(streams[0].position(), static_cast<int64_t>(texts[0].size()));
  EXPECT_EQ(streams[1].position(), static_cast<int64_t>(texts[1].size()));
}

TEST_F(ModelLibraryTest, StatesStartAtInitAndRoundTrip) {
  Model model(root + "/m");
  auto states = model.states();
  ASSERT_FALSE(states.empty());
  Stream s(model);
  // RWKV-4's max-exponent state "pp" starts at -1e30 (model.json init).
  for (const auto &st : states)
    if (st.name.find(".pp") != std::string::npos)
      EXPECT_EQ(s.state(st.name, st.numel)[0], -1e30f) << st.name;
  s.prefill(kPrompt);
  Stream copy(model);
  for (const auto &st : states)
    copy.setState(st.name, s.state(st.name, st.numel));
  EXPECT_EQ(copy.step(32), s.step(32));
  s.reset();
  EXPECT_EQ(s.position(), 0);
  EXPECT_EQ(statusOf([&] { s.logits(); }), SSM_ERROR_INVALID_ARGUMENT);
}

// ssm_stream_first_nonfinite: "" on a stream of finite values, else the first
// NaN or infinity, the logits before the states in model.json order.
TEST_F(ModelLibraryTest, FirstNonFiniteNamesTheTensor) {
  Model model(root + "/m");
  auto states = model.states();
  ASSERT_GE(states.size(), 2u);
  Stream s(model);
  EXPECT_EQ(s.firstNonFinite(), ""); // position 0: no logits, states at init
  s.prefill(kPrompt);
  EXPECT_EQ(s.firstNonFinite(), "");
  std::vector<float> second = s.state(states[1].name, states[1].numel);
  second[3] = std::nanf("");
  s.setState(states[1].name, second);
  EXPECT_EQ(s.firstNonFinite(), "state '" + states[1].name + "'[3] = nan");
  std::vector<float> first = s.state(states[0].name, states[0].numel);
  first[0] = -INFINITY;
  s.setState(states[0].name, first);
  EXPECT_EQ(s.firstNonFinite(), "state '" + states[0].name + "'[0] = -inf");
  char small[8];
  size_t n = 0;
  ASSERT_EQ(ssm_stream_first_nonfinite(s.get(), small, sizeof small, &n), SSM_OK);
  EXPECT_EQ(n, ("state '" + states[0].name + "'[0] = -inf").size());
  EXPECT_STREQ(small, "state '");
  EXPECT_EQ(ssm_stream_first_nonfinite(s.get(), nullptr, 4, &n), SSM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ssm_stream_first_nonfinite(nullptr, nullptr, 0, &n), SSM_ERROR_INVALID_ARGUMENT);
}

TEST_F(ModelLibraryTest, DlpackViewsAreNotCopies) {
  Model model(root + "/m");
  Stream s(model);
  s.prefill(kPrompt);
  const float *logits;
  ASSERT_EQ(ssm_stream_logits(s.get(), &logits), SSM_OK);
  DLManagedTensor *dl = nullptr;
  ASSERT_EQ(ssm_stream_logits_dlpack(s.get(), &dl), SSM_OK);
  EXPECT_EQ(dl->dl_tensor.data, logits); // the same memory, not a copy
  EXPECT_EQ(dl->dl_tensor.device.device_type, kDLCPU);
  EXPECT_EQ(dl->dl_tensor.dtype.code, kDLFloat);
  EXPECT_EQ(dl->dl_tensor.dtype.bits, 32);
  ASSERT_EQ(dl->dl_tensor.ndim, 1);
  EXPECT_EQ(dl->dl_tensor.shape[0], 256);
  EXPECT_EQ(dl->dl_tensor.strides, nullptr);
  dl->deleter(dl);

  // A state view is the state: writing through it changes what the stream holds.
  auto info = model.states().front();
  DLManagedTensor *st = nullptr, *again = nullptr;
  ASSERT_EQ(ssm_stream_state_dlpack(s.get(), info.name.c_str(), &st), SSM_OK);
  ASSERT_EQ(ssm_stream_state_dlpack(s.get(), info.name.c_str(), &again), SSM_OK);
  EXPECT_EQ(st->dl_tensor.data, again->dl_tensor.data);
  EXPECT_EQ(std::vector<int64_t>(st->dl_tensor.shape, st->dl_tensor.shape + st->dl_tensor.ndim),
            info.shape);
  static_cast<float *>(st->dl_tensor.data)[0] = 42.0f;
  EXPECT_EQ(s.state(info.name, info.numel)[0], 42.0f);
  st->deleter(st);
  again->deleter(again);

  // A foreign DLPack tensor is copied in after its dtype and size are checked.
  std::vector<float> values(info.numel, 0.25f);
  std::vector<int64_t> shape = info.shape;
  DLManagedTensor in{};
  in.dl_tensor.data = values.data();
  in.dl_tensor.device = {kDLCPU, 0};
  in.dl_tensor.ndim = static_cast<int32_t>(shape.size());
  in.dl_tensor.dtype = {kDLFloat, 32, 1};
  in.dl_tensor.shape = shape.data();
  ASSERT_EQ(ssm_stream_set_state_dlpack(s.get(), info.name.c_str(), &in), SSM_OK);
  EXPECT_EQ(s.state(info.name, info.numel), values);
  in.dl_tensor.dtype = {kDLFloat, 64, 1};
  EXPECT_EQ(ssm_stream_set_state_dlpack(s.get(), info.name.c_str(), &in), SSM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ssm_last_error()).find("not float32"), std::string::npos);
}

TEST_F(ModelLibraryTest, SetStateDlpackRefusesMalformedShapes) {
  // A negative shape whose product is the state's size was copied in; a huge
  // one overflowed the element count (UBSan); a shape of another rank was
  // taken. Each is refused, naming the problem, and the state is unchanged.
  Model model(root + "/m");
  Stream s(model);
  auto info = model.states().front();
  const std::vector<float> before = s.state(info.name, info.numel);
  std::vector<float> values(info.numel, 0.5f);
  auto attempt = [&](std::vector<int64_t> shape, const std::string &words, int32_t ndim = -2,
                     bool nullShape = false, size_t offset = 0) {
    DLManagedTensor in{};
    in.dl_tensor.data = values.data();
    in.dl_tensor.device = {kDLCPU, 0};
    in.dl_tensor.ndim = ndim == -2 ? static_cast<int32_t>(shape.size()) : ndim;
    in.dl_tensor.dtype = {kDLFloat, 32, 1};
    in.dl_tensor.shape = nullShape ? nullptr : shape.data();
    in.dl_tensor.byte_offset = offset;
    EXPECT_EQ(ssm_stream_set_state_dlpack(s.get(), info.name.c_str(), &in), SSM_ERROR_INVALID_ARGUMENT)
        << words;
    EXPECT_NE(std::string(ssm_last_error()).find(words), std::string::npos) << ssm_last_error();
    EXPECT_EQ(s.state(info.name, info.numel), before) << words;
  };
  const int64_t n = static_cast<int64_t>(info.numel);
  attempt({-1, -n}, "negative dimension -1 (dim 0)");
  attempt({n, -1, -1}, "negative dimension -1 (dim 1)");
  attempt({int64_t(1) << 62, 4, n}, "overflows int64");
  attempt({INT64_MAX, INT64_MAX}, "overflows int64");
  attempt({int64_t(1) << 61, 2}, "overflows int64"); // 2^62 elements: 2^64 bytes
  attempt({n}, "ndim -1", -1);
  attempt({n}, "ndim 65", 65);
  attempt({n}, "shape is NULL", 1, true);
  std::vector<int64_t> extra = info.shape;
  extra.insert(extra.begin(), 1);
  attempt(extra, "state '" + info.name + "' has shape");
  attempt({n}, "not aligned to 4 bytes", -2, false, 2);

  // The state's own shape and its flat form are taken.
  DLManagedTensor in{};
  std::vector<int64_t> flat = {n};
  in.dl_tensor.data = values.data();
  in.dl_tensor.device = {kDLCPU, 0};
  in.dl_tensor.ndim = 1;
  in.dl_tensor.dtype = {kDLFloat, 32, 1};
  in.dl_tensor.shape = flat.data();
  ASSERT_EQ(ssm_stream_set_state_dlpack(s.get(), info.name.c_str(), &in), SSM_OK) << ssm_last_error();
  EXPECT_EQ(s.state(info.name, info.numel), values);
}

TEST_F(ModelLibraryTest, LoadStateReadsTheMagicFirstAndStopsAtTheStateSize) {
  // ssm_stream_load_state read the whole file before any check: /dev/zero
  // never returned, a huge file was read whole. Now the magic comes first,
  // then the size against the model's states.
  Model model(root + "/m");
  Stream s(model);
  s.prefill(kPrompt);
  const std::vector<float> before = s.logits();
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(ssm_stream_load_state(s.get(), "/dev/zero"), SSM_ERROR_INVALID_FILE);
  EXPECT_NE(std::string(ssm_last_error()).find("not an ssm-opt state file"), std::string::npos)
      << ssm_last_error();
  // A good header followed by 1 GiB (sparse: costs no disk).
  std::string good = root + "/bounded.ssmstate";
  s.save(good);
  std::string huge = root + "/huge.ssmstate";
  fs::copy_file(good, huge, fs::copy_options::overwrite_existing);
  fs::resize_file(huge, uint64_t(1) << 30);
  EXPECT_EQ(ssm_stream_load_state(s.get(), huge.c_str()), SSM_ERROR_MISMATCH);
  EXPECT_NE(std::string(ssm_last_error()).find("1073741824 bytes, more than the " +
                                               std::to_string(fs::file_size(good))),
            std::string::npos)
      << ssm_last_error();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
  EXPECT_EQ(s.position(), 3);
  EXPECT_EQ(s.logits(), before);
  // The file the stream saved still loads.
  EXPECT_EQ(ssm_stream_load_state(s.get(), good.c_str()), SSM_OK) << ssm_last_error();
  fs::remove(huge);
}

TEST_F(ModelLibraryTest, DlpackViewsKeepTheirMemoryAcrossLoadAndReset) {
  // load() replaced the logits buffer: a logits view taken before it pointed
  // at freed memory. The stream's buffers now stay where they are.
  Model model(root + "/m");
  Stream s(model);
  s.prefill(kPrompt);
  std::string path = root + "/views.ssmstate";
  s.save(path);
  DLManagedTensor *logits = nullptr, *state = nullptr;
  ASSERT_EQ(ssm_stream_logits_dlpack(s.get(), &logits), SSM_OK);
  auto info = model.states().front();
  ASSERT_EQ(ssm_stream_state_dlpack(s.get(), info.name.c_str(), &state), SSM_OK);
  const float *saved = static_cast<const float *>(logits->dl_tensor.data);
  const std::vector<float> savedLogits(saved, saved + 256);
  s.step(32);
  s.load(path);
  const float *now = nullptr;
  ASSERT_EQ(ssm_stream_logits(s.get(), &now), SSM_OK);
  EXPECT_EQ(now, logits->dl_tensor.data);
  EXPECT_EQ(std::vector<float>(now, now + 256), savedLogits);
  EXPECT_EQ(static_cast<float *>(state->dl_tensor.data)[0], s.state(info.name, info.numel)[0]);
  s.reset();
  s.step(32);
  ASSERT_EQ(ssm_stream_logits(s.get(), &now), SSM_OK);
  EXPECT_EQ(now, logits->dl_tensor.data);
  logits->deleter(logits);
  state->deleter(state);
}

TEST_F(ModelLibraryTest, ModelJsonNumbersOutOfRangeAreRefused) {
  // A shape entry, vocabulary size or init that does not fit its C++ type was
  // converted anyway (undefined behaviour; fuzz-model-json found 5e45 in a
  // shape): each is refused, naming the field.
  std::ifstream in(root + "/m/model.json");
  std::string good((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  struct Case {
    std::string from, to, message;
  };
  std::vector<Case> cases = {
      {"\"init\": 0.0", "\"init\": 1e300", "not a finite float32 value"},
      {"\"n_vocab\": 256", "\"n_vocab\": 5e45", "config.n_vocab 5e+45 is not an integer"},
  };
  size_t shape = good.find("\"shape\": [");
  ASSERT_NE(shape, std::string::npos);
  std::string firstShape = good.substr(shape, good.find(']', shape) - shape + 1);
  cases.push_back({firstShape, "\"shape\": [5e45]", "has a shape entry 5e+45 that is not an integer"});
  for (const Case &c : cases) {
    size_t at = good.find(c.from);
    ASSERT_NE(at, std::string::npos) << c.from;
    std::string bad = good;
    bad.replace(at, c.from.size(), c.to);
    std::string dir = root + "/bad-numbers";
    fs::create_directories(dir);
    std::ofstream(dir + "/model.json") << bad;
    ssm_model_t *m = nullptr;
    EXPECT_EQ(ssm_model_open(dir.c_str(), &m), SSM_ERROR_INVALID_FILE) << c.to;
    EXPECT_NE(std::string(ssm_last_error()).find(c.message), std::string::npos)
        << ssm_last_error();
    ssm_model_free(m);
  }
}

TEST_F(ModelLibraryTest, BadInputIsRefusedWithAMessage) {
  EXPECT_EQ(statusOf([&] { Model m(root + "/nothing-here"); }), SSM_ERROR_NOT_FOUND);
  EXPECT_NE(std::string(ssm_last_error()).find("nothing-here/model.json"), std::string::npos);
  Model model(root + "/m");
  Stream s(model);
  EXPECT_EQ(statusOf([&] { s.step(256); }), SSM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ssm_last_error()).find("outside the vocabulary of 256"), std::string::npos);
  EXPECT_EQ(statusOf([&] { s.prefill({}); }), SSM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(statusOf([&] { s.setState("no-such-state", {1.0f}); }), SSM_ERROR_INVALID_ARGUMENT);
  // The RWKV-5.2 folder has no compiled module: nothing can run.
  Model v5(root + "/v5");
  Stream v(v5);
  EXPECT_EQ(statusOf([&] { v.step(1); }), SSM_ERROR_UNSUPPORTED);
  // A module of another model: its weights are not in this folder's file.
  EXPECT_EQ(statusOf([&] { v5.addModule(root + "/m/compiled/l2"); }), SSM_ERROR_MISMATCH);
  EXPECT_EQ(statusOf([&] { model.addModule(root + "/m"); }), SSM_ERROR_NOT_FOUND);
  // The C API itself: null handles are refused, not dereferenced.
  EXPECT_EQ(ssm_stream_step(nullptr, 0, nullptr), SSM_ERROR_INVALID_ARGUMENT);
  ssm_model_t *m = reinterpret_cast<ssm_model_t *>(1);
  EXPECT_EQ(ssm_model_open(nullptr, &m), SSM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(m, nullptr);
}

/// Every a[i] within 1e-6 + 1e-5 max|b| of b[i]: 1e-5 relative to the
/// tensor's scale, 1e-6 absolute (float32; the batched kernels sum some
/// reductions in another order than the step's, and a logit near 0 that is
/// the difference of large terms keeps their rounding: 1.3e-6 on a logit of
/// -0.026 among logits up to ~3, after 7 steps).
::testing::AssertionResult closeTo(const std::vector<float> &a, const std::vector<float> &b) {
  if (a.size() != b.size())
    return ::testing::AssertionFailure() << a.size() << " values vs " << b.size();
  float scale = 0;
  for (float v : b)
    scale = std::max(scale, std::fabs(v));
  const float tol = 1e-6f + 1e-5f * scale;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(std::fabs(a[i] - b[i]) <= tol))
      return ::testing::AssertionFailure() << "value " << i << ": " << a[i] << " vs " << b[i]
                                           << " (tolerance " << tol << ")";
  return ::testing::AssertionSuccess();
}

/// A model folder of the fixture model-library.setup with a compiled
/// batched step function: the shared checkpoint it was imported from, the
/// folder, and the batch it was imported with (--batch).
struct BatchedModel {
  const char *shared, *folder;
  int64_t batch;
};

void PrintTo(const BatchedModel &m, std::ostream *os) { *os << m.folder; }

class ModelLibraryBatched : public ::testing::TestWithParam<BatchedModel> {};

/// The tiny Mamba-1 (--batch 4), Mamba-2, RWKV-7 and the hybrids (LFM2,
/// Granite 4.0-H, Qwen3.5; --batch 3) of ../shared/models, compiled: fewer
/// streams than the batch (one call padded with rows at the init state) and
/// more (a full call and the rest) with different prompts stepped together
/// end with the logits and states of each stream stepped alone.
TEST_P(ModelLibraryBatched, StreamsSteppedThroughTheBatchedFunctionEqualStreamsAlone) {
  const std::string shared = kShared + GetParam().shared;
  ASSERT_TRUE(fs::exists(shared)) << shared << " is missing: this test needs the shared model files";
  const std::string dir = std::string(SSM_MODEL_LIBRARY_DIR) + GetParam().folder;
  ASSERT_TRUE(fs::exists(dir + "/compiled")) << dir << " is not prepared: run the tests through ctest";
  Model model(dir);
  const int64_t B = GetParam().batch;
  ASSERT_EQ(model.stepBatch(), B);
  const auto states = model.states();
  for (size_t n : {size_t(B - 1), size_t(B + 1)}) {
    SCOPED_TRACE(std::to_string(n) + " streams");
    // Different prompts, prefilled alone to different positions (1 to n
    // tokens), then 6 tokens each stepped together.
    std::vector<std::vector<int32_t>> prompts, next;
    for (size_t i = 0; i < n; ++i) {
      std::vector<int32_t> p, t;
      for (size_t k = 0; k <= i; ++k)
        p.push_back(static_cast<int32_t>((71 * i + 13 * k + 40) % 256));
      for (size_t k = 0; k < 6; ++k)
        t.push_back(static_cast<int32_t>((31 * i + 57 * k + 9) % 256));
      prompts.push_back(p);
      next.push_back(t);
    }
    std::vector<std::vector<std::vector<float>>> aloneLogits(n), aloneStates(n);
    for (size_t i = 0; i < n; ++i) {
      Stream s(model);
      s.prefill(prompts[i]);
      for (int32_t tok : next[i])
        aloneLogits[i].push_back(s.step(tok));
      for (const auto &st : states)
        aloneStates[i].push_back(s.state(st.name, st.numel));
    }
    std::vector<Stream> streams;
    for (size_t i = 0; i < n; ++i) {
      streams.emplace_back(model);
      streams.back().prefill(prompts[i]);
    }
    for (size_t k = 0; k < next[0].size(); ++k) {
      // A rotated order each step: each stream meets every row, the padded
      // call and (of 5) the lone step.
      std::vector<size_t> order;
      for (size_t j = 0; j < n; ++j)
        order.push_back((k + j) % n);
      std::vector<Stream *> ptrs;
      std::vector<int32_t> tokens;
      for (size_t i : order) {
        ptrs.push_back(&streams[i]);
        tokens.push_back(next[i][k]);
      }
      std::vector<std::vector<float>> got = ssm::runtime::stepTogether(ptrs, tokens);
      for (size_t j = 0; j < order.size(); ++j)
        EXPECT_TRUE(closeTo(got[j], aloneLogits[order[j]][k]))
            << "stream " << order[j] << ", token " << k;
    }
    for (size_t i = 0; i < n; ++i) {
      EXPECT_EQ(streams[i].position(), static_cast<int64_t>(prompts[i].size() + next[i].size()));
      for (size_t q = 0; q < states.size(); ++q)
        EXPECT_TRUE(closeTo(streams[i].state(states[q].name, states[q].numel), aloneStates[i][q]))
            << "stream " << i << ", state " << states[q].name;
    }
    // Refused before anything runs: a token outside the vocabulary.
    ssm_stream_t *pair[] = {streams[0].get(), streams[1].get()};
    int32_t bad[] = {1, 256};
    EXPECT_EQ(ssm_streams_step(pair, 2, bad, nullptr), SSM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(streams[0].position(), static_cast<int64_t>(prompts[0].size() + next[0].size()));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Architectures, ModelLibraryBatched,
    ::testing::Values(BatchedModel{"/models/mamba/tiny-mamba-seed5/model.safetensors", "/mamba-b4", 4},
                      BatchedModel{"/models/mamba2/tiny-mamba2-g1-untied/model.safetensors",
                                   "/mamba2-b3", 3},
                      BatchedModel{"/models/rwkv/tiny-rwkv-7v0-834K-FP32.bin", "/rwkv7-b3", 3},
                      BatchedModel{"/models/lfm2/tiny-lfm2-a", "/lfm2-b3", 3},
                      BatchedModel{"/models/granite-hybrid/tiny-granite-h-a", "/granite-b3", 3},
                      BatchedModel{"/models/qwen35/tiny-qwen35-a", "/qwen35-b3", 3}),
    [](const ::testing::TestParamInfo<BatchedModel> &info) {
      std::string n = info.param.folder + 1;
      for (char &ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch)))
          ch = '_';
      return n;
    });

class HybridStreams : public ::testing::TestWithParam<BatchedModel> {};

/// The hybrids (KV caches of 48 positions beside conv, SSM and delta-rule states),
/// compiled for 4-token sequences: a prompt in one prefill equals the same
/// tokens stepped; a stream saved mid-way and loaded into a stream of a
/// freshly opened model continues with the same logits; a stream at the
/// capacity refuses the next token with SSM_ERROR_CONTEXT_FULL, unchanged.
TEST_P(HybridStreams, PrefillStepSaveLoadAndCapacity) {
  const std::string shared = kShared + GetParam().shared;
  ASSERT_TRUE(fs::exists(shared)) << shared << " is missing: this test needs the shared model files";
  const std::string dir = std::string(SSM_MODEL_LIBRARY_DIR) + GetParam().folder;
  ASSERT_TRUE(fs::exists(dir + "/compiled")) << dir << " is not prepared: run the tests through ctest";
  Model model(dir);
  ASSERT_EQ(model.contextLength(), 48);
  std::vector<int32_t> tokens;
  for (int k = 0; k < 30; ++k)
    tokens.push_back(static_cast<int32_t>((37 * k + 11) % 256));
  Stream whole(model), stepped(model);
  std::vector<float> last = whole.prefill(tokens);
  std::vector<float> s;
  for (int32_t t : tokens)
    s = stepped.step(t);
  EXPECT_TRUE(closeTo(last, s)) << "one prefill of 30 tokens vs 30 steps";
  // Save after 17 tokens; a new model and stream load it and go on.
  Stream a(model);
  a.prefill(std::vector<int32_t>(tokens.begin(), tokens.begin() + 17));
  const std::string saved = dir + "-17.ssmstate";
  a.save(saved);
  std::vector<float> cont;
  for (size_t k = 17; k < tokens.size(); ++k)
    cont = a.step(tokens[k]);
  EXPECT_TRUE(closeTo(cont, last)) << "17 prefilled + 13 steps vs one prefill";
  Model reopened(dir);
  Stream b(reopened);
  b.load(saved);
  EXPECT_EQ(b.position(), 17);
  std::vector<float> resumed;
  for (size_t k = 17; k < tokens.size(); ++k)
    resumed = b.step(tokens[k]);
  EXPECT_TRUE(closeTo(resumed, last)) << "loaded after 17 tokens, 13 steps";
  // The same file loaded into the other hybrid (other states, other caches):
  // refused, the stream unchanged.
  const std::string otherDir = std::string(SSM_MODEL_LIBRARY_DIR) +
                               (GetParam().folder == std::string("/lfm2-b3") ? "/granite-b3" : "/lfm2-b3");
  Model other(otherDir);
  Stream o(other);
  try {
    o.load(saved);
    ADD_FAILURE() << "a state saved from " << dir << " loaded into " << otherDir;
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("state"), std::string::npos) << e.what();
  }
  EXPECT_EQ(o.position(), 0);
  // Fill to the capacity, then one more.
  Stream full(model);
  full.prefill(std::vector<int32_t>(48, 7));
  try {
    full.step(7);
    ADD_FAILURE() << "a step past the 48 positions ran";
  } catch (const Error &e) {
    EXPECT_EQ(e.status(), SSM_ERROR_CONTEXT_FULL) << e.what();
  }
  EXPECT_EQ(full.position(), 48);
  fs::remove(saved);
}

INSTANTIATE_TEST_SUITE_P(
    Hybrids, HybridStreams,
    ::testing::Values(BatchedModel{"/models/lfm2/tiny-lfm2-a", "/lfm2-b3", 3},
                      BatchedModel{"/models/granite-hybrid/tiny-granite-h-a", "/granite-b3", 3},
                      BatchedModel{"/models/qwen35/tiny-qwen35-a", "/qwen35-b3", 3}),
    [](const ::testing::TestParamInfo<BatchedModel> &info) {
      std::string n = info.param.folder + 1;
      for (char &ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch)))
          ch = '_';
      return n;
    });

/// The KV caches' capacity chosen at open (ssm_model_options_t.context_length)
/// on the hybrids compiled for 48 positions: opened at 24, every position's
/// logits equal those of the default open (whose kernels hold exactly 48; the
/// lit test lfm2-logits checks those against transformers' semantics), the
/// caches' states and bytes are half, and position 24 is SSM_ERROR_CONTEXT_FULL;
/// opened at 64, a stream goes past 48 (one prefill equal to its steps),
/// streams stepped together equal streams alone below and past 48 (the batched
/// function holds 48: past it they step alone); state files move between
/// capacities when their position fits. Bad capacities are refused by name.
TEST_P(HybridStreams, ContextChosenAtOpen) {
  const std::string shared = kShared + GetParam().shared;
  ASSERT_TRUE(fs::exists(shared)) << shared << " is missing: this test needs the shared model files";
  const std::string dir = std::string(SSM_MODEL_LIBRARY_DIR) + GetParam().folder;
  ASSERT_TRUE(fs::exists(dir + "/compiled")) << dir << " is not prepared: run the tests through ctest";
  Model def(dir), small(dir, Model::withContext(24)), large(dir, Model::withContext(64));
  ASSERT_EQ(def.contextLength(), 48);
  ASSERT_EQ(small.contextLength(), 24);
  ASSERT_EQ(large.contextLength(), 64);
  // The states at 24 positions: the caches' dim along their axis, and bytes.
  const auto defStates = def.states(), smallStates = small.states();
  ASSERT_EQ(defStates.size(), smallStates.size());
  for (size_t i = 0; i < defStates.size(); ++i) {
    if (defStates[i].kind != SSM_STATE_CACHE) {
      EXPECT_EQ(smallStates[i].shape, defStates[i].shape) << defStates[i].name;
      continue;
    }
    EXPECT_EQ(smallStates[i].shape[smallStates[i].axis], 24) << defStates[i].name;
    EXPECT_EQ(smallStates[i].numel * 2, defStates[i].numel) << defStates[i].name;
  }
  const auto bytesDef = def.stateBytes(10), bytesSmall = small.stateBytes(10);
  EXPECT_GT(bytesDef.cacheAllocated, 0u);
  EXPECT_EQ(bytesSmall.cacheAllocated * 2, bytesDef.cacheAllocated);
  EXPECT_EQ(bytesSmall.fixed, bytesDef.fixed);
  EXPECT_EQ(bytesSmall.cache, bytesDef.cache); // 10 rows written either way

  std::vector<int32_t> tokens;
  for (int k = 0; k < 60; ++k)
    tokens.push_back(static_cast<int32_t>((53 * k + 29) % 256));
  const std::vector<int32_t> first10(tokens.begin(), tokens.begin() + 10);
  // 10 prefilled (4-token calls and steps), then steps to 24, on all three.
  Stream d(def), sm(small), lg(large);
  std::vector<float> ld = d.prefill(first10);
  EXPECT_TRUE(closeTo(sm.prefill(first10), ld)) << "context 24, 10-token prefill";
  EXPECT_TRUE(closeTo(lg.prefill(first10), ld)) << "context 64, 10-token prefill";
  for (size_t k = 10; k < 24; ++k) {
    ld = d.step(tokens[k]);
    EXPECT_TRUE(closeTo(sm.step(tokens[k]), ld)) << "context 24, position " << k;
    EXPECT_TRUE(closeTo(lg.step(tokens[k]), ld)) << "context 64, position " << k;
  }
  // Full at 24: refused, unchanged.
  EXPECT_EQ(statusOf([&] { sm.step(tokens[24]); }), SSM_ERROR_CONTEXT_FULL);
  EXPECT_EQ(sm.position(), 24);
  Stream sm2(small);
  EXPECT_EQ(statusOf([&] { sm2.prefill(std::vector<int32_t>(25, 3)); }), SSM_ERROR_CONTEXT_FULL);
  EXPECT_EQ(sm2.position(), 0);

  // Context 64: past the 48 the kernels were compiled for; one prefill of
  // 60 equals the steps.
  std::vector<float> stepped;
  for (size_t k = 24; k < 60; ++k)
    stepped = lg.step(tokens[k]);
  Stream lgWhole(large);
  EXPECT_TRUE(closeTo(lgWhole.prefill(tokens), stepped)) << "context 64, 60 tokens";

  // Streams stepped together equal streams alone: at 24 below the capacity,
  // at 64 across the batched function's 48 (positions 44 to 52).
  for (Model *m : {&small, &large}) {
    const size_t n = 4, start = m == &small ? 8 : 44, steps = m == &small ? 6 : 9;
    SCOPED_TRACE("context " + std::to_string(m->contextLength()));
    std::vector<Stream> together, alone;
    for (size_t i = 0; i < n; ++i) {
      together.emplace_back(*m);
      alone.emplace_back(*m);
      std::vector<int32_t> p(start + i, static_cast<int32_t>(5 + i));
      together.back().prefill(p);
      alone.back().prefill(p);
    }
    for (size_t k = 0; k < steps; ++k) {
      std::vector<Stream *> ptrs;
      std::vector<int32_t> toks;
      for (size_t i = 0; i < n; ++i) {
        ptrs.push_back(&together[i]);
        toks.push_back(tokens[(k * 7 + i) % tokens.size()]);
      }
      std::vector<std::vector<float>> got = ssm::runtime::stepTogether(ptrs, toks);
      for (size_t i = 0; i < n; ++i)
        EXPECT_TRUE(closeTo(got[i], alone[i].step(toks[i]))) << "stream " << i << ", step " << k;
    }
    for (size_t i = 0; i < n; ++i)
      EXPECT_EQ(together[i].position(), static_cast<int64_t>(start + i + steps));
  }

  // State files across capacities: saved at 64 after 30 tokens, refused at
  // 24 (SSM_ERROR_CONTEXT_FULL), loaded at 48 and continued as at 64.
  const std::string saved = dir + "-ctx64.ssmstate";
  Stream a(large);
  a.prefill(std::vector<int32_t>(tokens.begin(), tokens.begin() + 30));
  a.save(saved);
  Stream intoSmall(small);
  EXPECT_EQ(statusOf([&] { intoSmall.load(saved); }), SSM_ERROR_CONTEXT_FULL);
  EXPECT_EQ(intoSmall.position(), 0);
  Stream intoDef(def);
  intoDef.load(saved);
  EXPECT_EQ(intoDef.position(), 30);
  for (size_t k = 30; k < 40; ++k)
    EXPECT_TRUE(closeTo(intoDef.step(tokens[k]), a.step(tokens[k]))) << "loaded at 48, position " << k;
  // Saved at 24 after 12 tokens, loaded at 64.
  Stream b(small);
  b.prefill(std::vector<int32_t>(tokens.begin(), tokens.begin() + 12));
  b.save(saved);
  Stream intoLarge(large);
  intoLarge.load(saved);
  for (size_t k = 12; k < 20; ++k)
    EXPECT_TRUE(closeTo(intoLarge.step(tokens[k]), b.step(tokens[k]))) << "loaded at 64, position " << k;
  // Saved at 64 after 60 tokens, past the import's 48 (a file larger than
  // any of the 48-position model): at 48, SSM_ERROR_CONTEXT_FULL naming the
  // context to open with (was SSM_ERROR_MISMATCH, "saved from another
  // model"); at 64 it loads.
  lg.save(saved);
  Stream intoDef60(def);
  try {
    intoDef60.load(saved);
    ADD_FAILURE() << "position 60 loaded at 48";
  } catch (const Error &e) {
    EXPECT_EQ(e.status(), SSM_ERROR_CONTEXT_FULL) << e.what();
    EXPECT_NE(std::string(e.what()).find("at least 60"), std::string::npos) << e.what();
  }
  EXPECT_EQ(intoDef60.position(), 0);
  Stream intoLarge60(large);
  intoLarge60.load(saved);
  EXPECT_EQ(intoLarge60.position(), 60);
  // The same header with position 2^30 in a sparse file of 1 GiB: refused
  // by its size (ContextFull, the position past 64), not read.
  {
    std::string bytes;
    {
      std::ifstream in(saved, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    ASSERT_GT(bytes.size(), 32u);
    const int64_t huge = int64_t(1) << 30;
    bytes.resize(32);
    std::memcpy(&bytes[24], &huge, 8); // magic, version, reserved, fingerprint, position
    std::ofstream(saved, std::ios::binary | std::ios::trunc) << bytes;
    fs::resize_file(saved, uintmax_t(1) << 30);
    Stream crafted(large);
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(statusOf([&] { crafted.load(saved); }), SSM_ERROR_CONTEXT_FULL);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2)) << "the file was read";
    EXPECT_EQ(crafted.position(), 0);
  }
  fs::remove(saved);

  // Refused by name: 0 and past 2^30 through the options; negative by the C API.
  for (int64_t bad : {int64_t(1) << 31, int64_t(-3)}) {
    ssm_model_options_t o = Model::withContext(bad);
    ssm_model_t *m = nullptr;
    EXPECT_EQ(ssm_model_open_options(dir.c_str(), &o, &m), SSM_ERROR_INVALID_ARGUMENT) << bad;
    EXPECT_EQ(m, nullptr);
    EXPECT_NE(std::string(ssm_last_error()).find("context"), std::string::npos) << ssm_last_error();
    // A C caller set a field, not a flag: the message names the field.
    if (bad > 0) {
      EXPECT_NE(std::string(ssm_last_error()).find("context_length " + std::to_string(bad)),
                std::string::npos)
          << ssm_last_error();
      EXPECT_EQ(std::string(ssm_last_error()).find("--context"), std::string::npos) << ssm_last_error();
    }
  }
}

/// A pure SSM has no KV cache: a context at open changes nothing (no bound).
TEST(ModelLibraryMamba, ContextAtOpenIsHarmlessWithoutKvCaches) {
  const std::string dir = std::string(SSM_MODEL_LIBRARY_DIR) + "/mamba-b4";
  ASSERT_TRUE(fs::exists(dir + "/compiled")) << dir << " is not prepared: run the tests through ctest";
  Model def(dir), ctx(dir, Model::withContext(5));
  EXPECT_EQ(ctx.contextLength(), 0);
  EXPECT_EQ(ctx.stateBytes(0).fixed, def.stateBytes(0).fixed);
  Stream a(def), b(ctx);
  std::vector<int32_t> p = {1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(b.prefill(p), a.prefill(p)); // past 5: no bound
  // The struct's size decides which fields are read: a caller with only
  // struct_size and flags gets the default context.
  ssm_model_options_t o = ssm_model_options_default();
  o.struct_size = offsetof(ssm_model_options_t, context_length);
  o.context_length = -1; // not read
  ssm_model_t *m = nullptr;
  EXPECT_EQ(ssm_model_open_options(dir.c_str(), &o, &m), SSM_OK) << ssm_last_error();
  ssm_model_free(m);
  o.struct_size = 1;
  EXPECT_EQ(ssm_model_open_options(dir.c_str(), &o, &m), SSM_ERROR_INVALID_ARGUMENT);
}

/// The same 4 streams stepped together in the same order, so that the batch
/// buffers still hold their states from one call to the next, and changed
/// in between (reset and prefill, setState, a step alone, save/reset/load):
/// every call sees the change, as replicas stepped alone do. `folder` is a
/// model-library.setup folder whose batched step takes `batch` streams.
void expectBatchBuffersFollowChanges(const std::string &folder, int64_t batch) {
  const std::string dir = std::string(SSM_MODEL_LIBRARY_DIR) + "/" + folder;
  ASSERT_TRUE(fs::exists(dir + "/compiled")) << dir << " is not prepared: run the tests through ctest";
  Model model(dir);
  ASSERT_EQ(model.stepBatch(), batch);
  const auto states = model.states();
  std::vector<Stream> together, alone;
  for (int i = 0; i < 4; ++i) {
    together.emplace_back(model);
    alone.emplace_back(model);
    std::vector<int32_t> prompt = {static_cast<int32_t>(60 + i), static_cast<int32_t>(90 + 7 * i)};
    together.back().prefill(prompt);
    alone.back().prefill(prompt);
  }
  std::vector<Stream *> ptrs;
  for (Stream &s : together)
    ptrs.push_back(&s);
  const std::string saved = dir + "-s0.ssmstate";
  for (int k = 0; k < 8; ++k) {
    if (k == 2) {
      together[1].reset();
      together[1].prefill({5, 6});
      alone[1].reset();
      alone[1].prefill({5, 6});
    } else if (k == 4) {
      for (const auto &st : states) {
        together[2].setState(st.name, together[0].state(st.name, st.numel));
        alone[2].setState(st.name, alone[0].state(st.name, st.numel));
      }
    } else if (k == 5) {
      together[3].step(17);
      alone[3].step(17);
    } else if (k == 6) {
      together[0].save(saved);
      together[0].reset();
      together[0].load(saved);
    }
    std::vector<int32_t> tokens;
    for (int i = 0; i < 4; ++i)
      tokens.push_back(static_cast<int32_t>((23 * k + 41 * i + 3) % 256));
    std::vector<std::vector<float>> got = ssm::runtime::stepTogether(ptrs, tokens);
    for (int i = 0; i < 4; ++i)
      EXPECT_TRUE(closeTo(got[i], alone[i].step(tokens[i]))) << "stream " << i << ", call " << k;
  }
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(together[i].position(), alone[i].position()) << "stream " << i;
}

TEST(ModelLibraryMamba, BatchBuffersFollowChangesBetweenCalls) {
  expectBatchBuffersFollowChanges("mamba-b4", 4);
}

/// The same with KV caches, which the batched step writes in place in a
/// buffer of its own (runtime/BatchedStep.h): 3 streams per call, the
/// fourth stepped alone. Needs ../shared/models/lfm2 (model-library.setup).
TEST(ModelLibraryHybrid, BatchBuffersFollowChangesBetweenCalls) {
  expectBatchBuffersFollowChanges("lfm2-b3", 3);
}

/// A model.json with functions.step_batched that the compiled modules do not
/// match is refused; one without it (older imports) steps streams on threads.
TEST(ModelLibraryMamba, BatchedStepEntryChecks) {
  const std::string dir = std::string(SSM_MODEL_LIBRARY_DIR) + "/mamba-b4";
  ASSERT_TRUE(fs::exists(dir + "/compiled")) << dir << " is not prepared: run the tests through ctest";
  std::ifstream in(dir + "/model.json");
  const std::string good((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string entry = "\"batch\": 4";
  ASSERT_NE(good.find(entry), std::string::npos);
  auto folder = [&](const std::string &name, const std::string &json) {
    std::string d = std::string(SSM_MODEL_LIBRARY_DIR) + "/" + name;
    fs::remove_all(d);
    fs::create_directories(d);
    std::ofstream(d + "/model.json") << json;
    fs::create_symlink(dir + "/weights.safetensors", d + "/weights.safetensors");
    fs::create_directory_symlink(dir + "/compiled", d + "/compiled");
    return d;
  };
  std::string wrong = good;
  wrong.replace(wrong.find(entry), entry.size(), "\"batch\": 3");
  ssm_model_t *m = nullptr;
  EXPECT_EQ(ssm_model_open(folder("mamba-b3", wrong).c_str(), &m), SSM_ERROR_MISMATCH);
  EXPECT_NE(std::string(ssm_last_error()).find("takes 4 tokens, but"), std::string::npos)
      << ssm_last_error();
  ssm_model_free(m);
  std::string malformed = good;
  malformed.replace(malformed.find(entry), entry.size(), "\"batch\": 0");
  EXPECT_EQ(ssm_model_open(folder("mamba-b0", malformed).c_str(), &m), SSM_ERROR_INVALID_FILE);
  EXPECT_NE(std::string(ssm_last_error()).find("functions.step_batched must be"), std::string::npos)
      << ssm_last_error();
  ssm_model_free(m);

  // Without the entry the batched function is not used: the steps on threads, bit for bit.
  std::string old = good;
  size_t at = old.find(",\n    \"step_batched\"");
  ASSERT_NE(at, std::string::npos);
  old.erase(at, old.find('}', at) + 1 - at);
  Model plain(folder("mamba-old", old));
  EXPECT_EQ(plain.stepBatch(), 0);
  Stream s1(plain), s2(plain), alone(plain);
  std::vector<Stream *> two = {&s1, &s2};
  std::vector<float> want = alone.step(7);
  EXPECT_EQ(ssm::runtime::stepTogether(two, {7, 9})[0], want);
}

} // namespace
