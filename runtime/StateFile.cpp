// Writing and checking saved stream states (StateFile.h).
#include "runtime/StateFile.h"

#include "runtime/AtomicFile.h"
#include "runtime/ModelSpec.h"
#include "runtime/Shape.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace ssm::rt {

namespace {
constexpr char kMagic[8] = {'S', 'S', 'M', 'S', 'T', 'A', 'T', 'E'};

template <typename T> void put(std::string &out, T v) {
  out.append(reinterpret_cast<const char *>(&v), sizeof(T));
}
void putFloats(std::string &out, const std::vector<float> &v) {
  out.append(reinterpret_cast<const char *>(v.data()), v.size() * sizeof(float));
}

/// Reads from a byte range, failing (not overrunning) when it ends early.
struct Reader {
  const char *p, *end;
  bool ok = true;
  template <typename T> T get() {
    T v{};
    if (static_cast<size_t>(end - p) < sizeof(T)) {
      ok = false;
      return v;
    }
    std::memcpy(&v, p, sizeof(T));
    p += sizeof(T);
    return v;
  }
  bool bytes(void *dst, uint64_t n) {
    if (!ok || static_cast<uint64_t>(end - p) < n)
      return ok = false;
    if (n == 0) // dst may be an empty vector's null data()
      return true;
    std::memcpy(dst, p, n);
    p += n;
    return true;
  }
};
} // namespace

Status writeStateFile(const std::string &path, const SavedState &state) {
  std::string out(kMagic, sizeof(kMagic));
  put<uint32_t>(out, kStateFileVersion);
  put<uint32_t>(out, 0);
  put<uint64_t>(out, state.fingerprint);
  put<int64_t>(out, state.position);
  put<uint32_t>(out, static_cast<uint32_t>(state.states.size()));
  for (const SavedTensor &t : state.states) {
    put<uint32_t>(out, static_cast<uint32_t>(t.name.size()));
    out += t.name;
    put<uint32_t>(out, static_cast<uint32_t>(t.shape.size()));
    for (int64_t d : t.shape)
      put<int64_t>(out, d);
    putFloats(out, t.values);
  }
  put<uint64_t>(out, state.logits.size());
  putFloats(out, state.logits);
  put<uint64_t>(out, fnv1a(out.data(), out.size()));

  // Whole or not at all (AtomicFile.h: a temporary beside it, fsync'd and
  // renamed), so a failed save leaves the previous state file.
  std::string why;
  if (!writeFileAtomically(path, out, why))
    return {Code::InvalidArgument, why};
  return Status::ok();
}

uint64_t stateFileBytes(const std::vector<std::pair<std::string, std::vector<int64_t>>> &states,
                        uint64_t logits) {
  // magic, version, reserved, fingerprint, position, count; the logits' count
  // and the checksum.
  uint64_t n = 8 + 4 + 4 + 8 + 8 + 4 + 8 + 8;
  auto add = [&n](uint64_t a, uint64_t b) {
    uint64_t p;
    if (__builtin_mul_overflow(a, b, &p) || __builtin_add_overflow(n, p, &n))
      n = UINT64_MAX;
  };
  for (const auto &[name, shape] : states) {
    add(1, 4 + name.size() + 4);
    add(8, shape.size());
    int64_t numel = checkedNumel(shape);
    add(4, numel < 0 ? UINT64_MAX / 4 : static_cast<uint64_t>(numel));
  }
  add(4, logits);
  return n;
}

Status readStateFile(const std::string &path, SavedState &state, uint64_t maxBytes) {
  return readStateFile(path, state, maxBytes, nullptr);
}

