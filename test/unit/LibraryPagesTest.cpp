// releaseLibraryCode (tools/ssm-run/LibraryPages.h): a read-only executable
// file mapping's resident pages leave the resident set and read back the
// file's bytes; a mapping with a page of its own, or of another name, keeps
// its pages. Linux only (reads /proc/self/smaps).
#include "tools/ssm-run/LibraryPages.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

namespace {

constexpr size_t kBytes = 4 << 20; // 4 MiB

/// A temporary file of kBytes whose byte i is (i * 7) & 255.
std::string makeFile(const char *tag) {
  std::string path = ::testing::TempDir() + "/libssm-pages-" + tag + "-" +
                     std::to_string(getpid()) + ".so";
  std::vector<unsigned char> bytes(kBytes);
  for (size_t i = 0; i < kBytes; ++i)
    bytes[i] = static_cast<unsigned char>(i * 7);
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<char *>(bytes.data()), kBytes);
  return path;
}

/// The Rss of the mapping that starts at `p`, in KiB (-1 when not found).
long rssKib(const void *p) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long long b = 0, e = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx ", &b, &e) == 2 && line.find(" r") != std::string::npos) {
      inside = b == reinterpret_cast<uintptr_t>(p);
      continue;
    }
    long kib = 0;
    if (inside && std::sscanf(line.c_str(), "Rss: %ld kB", &kib) == 1)
      return kib;
  }
  return -1;
}

/// Maps `path` private and executable, and touches every page.
const unsigned char *mapAndTouch(const std::string &path) {
  int fd = open(path.c_str(), O_RDONLY);
  EXPECT_GE(fd, 0);
  void *p = mmap(nullptr, kBytes, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
  close(fd);
  EXPECT_NE(p, MAP_FAILED);
  auto *bytes = static_cast<const unsigned char *>(p);
  unsigned sum = 0;
  for (size_t i = 0; i < kBytes; i += 4096)
    sum += bytes[i];
  EXPECT_NE(sum, 1u); // keep the reads
  return bytes;
}

} // namespace

TEST(LibraryPagesTest, ReleasesNamedCodeAndKeepsItsBytes) {
#if !defined(__linux__)
  GTEST_SKIP() << "reads /proc/self/smaps";
#endif
  std::string named = makeFile("named"), other = makeFile("other");
  const unsigned char *a = mapAndTouch(named), *b = mapAndTouch(other);
  ASSERT_GE(rssKib(a), 1024) << "the touched mapping is not resident";
  ASSERT_GE(rssKib(b), 1024);
  int64_t released = ssm::releaseLibraryCode({"libssm-pages-named-"});
  EXPECT_GE(released, 1024);
  EXPECT_LT(rssKib(a), 64) << "the named mapping kept its pages";
  EXPECT_GE(rssKib(b), 1024) << "a mapping of another name lost its pages";
  // The file's bytes read back (faulted in again).
  for (size_t i = 0; i < kBytes; i += 4093)
    ASSERT_EQ(a[i], static_cast<unsigned char>(i * 7)) << "byte " << i;
  munmap(const_cast<unsigned char *>(a), kBytes);
  munmap(const_cast<unsigned char *>(b), kBytes);
  std::remove(named.c_str());
  std::remove(other.c_str());
}

TEST(LibraryPagesTest, KeepsAMappingWithPagesOfItsOwn) {
#if !defined(__linux__)
  GTEST_SKIP() << "reads /proc/self/smaps";
#endif
  // A page written through a private mapping (as a debugger's breakpoint is)
  // would turn back into the file's bytes if dropped: the mapping is skipped.
  std::string path = makeFile("dirty");
  unsigned char *p = const_cast<unsigned char *>(mapAndTouch(path));
  ASSERT_EQ(mprotect(p, kBytes, PROT_READ | PROT_WRITE), 0);
  p[100] = 0xAB;
  ASSERT_EQ(mprotect(p, kBytes, PROT_READ | PROT_EXEC), 0);
  EXPECT_EQ(ssm::releaseLibraryCode({"libssm-pages-dirty-"}), 0);
  EXPECT_EQ(p[100], 0xAB);
  EXPECT_GE(rssKib(p), 1024);
  munmap(p, kBytes);
  std::remove(path.c_str());
}

TEST(LibraryPagesTest, NoNameNoRelease) {
  EXPECT_EQ(ssm::releaseLibraryCode({}), 0);
  EXPECT_EQ(ssm::releaseLibraryCode({""}), 0);
}
