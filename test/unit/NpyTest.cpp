// Unit tests for the .npy reader and writer: round trips, hand-made headers, and malformed files.
#include "runtime/Npy.h"
#include "runtime/AtomicFile.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace ssm;

namespace {

std::string tempPath(const std::string &name) {
  return ::testing::TempDir() + "ssm_npy_" + std::to_string(getpid()) + "_" + name;
}

void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), std::streamsize(bytes.size()));
}

std::string readBytes(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

/// A file built by hand from the format spec, independent of our writer.
std::string handMade(int major, const std::string &dict, const std::string &data) {
  std::string header = dict + "\n";
  std::string s = std::string("\x93NUMPY", 6) + char(major) + char(0);
  size_t len = header.size();
  s += char(len & 0xFF);
  s += char((len >> 8) & 0xFF);
  if (major >= 2) {
    s += char((len >> 16) & 0xFF);
    s += char((len >> 24) & 0xFF);
  }
  return s + header + data;
}

std::string doublesBytes(std::initializer_list<double> values) {
  std::string s;
  for (double v : values)
    s.append(reinterpret_cast<const char *>(&v), sizeof v);
  return s;
}

bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

} // namespace

TEST(NpyTest, RoundTripEveryDtype) {
  std::string path = tempPath("roundtrip.npy");
  for (const char *dtype : {"<f4", "<f8", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2",
                            "<u4", "<u8", "|b1"}) {
    for (std::vector<int64_t> shape :
         {std::vector<int64_t>{}, {5}, {2, 3}, {0, 4}, {2, 1, 3}}) {
      std::vector<double> values;
      int64_t n = 1;
      for (int64_t d : shape)
        n *= d;
      for (int64_t i = 0; i < n; ++i)
        values.push_back(std::strcmp(dtype, "|b1") == 0 ? double(i % 2) : double(i + 1));
      std::string error;
      ASSERT_TRUE(writeNpyDoubles(path, dtype, shape, values, error)) << error;
      NpyArray a;
      ASSERT_TRUE(readNpy(path, a, error)) << error;
      EXPECT_EQ(a.dtype, dtype);
      EXPECT_EQ(a.shape, shape);
      std::vector<double> back;
      ASSERT_TRUE(npyToDoubles(a, back, error)) << error;
      EXPECT_EQ(back, values) << dtype;
    }
  }
  std::remove(path.c_str());
}

TEST(NpyTest, WriterLayoutMatchesNumPy) {
  // The header is padded so the data starts on a 64-byte boundary and ends in '\n'.
  std::string path = tempPath("layout.npy"), error;
  float data[6] = {1, 2, 3, 4, 5, 6};
  ASSERT_TRUE(writeNpy(path, "<f4", {2, 3}, data, error)) << error;
  std::string bytes = readBytes(path);
  // The 59-character dict, a newline and the 10-byte preamble round up to 128.
  ASSERT_EQ(bytes.size(), 128u + sizeof data);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_EQ(uint8_t(bytes[8]) | (uint8_t(bytes[9]) << 8), 128 - 10);
  EXPECT_EQ(bytes[127], '\n');
  EXPECT_EQ(bytes.substr(10, 59),
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
  EXPECT_EQ(std::memcmp(bytes.data() + 128, data, sizeof data), 0);
  std::remove(path.c_str());
}

TEST(NpyTest, ReadsHandMadeVersions) {
  std::string data = doublesBytes({1.5, -2.0});
  for (int major : {1, 2, 3}) {
    std::string file = handMade(
        major, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", data);
    NpyArray a;
    std::string error;
    ASSERT_TRUE(parseNpy(file.data(), file.size(), a, error)) << error;
    std::vector<float> f;
    ASSERT_TRUE(npyToFloats(a, f, error));
    EXPECT_EQ(f, (std::vector<float>{1.5f, -2.0f})) << "version " << major;
  }
  // Python 2 era shape '(2L,)', double quotes, other key order, no trailing comma.
  std::string old = handMade(1, "{\"shape\": (2L,), \"fortran_order\": False, "
                                "\"descr\": \"<f8\"}", data);
  NpyArray a;
  std::string error;
  ASSERT_TRUE(parseNpy(old.data(), old.size(), a, error)) << error;
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2}));
}

