// Files truncated in place while the runtime maps them (runtime/MappedFaults.h):
// mapped weights (WeightLoad::Map) and a loaded module library. The next read of a
// page past the new end raises SIGBUS; the runtime names the file and exits 1
// instead of dying silently. Run as death tests (a forked child does the read).
// A SIGBUS at an address the runtime did not map still kills with SIGBUS.
#include "StateGraphs.h"

#include "runtime/Weights.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <sys/stat.h>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

namespace {

using namespace state_graphs;
using ssm::rt::Status;
using ssm::rt::WeightFile;
using ssm::rt::WeightLoad;

std::string tempPath(const std::string &name) {
  return ::testing::TempDir() + "ssm_mapped_" + std::to_string(getpid()) + "_" + name;
}

/// A safetensors file with one F32 tensor "w" of `n` values (i * 0.5), its
/// data starting on a page of its own.
void writeWeights(const std::string &path, size_t n) {
  std::string json = R"({"w":{"dtype":"F32","shape":[)" + std::to_string(n) +
                     R"(],"data_offsets":[0,)" + std::to_string(4 * n) + "]}}";
  json.resize(4096 - 8, ' ');
  std::vector<char> out(8);
  for (int i = 0; i < 8; ++i)
    out[i] = static_cast<char>(static_cast<uint64_t>(json.size()) >> (8 * i));
  out.insert(out.end(), json.begin(), json.end());
  for (size_t i = 0; i < n; ++i) {
    float v = 0.5f * static_cast<float>(i);
    const char *b = reinterpret_cast<const char *>(&v);
    out.insert(out.end(), b, b + 4);
  }
  std::ofstream(path, std::ios::binary).write(out.data(), static_cast<std::streamsize>(out.size()));
}

float readAll(const float *p, size_t n) {
  volatile float sum = 0;
  for (size_t i = 0; i < n; ++i)
    sum = sum + p[i];
  return sum;
}

TEST(MappedFilesDeathTest, WeightsTruncatedBetweenOpenAndUseAreANamedError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::string path = tempPath("weights.safetensors");
  const size_t n = 4096; // four pages of data
  writeWeights(path, n);
  Status st;
  auto w = WeightFile::open(path, st, WeightLoad::Map);
  ASSERT_TRUE(w) << st.message();
  ASSERT_EQ(w->load(), WeightLoad::Map);
  const WeightFile::Tensor *t = w->get("w", st);
  ASSERT_TRUE(t) << st.message();
  EXPECT_EQ(readAll(t->data, n), 0.5f * (n - 1) * n / 2); // exact: sums of halves below 2^24
  ASSERT_EQ(::truncate(path.c_str(), 4096), 0); // the header stays, the data goes
  // (The death test runs this test again in a child process: its own pid, its own file.)
  EXPECT_EXIT(readAll(t->data, n), ::testing::ExitedWithCode(1),
              "ssm runtime: [^ ]*ssm_mapped_[0-9]+_weights.safetensors changed while mapped "
              "\\(truncated or rewritten in place\\): replace model files by rename, never in "
              "place");
  ::unlink(path.c_str());
}

TEST(MappedFilesDeathTest, AFaultElsewhereStillKillsWithSigbus) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::string weights = tempPath("registered.safetensors"), other = tempPath("other.bin");
  writeWeights(weights, 16);
  Status st;
  auto w = WeightFile::open(weights, st, WeightLoad::Map); // the handler is installed
  ASSERT_TRUE(w) << st.message();
  std::ofstream(other, std::ios::binary) << std::string(8192, 'x');
  int fd = ::open(other.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  void *p = ::mmap(nullptr, 8192, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  ASSERT_NE(p, MAP_FAILED);
  ASSERT_EQ(::truncate(other.c_str(), 0), 0);
  EXPECT_EXIT(
      {
        volatile char c = static_cast<const char *>(p)[4096];
        (void)c;
        std::exit(0);
      },
      ::testing::KilledBySignal(SIGBUS), "");
  ::munmap(p, 8192);
  ::unlink(weights.c_str());
  ::unlink(other.c_str());
}

/// In a death test's child: compiles the @decode module into a folder named
/// after `name`, calls it once, lets `damage` change its library file in
/// place (exit 5 when it cannot), and calls it again. Exits 0 if that call
/// returns; the runtime's fault handler is expected to exit 1 first.
[[noreturn]] void callDamageAndCallAgain(const std::string &name,
                                         const std::function<bool(const std::string &)> &damage) {
  auto module = compileText(moduleText(), name, "host");
  if (!module)
    std::exit(3);
  std::mt19937 rng(3);
  StepInputs in(rng);
  HostTensor h = random({1, kDim, kN}, rng, -1, 1);
  std::vector<HostTensor> out;
  std::string error;
  auto call = module->bind(*module->find("decode"), {&h, &in.x, &in.dt, &in.A, &in.B, &in.C, &in.D},
                           out, error);
  if (!call || !call->invoke(error))
    std::exit(4);
  std::string lib =
      ::testing::TempDir() + name + "-host-" + std::to_string(getpid()) + "/libssm_module.so";
  if (!damage(lib))
    std::exit(5);
  call->invoke(error);
  std::exit(0);
}

TEST(MappedFilesDeathTest, AModuleLibraryTruncatedAfterLoadingIsANamedError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // All in the child: a library truncated under this process would also
  // fault in its unloading here.
  auto truncatedAfterACall = [] {
    callDamageAndCallAgain("ssm-mapped-library",
                           [](const std::string &lib) { return ::truncate(lib.c_str(), 0) == 0; });
  };
  EXPECT_EXIT(truncatedAfterACall(), ::testing::ExitedWithCode(1),
              "ssm runtime: [^ ]*ssm-mapped-library-host-[0-9]+/libssm_module.so changed while "
              "mapped \\(truncated or rewritten in place\\)");
}

} // namespace

// A library rewritten in place at the same size (no SIGBUS: its pages now
// hold other bytes): its code faults (SIGSEGV or SIGILL), named as a changed
// file when the file differs from the one loaded. Before, the process died of
// SIGSEGV with no word of why.
TEST(MappedFilesDeathTest, AModuleLibraryRewrittenInPlaceIsANamedError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto rewrittenAfterACall = [] {
    // Zeros over every byte, in place (the same inode and size).
    callDamageAndCallAgain("ssm-rewritten-library", [](const std::string &lib) {
      struct stat st;
      if (::stat(lib.c_str(), &st) != 0)
        return false;
      FILE *f = std::fopen(lib.c_str(), "r+b");
      if (!f)
        return false;
      std::vector<char> zeros(static_cast<size_t>(st.st_size), 0);
      std::fwrite(zeros.data(), 1, zeros.size(), f);
      std::fclose(f);
      return true;
    });
  };
  EXPECT_EXIT(rewrittenAfterACall(), ::testing::ExitedWithCode(1),
              "ssm runtime: [^ ]*ssm-rewritten-library-host-[0-9]+/libssm_module.so changed while "
              "mapped \\(truncated or rewritten in place\\)");
}

// With a library loaded (the SIGSEGV handler installed), a fault outside its
// code, or in an unchanged library, still kills with SIGSEGV as before.
TEST(MappedFilesDeathTest, ASegfaultElsewhereStillKillsWithSigsegv) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto faultElsewhere = [] {
    auto module = compileText(moduleText(), "ssm-segv-elsewhere", "host");
    if (!module)
      std::exit(3);
    volatile int *nowhere = nullptr;
    *nowhere = 1;
    std::exit(0);
  };
  EXPECT_EXIT(faultElsewhere(), ::testing::KilledBySignal(SIGSEGV), "");
}
