// The runtime's weights file (runtime/Weights.h) in both loads: read into
// huge-page memory (the default) and mapped. Both must give the file's values
// bit for bit and the same errors for a truncated or missing file; the read
// copy must start on a 2 MB boundary (so that transparent huge pages can back it).
#include "runtime/ModelSpec.h"
#include "runtime/Weights.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sys/resource.h>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

using ssm::rt::Code;
using ssm::rt::Status;
using ssm::rt::WeightFile;
using ssm::rt::WeightLoad;

namespace {

std::string tempPath(const std::string &name) {
  return ::testing::TempDir() + "ssm_wf_" + std::to_string(getpid()) + "_" + name;
}

/// A safetensors file by hand: u64 LE header length, JSON, data. Tensor "a"
/// is 3 x 5 F32 (values i * 0.25 - 1), "h" 4 F16 (1, -2, 0.5, 65504).
std::vector<char> fileBytes() {
  std::vector<float> a(15);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<float>(i) * 0.25f - 1.0f;
  const uint16_t h[4] = {0x3c00, 0xc000, 0x3800, 0x7bff};
  std::string json = R"({"a":{"dtype":"F32","shape":[3,5],"data_offsets":[0,60]},)"
                     R"("h":{"dtype":"F16","shape":[4],"data_offsets":[60,68]}})";
  while ((8 + json.size()) % 8)
    json += ' ';
  std::vector<char> out(8);
  uint64_t n = json.size();
  for (int i = 0; i < 8; ++i)
    out[i] = static_cast<char>(n >> (8 * i));
  out.insert(out.end(), json.begin(), json.end());
  const char *ab = reinterpret_cast<const char *>(a.data());
  out.insert(out.end(), ab, ab + 60);
  const char *hb = reinterpret_cast<const char *>(h);
  out.insert(out.end(), hb, hb + 8);
  return out;
}

void write(const std::string &path, const std::vector<char> &bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

class WeightFileTest : public ::testing::TestWithParam<WeightLoad> {};

TEST_P(WeightFileTest, GivesTheFileValuesBitForBit) {
  std::string path = tempPath("good.safetensors");
  write(path, fileBytes());
  Status st;
  auto w = WeightFile::open(path, st, GetParam());
  ASSERT_TRUE(w) << st.message();
  EXPECT_EQ(w->load(), GetParam());
  EXPECT_EQ(w->fileBytes(), fileBytes().size());
  const WeightFile::Tensor *a = w->get("a", st);
  ASSERT_TRUE(a) << st.message();
  ASSERT_EQ(a->numel, 15);
  for (int i = 0; i < 15; ++i)
    EXPECT_EQ(a->data[i], static_cast<float>(i) * 0.25f - 1.0f) << i;
  EXPECT_TRUE(a->converted.empty()); // F32 is used where it lies
  if (GetParam() == WeightLoad::Copy) {
    // The file starts on a 2 MB boundary, tensor offsets as in the file.
    auto start = reinterpret_cast<uintptr_t>(a->data) - a->offset;
    EXPECT_EQ(start % (uintptr_t(2) << 20), 0u);
  }
  const WeightFile::Tensor *h = w->get("h", st);
  ASSERT_TRUE(h) << st.message();
  EXPECT_EQ(std::vector<float>(h->data, h->data + 4), (std::vector<float>{1, -2, 0.5f, 65504}));
  unlink(path.c_str());
}

TEST_P(WeightFileTest, TruncatedAndMissingFilesAreNamed) {
  std::string path = tempPath("short.safetensors");
  std::vector<char> bytes = fileBytes();
  bytes.resize(bytes.size() - 4); // "h" ends past the end
  write(path, bytes);
  Status st;
  EXPECT_FALSE(WeightFile::open(path, st, GetParam()));
  EXPECT_EQ(st.code(), Code::InvalidFile);
  EXPECT_NE(st.message().find("tensor 'h'"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find(path), std::string::npos) << st.message();
  unlink(path.c_str());

  Status missing;
  EXPECT_FALSE(WeightFile::open(tempPath("absent.safetensors"), missing, GetParam()));
  EXPECT_EQ(missing.code(), Code::NotFound);
}

// A good header followed by more than its tensors (here 8 GiB of sparse
// zeros): refused from the header, before the file is read or mapped. Before,
// the whole file was copied into memory first (a 64 GiB file: 24 GB, then the
// OOM killer). The child runs with 1 GiB of address space, so reading or
// mapping the file fails with another message.
TEST_P(WeightFileTest, TrailingBytesAreRefusedBeforeTheDataIsRead) {
  std::string path = tempPath("trailing.safetensors");
  write(path, fileBytes());
  const off_t big = off_t(8) << 30;
  ASSERT_EQ(::truncate(path.c_str(), big), 0);
  WeightLoad load = GetParam();
  auto openBounded = [&] {
    struct rlimit limit = {rlim_t(1) << 30, rlim_t(1) << 30};
    if (::setrlimit(RLIMIT_AS, &limit) != 0)
      std::exit(3);
    Status st;
    if (WeightFile::open(path, st, load))
      std::exit(4);
    std::fprintf(stderr, "%s\n", st.message().c_str());
    std::exit(st.code() == Code::InvalidFile ? 0 : 5);
  };
  EXPECT_EXIT(openBounded(), ::testing::ExitedWithCode(0),
              "the tensors' data ends at byte " + std::to_string(fileBytes().size()) +
                  " but the file has 8589934592 bytes");
  unlink(path.c_str());
}

// The other file of a model folder read whole: model.json, bounded at 64
// MiB. Before, a 4 GiB (sparse) model.json was read into memory: with 1 GiB
// of address space, std::bad_alloc and an abort; a 64 GiB one took 16 GB
// and 50 s before the abort.
TEST(ModelJsonTest, AModelJsonOfGigabytesIsRefusedUnread) {
  std::string dir = tempPath("huge-model");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/model.json") << R"({"format": "ssm-opt-model", "version": 1})";
  ASSERT_EQ(::truncate((dir + "/model.json").c_str(), off_t(4) << 30), 0);
  auto loadBounded = [&] {
    struct rlimit limit = {rlim_t(1) << 30, rlim_t(1) << 30};
    if (::setrlimit(RLIMIT_AS, &limit) != 0)
      std::exit(3);
    ssm::rt::ModelSpec spec;
    Status st = ssm::rt::ModelSpec::load(dir, spec);
    std::fprintf(stderr, "%s\n", st.message().c_str());
    std::exit(st.code() == Code::InvalidFile ? 0 : 5);
  };
  EXPECT_EXIT(loadBounded(), ::testing::ExitedWithCode(0),
              "model.json: 4294967296 bytes; a model.json is at most 64 MiB");
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Loads, WeightFileTest,
                         ::testing::Values(WeightLoad::Copy, WeightLoad::Map),
                         [](const auto &info) {
                           return std::string(info.param == WeightLoad::Copy ? "Copy" : "Map");
                         });

} // namespace