TEST(NpyTest, MissingFile) {
  NpyArray a;
  std::string error, path = tempPath("does_not_exist.npy");
  EXPECT_FALSE(readNpy(path, a, error));
  EXPECT_TRUE(contains(error, path)) << error;
  EXPECT_TRUE(contains(error, "cannot open")) << error;
}

TEST(NpyTest, DirectoryIsNotAFile) {
  NpyArray a;
  std::string error;
  EXPECT_FALSE(readNpy(::testing::TempDir(), a, error));
  EXPECT_TRUE(contains(error, "directory")) << error;
}

TEST(NpyTest, BadMagic) {
  std::string path = tempPath("magic.npy");
  writeBytes(path, "PK\x03\x04 this is a zip, not an array");
  NpyArray a;
  std::string error;
  EXPECT_FALSE(readNpy(path, a, error));
  EXPECT_TRUE(contains(error, "bad magic")) << error;
  EXPECT_TRUE(contains(error, path)) << error;
  std::remove(path.c_str());
}

TEST(NpyTest, TruncatedData) {
  std::string file = handMade(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }",
                              doublesBytes({1, 2}));
  std::string path = tempPath("truncated.npy");
  writeBytes(path, file);
  NpyArray a;
  std::string error;
  EXPECT_FALSE(readNpy(path, a, error));
  EXPECT_TRUE(contains(error, "truncated data")) << error;
  EXPECT_TRUE(contains(error, "needs 24 bytes")) << error;
  EXPECT_TRUE(contains(error, "has 16")) << error;
  std::remove(path.c_str());
}

TEST(NpyTest, TrailingBytes) {
  std::string file = handMade(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }",
                              doublesBytes({1, 2}));
  NpyArray a;
  std::string error;
  EXPECT_FALSE(parseNpy(file.data(), file.size(), a, error));
  EXPECT_TRUE(contains(error, "trailing")) << error;
}

TEST(NpyTest, TruncatedHeaderAtEveryLength) {
  // Every strict prefix of a valid file is an error, never a crash, and the
  // full file is accepted, from memory and from disk alike.
  std::string file = handMade(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }",
                              std::string("\x01\0\0\0\x02\0\0\0", 8));
  std::string path = tempPath("prefix.npy");
  for (size_t len = 0; len <= file.size(); ++len) {
    NpyArray a;
    std::string error;
    bool ok = parseNpy(file.data(), len, a, error);
    EXPECT_EQ(ok, len == file.size()) << "length " << len << ": " << error;
    writeBytes(path, file.substr(0, len));
    EXPECT_EQ(readNpy(path, a, error), len == file.size()) << "length " << len;
    if (len > 0 && len < 10) {
      EXPECT_TRUE(contains(error, "truncated header")) << error;
    }
  }
  std::remove(path.c_str());
}

TEST(NpyTest, RefusesFortranOrderAndBigEndian) {
  std::string data = doublesBytes({1, 2, 3, 4});
  std::string fortran =
      handMade(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2), }", data);
  NpyArray a;
  std::string error;
  EXPECT_FALSE(parseNpy(fortran.data(), fortran.size(), a, error));
  EXPECT_TRUE(contains(error, "fortran_order")) << error;
  std::string big = handMade(1, "{'descr': '>f8', 'fortran_order': False, 'shape': (4,), }",
                             data);
  EXPECT_FALSE(parseNpy(big.data(), big.size(), a, error));
  EXPECT_TRUE(contains(error, "big-endian")) << error;
}

