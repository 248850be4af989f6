// Writing a file whole or not at all: every file a tool or the runtime writes
// (.npy outputs, state files, ssm-opt -o, tuning reports) goes through here.
//
// The bytes go to a temporary in the destination's own folder (so the rename
// stays on one file system), created exclusively and named
// <path>.tmp-<pid>-<n>; it is fsync'd, renamed over `path`, and the folder is
// fsync'd so the rename itself survives a crash. On any failure (a full disk,
// a file size limit, a read-only folder) the temporary is removed and `path`
// keeps what it held: an old output is never lost to a failed new one.
//
// What `path` names decides where the bytes go:
// * a symbolic link to a file: that file is replaced as above, beside it (the
//   link stays a link);
// * an existing regular file: replaced, keeping its permission bits;
// * a device, FIFO or socket (/dev/null, a pipe), or a descriptor's name
//   (/dev/stdout, /dev/fd/3, /proc/self/fd/1, whatever it leads to; a
//   regular file behind it is appended to): written in place, as a shell
//   redirection would (it has no old content to keep, and a rename would put
//   a regular file where the device was: as root, ssm-run --logits-out
//   /dev/null replaced /dev/null); a write error (/dev/full) is reported;
// * a directory: refused.
// Header-only, POSIX.
#ifndef SSM_RUNTIME_ATOMICFILE_H
#define SSM_RUNTIME_ATOMICFILE_H

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <string>
#include <utility>

namespace ssm {

/// One piece of the file's contents.
struct FileChunk {
  const void *data;
  size_t size;
};

namespace atomic_file_detail {
inline bool writeAll(int fd, const void *data, size_t size) {
  const char *p = static_cast<const char *>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = EIO;
      return false;
    }
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

inline std::string folderOf(const std::string &path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}
/// A name for one of the process's descriptors (/dev/stdout, /dev/stderr,
/// /dev/fd/N, /proc/<pid>/fd/N): written where that descriptor points, even
/// when that is a regular file (a shell's `> file`).
inline bool namesADescriptor(const std::string &path) {
  return path == "/dev/stdout" || path == "/dev/stderr" || path.rfind("/dev/fd/", 0) == 0 ||
         (path.rfind("/proc/", 0) == 0 && path.find("/fd/") != std::string::npos);
}

/// A path written in place: an existing device, FIFO or socket, or a
/// descriptor's name.
inline bool writtenInPlace(const std::string &path, bool exists, const struct stat &st) {
  if (!exists)
    return false;
  return namesADescriptor(path) || (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode));
}
} // namespace atomic_file_detail

/// Writes the chunks, in order, as the whole new content of `path` (see the
/// file comment). False with `error` naming `path` and the reason; `path` is
/// then as it was.
inline bool writeFileAtomically(const std::string &named, std::initializer_list<FileChunk> chunks,
                                std::string &error) {
  using namespace atomic_file_detail;
  static std::atomic<unsigned> counter{0};
  std::string path = named;
  struct stat st;
  const bool exists = ::stat(named.c_str(), &st) == 0; // follows links
  if (exists && S_ISDIR(st.st_mode)) {
    error = named + ": is a directory, not a file";
    return false;
  }
  if (writtenInPlace(named, exists, st)) {
    // A device, FIFO or socket: written in place (see the file comment); a
    // regular file behind a descriptor's name (stdout redirected to a file)
    // gets the bytes after what the descriptor wrote before.
    int fd = ::open(named.c_str(), O_WRONLY | O_CLOEXEC | (S_ISREG(st.st_mode) ? O_APPEND : 0));
    bool ok = fd >= 0;
    for (const FileChunk &c : chunks)
      if (ok && c.size > 0 && !writeAll(fd, c.data, c.size))
        ok = false;
    int saved = errno;
    if (fd >= 0 && ::close(fd) != 0 && ok) {
      ok = false;
      saved = errno;
    }
    if (!ok)
      error = named + ": cannot write (" + std::strerror(saved) + ")";
    return ok;
  }
  struct stat link;
  if (exists && ::lstat(named.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    // The file the link names is replaced, beside itself; the link stays.
    char resolved[PATH_MAX];
    if (::realpath(named.c_str(), resolved))
      path = resolved;
  }
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST)
      break;
  }
  if (fd < 0) {
    error = named + ": cannot open for writing (a temporary file beside it: " +
            std::strerror(errno) + ")";
    return false;
  }
  bool ok = true;
  // A file replaced keeps its permission bits (the temporary has 0666 under
  // the umask).
  if (exists && ::fchmod(fd, st.st_mode & 07777) != 0)
    ok = false;
  for (const FileChunk &c : chunks)
    if (ok && c.size > 0 && !writeAll(fd, c.data, c.size))
      ok = false;
  if (ok && ::fsync(fd) != 0)
    ok = false;
  int saved = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  if (ok && ::rename(tmp.c_str(), path.c_str()) != 0) {
    ok = false;
    saved = errno;
  }
  if (!ok) {
    ::unlink(tmp.c_str());
    error = named + ": cannot write (" + std::strerror(saved) + "); the file was left as it was";
    return false;
  }
  // The rename is durable once the folder is: best effort (some file
  // systems refuse fsync on a folder).
  int dir = ::open(folderOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return true;
}

/// True when writing `path` would replace an existing file (a regular file or
/// a folder, through links): what tools ask --force for. A device, FIFO or
/// socket (/dev/stdout, /dev/null, a pipe) is written in place, not replaced.
inline bool wouldReplaceFile(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return ::lstat(path.c_str(), &st) == 0; // a dangling link is replaced
  return !atomic_file_detail::writtenInPlace(path, true, st);
}

inline bool writeFileAtomically(const std::string &path, const std::string &bytes,
                                std::string &error) {
  return writeFileAtomically(path, {FileChunk{bytes.data(), bytes.size()}}, error);
}

} // namespace ssm

#endif