Status readStateFile(const std::string &path, SavedState &state, uint64_t maxBytes,
                     const StateHeaderCheck &check, int idleTimeoutMs) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return {Code::NotFound, path + ": no such state file"};
  if (std::filesystem::is_directory(path, ec))
    return {Code::InvalidFile, path + ": is a directory, not a state file"};
  // O_NONBLOCK: a FIFO without a writer must not hang the open. A regular
  // file reads as usual (the flag cleared); a FIFO or device stays
  // non-blocking and waits at most idleTimeoutMs for each next bytes, so a
  // writer that holds it open and sends nothing does not hang the reader.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return {Code::InvalidFile, path + ": cannot open the state file (" + std::strerror(errno) + ")"};
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat fst {};
  const bool regular = ::fstat(fd, &fst) == 0 && S_ISREG(fst.st_mode);
  if (int flags = ::fcntl(fd, F_GETFL); regular && flags >= 0)
    ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  // Reads up to `want` more bytes into `bytes`; false on a read error
  // (errno ETIMEDOUT: nothing came for idleTimeoutMs).
  std::string bytes;
  auto readUpTo = [&](uint64_t want) {
    char chunk[1 << 16];
    auto idleSince = std::chrono::steady_clock::now();
    while (want > 0) {
      ssize_t got = ::read(fd, chunk, static_cast<size_t>(std::min<uint64_t>(want, sizeof(chunk))));
      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        // A writer holds it open; nothing yet. A read after each short
        // wait sees the writer's close (end of file) as well as its bytes.
        auto idle = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now() - idleSince)
                        .count();
        if (idle >= idleTimeoutMs) {
          errno = ETIMEDOUT;
          return false;
        }
        pollfd p{fd, POLLIN, 0};
        ::poll(&p, 1, static_cast<int>(std::min<int64_t>(100, idleTimeoutMs - idle)));
        continue;
      }
      if (got < 0)
        return false;
      idleSince = std::chrono::steady_clock::now();
      if (got == 0)
        break;
      bytes.append(chunk, static_cast<size_t>(got));
      want -= static_cast<uint64_t>(got);
    }
    return true;
  };
  auto readFailed = [&]() -> Status {
    if (errno == ETIMEDOUT)
      return {Code::InvalidFile, path + ": nothing more came for " +
                                     std::to_string(idleTimeoutMs) + " ms after " + std::to_string(bytes.size()) +
                                     " bytes (not a regular file: its writer holds it open "
                                     "and sends nothing)"};
    return {Code::InvalidFile, path + ": cannot read the state file (" + std::strerror(errno) + ")"};
  };
  // The magic and the version first, then the size against what a state of
  // the reader's model can be, and only then the rest (at most maxBytes + 1
  // bytes): /dev/zero, a FIFO or a huge file is refused without reading it.
  if (!readUpTo(sizeof(kMagic) + 4))
    return readFailed();
  if (bytes.size() < sizeof(kMagic) || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0)
    return {Code::InvalidFile, path + ": not an ssm-opt state file (no SSMSTATE header)"};
  if (bytes.size() == sizeof(kMagic) + 4) {
    uint32_t version;
    std::memcpy(&version, bytes.data() + sizeof(kMagic), 4);
    if (version != kStateFileVersion)
      return {Code::InvalidFile, path + ": state file version " + std::to_string(version) +
                                     "; this runtime reads version " +
                                     std::to_string(kStateFileVersion)};
  }
  // The fingerprint and the position (after the version and a reserved u32).
  if (check) {
    if (!readUpTo(20))
      return readFailed();
    // magic, version (u32), reserved (u32), fingerprint (u64), position (i64).
    if (bytes.size() >= sizeof(kMagic) + 24) {
      uint64_t fingerprint;
      int64_t position;
      std::memcpy(&fingerprint, bytes.data() + sizeof(kMagic) + 8, 8);
      std::memcpy(&position, bytes.data() + sizeof(kMagic) + 16, 8);
      if (Status st = check(fingerprint, position, maxBytes); !st)
        return st;
    }
  }
  const std::string tooLarge = " bytes, more than the " + std::to_string(maxBytes) +
                               " a state file of this model holds (saved from another model, or "
                               "not one state file)";
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > maxBytes)
    return {Code::Mismatch, path + ": is " + std::to_string(st.st_size) + tooLarge};
  if (!readUpTo(maxBytes == UINT64_MAX ? UINT64_MAX : maxBytes + 1 - bytes.size()))
    return readFailed();
  if (bytes.size() > maxBytes) // not a regular file (a device, a FIFO): read only this far
    return {Code::Mismatch, path + ": holds over " + std::to_string(maxBytes) + tooLarge};
  Reader r{bytes.data() + sizeof(kMagic), bytes.data() + bytes.size()};
  uint32_t version = r.get<uint32_t>();
  if (r.ok && version != kStateFileVersion)
    return {Code::InvalidFile, path + ": state file version " + std::to_string(version) +
                                   "; this runtime reads version " +
                                   std::to_string(kStateFileVersion)};
  const Status truncated(Code::InvalidFile, path + ": truncated state file (" +
                                                std::to_string(bytes.size()) + " bytes)");
  r.get<uint32_t>();
  SavedState s;
  s.fingerprint = r.get<uint64_t>();
  s.position = r.get<int64_t>();
  uint32_t count = r.get<uint32_t>();
  for (uint32_t i = 0; i < count && r.ok; ++i) {
    SavedTensor t;
    uint32_t len = r.get<uint32_t>();
    t.name.resize(r.ok && len <= static_cast<uint64_t>(r.end - r.p) ? len : 0);
    if (!r.bytes(t.name.data(), len))
      break;
    uint32_t rank = r.get<uint32_t>();
    for (uint32_t k = 0; k < rank && r.ok && k < 64; ++k)
      t.shape.push_back(r.get<int64_t>());
    int64_t n = checkedNumel(t.shape);
    if (!r.ok || rank > 64 || n < 0 || static_cast<uint64_t>(n) * 4 > static_cast<uint64_t>(r.end - r.p))
      return truncated;
    t.values.resize(static_cast<size_t>(n));
    r.bytes(t.values.data(), static_cast<uint64_t>(n) * 4);
    s.states.push_back(std::move(t));
  }
  uint64_t nLogits = r.get<uint64_t>();
  if (!r.ok || nLogits > static_cast<uint64_t>(r.end - r.p) / 4)
    return truncated;
  s.logits.resize(nLogits);
  r.bytes(s.logits.data(), nLogits * 4);
  size_t body = static_cast<size_t>(r.p - bytes.data());
  uint64_t sum = r.get<uint64_t>();
  if (!r.ok)
    return truncated;
  if (r.p != r.end)
    return {Code::InvalidFile, path + ": " + std::to_string(r.end - r.p) +
                                   " bytes after the end of the state (not one state file)"};
  if (sum != fnv1a(bytes.data(), body))
    return {Code::InvalidFile, path + ": checksum mismatch (the state file is corrupt)"};
  state = std::move(s);
  return Status::ok();
}

} // namespace ssm::rt