TEST(NpyTest, RefusesUnsupportedDtypes) {
  NpyArray a;
  std::string error;
  std::string complex64 = handMade(
      1, "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", std::string(8, '\0'));
  EXPECT_FALSE(parseNpy(complex64.data(), complex64.size(), a, error));
  EXPECT_TRUE(contains(error, "unsupported dtype '<c8'")) << error;
  std::string structured = handMade(
      1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }",
      std::string(4, '\0'));
  EXPECT_FALSE(parseNpy(structured.data(), structured.size(), a, error));
  EXPECT_TRUE(contains(error, "structured")) << error;
  std::string version = handMade(1, "{}", "");
  version[6] = 4;
  EXPECT_FALSE(parseNpy(version.data(), version.size(), a, error));
  EXPECT_TRUE(contains(error, "version 4.0")) << error;
}

TEST(NpyTest, HugeShapesFailWithoutAllocating) {
  NpyArray a;
  std::string error;
  std::string overflow = handMade(
      1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", "");
  EXPECT_FALSE(parseNpy(overflow.data(), overflow.size(), a, error));
  EXPECT_TRUE(contains(error, "too large")) << error;
  std::string big = handMade(
      1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,), }", "");
  std::string path = tempPath("big.npy");
  writeBytes(path, big);
  EXPECT_FALSE(readNpy(path, a, error));
  EXPECT_TRUE(contains(error, "truncated data")) << error;
  std::remove(path.c_str());
}

TEST(NpyTest, FuzzedHeadersNeverCrash) {
  std::string good = handMade(
      1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", std::string(16, '\0'));
  std::mt19937 gen(7);
  int accepted = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string f = good;
    int flips = 1 + int(gen() % 4);
    for (int k = 0; k < flips; ++k) {
      size_t pos = gen() % (f.size() - 16); // header bytes, including the length
      f[pos] = char(gen() % 256);
    }
    if (gen() % 4 == 0)
      f.resize(gen() % f.size());
    NpyArray a;
    std::string error;
    if (parseNpy(f.data(), f.size(), a, error)) {
      ++accepted;
      int64_t n = a.numel();
      EXPECT_EQ(a.bytes.size(), size_t(n) * npyItemSize(a.dtype));
    } else {
      EXPECT_FALSE(error.empty());
    }
  }
  EXPECT_LT(accepted, 20000);
}

TEST(NpyTest, Conversions) {
  std::string error;
  NpyArray a;
  ASSERT_TRUE(npyFromDoubles("<i4", {3}, {-1.4, 2.6, 7}, a, error)) << error;
  std::vector<double> back;
  ASSERT_TRUE(npyToDoubles(a, back, error));
  EXPECT_EQ(back, (std::vector<double>{-1, 3, 7}));
  EXPECT_FALSE(npyFromDoubles("|u1", {1}, {256}, a, error));
  EXPECT_TRUE(contains(error, "does not fit")) << error;
  EXPECT_FALSE(npyFromDoubles("<i8", {1}, {9223372036854775808.0}, a, error));
  EXPECT_FALSE(npyFromDoubles("<i4", {1}, {NAN}, a, error));
  EXPECT_FALSE(npyFromDoubles("<f4", {2}, {1}, a, error));
  ASSERT_TRUE(npyFromDoubles("|b1", {2}, {0, -3}, a, error));
  EXPECT_EQ(a.bytes, (std::vector<char>{0, 1}));
  EXPECT_EQ(npyItemSize("<f8"), 8u);
  EXPECT_EQ(npyItemSize("|u1"), 1u);
  EXPECT_EQ(npyItemSize(">f4"), 0u);
  NpyArray bad;
  bad.dtype = "<f4";
  bad.shape = {3};
  bad.bytes.resize(8);
  EXPECT_FALSE(npyToDoubles(bad, back, error));
}

TEST(NpyTest, WriteErrors) {
  std::string error;
  float v = 1;
  EXPECT_FALSE(writeNpy(tempPath("no_such_dir/x.npy"), "<f4", {1}, &v, error));
  EXPECT_TRUE(contains(error, "cannot open for writing")) << error;
  EXPECT_FALSE(writeNpy(tempPath("x.npy"), "<c8", {1}, &v, error));
  EXPECT_TRUE(contains(error, "unsupported dtype")) << error;
  EXPECT_FALSE(writeNpy(tempPath("x.npy"), "<f4", {-1}, &v, error));
}

// runtime/AtomicFile.h by what the output path names. Before, every output was
// written to a temporary and renamed over the path, whatever it named: a
// symbolic link was replaced by a regular file, a FIFO (or, as root, /dev/null
// or /dev/full) by a regular file holding the bytes, and /dev/stdout refused.
TEST(NpyTest, AtomicWriteThroughASymlinkReplacesTheFileItNames) {
  std::string real = tempPath("real.bin"), link = tempPath("link.bin"), error;
  ::unlink(real.c_str());
  ::unlink(link.c_str());
  writeBytes(real, "old");
  ASSERT_EQ(::chmod(real.c_str(), 0640), 0);
  ASSERT_EQ(::symlink(real.c_str(), link.c_str()), 0);
  ASSERT_TRUE(writeFileAtomically(link, std::string("new bytes"), error)) << error;
  struct stat st;
  ASSERT_EQ(::lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode)) << "the link was replaced by a file";
  EXPECT_EQ(readBytes(real), "new bytes");
  ASSERT_EQ(::stat(real.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u) << "the replaced file keeps its permission bits";
  ::unlink(link.c_str());
  ::unlink(real.c_str());
}

TEST(NpyTest, AtomicWriteIntoAFifoWritesInPlace) {
  std::string fifo = tempPath("out.fifo"), error;
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // A reader first (non-blocking open), so the writer's open does not wait.
  int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  float v[3] = {1, 2, 3};
  ASSERT_TRUE(writeNpy(fifo, "<f4", {3}, v, error)) << error;
  char buf[4096];
  ssize_t n = ::read(reader, buf, sizeof buf);
  ::close(reader);
  struct stat st;
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced by a regular file";
  ::unlink(fifo.c_str());
  ASSERT_GT(n, 0) << "nothing came through the FIFO";
  std::string path = tempPath("from_fifo.npy");
  writeBytes(path, std::string(buf, size_t(n)));
  NpyArray a;
  ASSERT_TRUE(readNpy(path, a, error)) << error;
  EXPECT_EQ(a.shape, (std::vector<int64_t>{3}));
  ::unlink(path.c_str());
}

// A descriptor's name (/proc/self/fd/N, as /dev/stdout is) leading to a
// regular file: the bytes go after what the descriptor holds (a shell's
// `> file`), and the file is not replaced by another.
TEST(NpyTest, AtomicWriteToADescriptorNameAppendsInPlace) {
  std::string path = tempPath("descriptor.bin"), error;
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "abc", 3), 3);
  struct stat before, after;
  ASSERT_EQ(::fstat(fd, &before), 0);
  std::string name = "/proc/self/fd/" + std::to_string(fd);
  EXPECT_FALSE(wouldReplaceFile(name)) << "a descriptor's name needs no --force";
  ASSERT_TRUE(writeFileAtomically(name, std::string("def"), error)) << error;
  ::close(fd);
  ASSERT_EQ(::stat(path.c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino) << "the file was replaced";
  EXPECT_EQ(readBytes(path), "abcdef");
  ::unlink(path.c_str());
}

TEST(NpyTest, AtomicWriteRefusesADirectory) {
  // (Devices take the FIFO's path above; the test does not write to /dev/full
  // or /dev/null, which a regression would replace when run as root.)
  std::string error;
  EXPECT_FALSE(writeFileAtomically(::testing::TempDir(), std::string("x"), error));
  EXPECT_TRUE(contains(error, "is a directory")) << error;
}
