// Named errors for SIGBUS in files the runtime maps (MappedFaults.h).
#include "runtime/MappedFaults.h"

#include <atomic>
#include <climits>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <link.h>
#include <mutex>
#include <signal.h>
#include <sys/stat.h>
#include <ucontext.h>
#include <unistd.h>
#include <vector>

namespace ssm::rt {
namespace {

constexpr size_t kSlots = 256;
constexpr size_t kMessageBytes = 1024;
constexpr size_t kPathBytes = 4096;

/// One mapped range. `begin` is published last (release) and cleared first,
/// so the handler sees either nothing or a whole entry.
struct Slot {
  std::atomic<uintptr_t> begin{0}; // 0: free
  std::atomic<uintptr_t> end{0};
  uintptr_t key = 0; // what unregistering names: the mapping's start, or the library's base
  size_t length = 0;
  char message[kMessageBytes];
  // Libraries only: the file and what stat said of it when it was loaded.
  bool library = false;
  char path[kPathBytes];
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = 0;
  struct timespec mtime = {};
};

Slot gSlots[kSlots];
std::mutex gMutex; // registration only; the handler takes no lock
/// The signals handled: SIGBUS for every mapping; SIGSEGV and SIGILL for
/// code run from a library rewritten in place (same size: no SIGBUS, its
/// code is other bytes), once a library is registered.
constexpr int kSignals[] = {SIGBUS, SIGSEGV, SIGILL};
struct sigaction gPrevious[3];
bool gInstalled[3] = {false, false, false};

int signalIndex(int sig) {
  for (int i = 0; i < 3; ++i)
    if (kSignals[i] == sig)
      return i;
  return 0;
}

/// The faulting instruction's address (0 where not known).
uintptr_t programCounter(void *context) {
  if (!context)
    return 0;
  const ucontext_t *uc = static_cast<const ucontext_t *>(context);
#if defined(__x86_64__)
  return static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return static_cast<uintptr_t>(uc->uc_mcontext.pc);
#else
  (void)uc;
  return 0;
#endif
}

/// The library's file differs from what it was when loaded (stat(2) is
/// async-signal-safe).
bool libraryChanged(const Slot &s) {
  struct stat st;
  if (::stat(s.path, &st) != 0)
    return true;
  return st.st_dev != s.device || st.st_ino != s.inode || st.st_size != s.size ||
         st.st_mtim.tv_sec != s.mtime.tv_sec || st.st_mtim.tv_nsec != s.mtime.tv_nsec;
}

[[noreturn]] void report(const Slot &s) {
  ssize_t ignored = ::write(STDERR_FILENO, s.message, s.length);
  (void)ignored;
  ::_exit(1);
}

void onFault(int sig, siginfo_t *info, void *context) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(info ? info->si_addr : nullptr);
  const uintptr_t pc = sig == SIGBUS ? 0 : programCounter(context);
  for (Slot &s : gSlots) {
    uintptr_t begin = s.begin.load(std::memory_order_acquire);
    if (!begin)
      continue;
    uintptr_t end = s.end.load(std::memory_order_relaxed);
    bool inside = address >= begin && address < end;
    if (sig == SIGBUS && inside)
      report(s);
    // SIGSEGV / SIGILL: only code of a library whose file has changed since
    // it was loaded; a fault of an unchanged library is a fault as before.
    if (sig != SIGBUS && s.library && (inside || (pc >= begin && pc < end)) && libraryChanged(s))
      report(s);
  }
  // Not ours: as if this handler were not there.
  const struct sigaction &previous = gPrevious[signalIndex(sig)];
  if (previous.sa_flags & SA_SIGINFO) {
    if (previous.sa_sigaction) {
      previous.sa_sigaction(sig, info, context);
      return;
    }
  } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(sig);
    return;
  }
  // The default action: returning re-runs the faulting access, which now
  // raises the signal with its default disposition (the process dies of it).
  ::signal(sig, SIG_DFL);
}

void installLocked(bool library) {
  for (int i = 0; i < (library ? 3 : 1); ++i) {
    if (gInstalled[i])
      continue;
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = onFault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    if (::sigaction(kSignals[i], &sa, &gPrevious[i]) == 0)
      gInstalled[i] = true;
  }
}

bool addLocked(uintptr_t begin, uintptr_t end, uintptr_t key, const std::string &file,
               const struct stat *library = nullptr, const std::string &absolute = "") {
  for (Slot &s : gSlots) {
    if (s.begin.load(std::memory_order_relaxed))
      continue;
    std::string text = "ssm runtime: " + file +
                       " changed while mapped (truncated or rewritten in place): replace model "
                       "files by rename, never in place\n";
    if (text.size() > kMessageBytes)
      text = text.substr(0, kMessageBytes - 1) + "\n";
    std::memcpy(s.message, text.data(), text.size());
    s.length = text.size();
    s.key = key;
    s.library = library && !absolute.empty() && absolute.size() < kPathBytes;
    if (s.library) {
      std::memcpy(s.path, absolute.c_str(), absolute.size() + 1);
      s.device = library->st_dev;
      s.inode = library->st_ino;
      s.size = library->st_size;
      s.mtime = library->st_mtim;
    }
    s.end.store(end, std::memory_order_relaxed);
    s.begin.store(begin, std::memory_order_release);
    installLocked(s.library);
    return true;
  }
  return false;
}

void removeLocked(uintptr_t key) {
  for (Slot &s : gSlots)
    if (s.begin.load(std::memory_order_relaxed) && s.key == key)
      s.begin.store(0, std::memory_order_release);
}

} // namespace

bool registerMappedFile(const void *begin, size_t bytes, const std::string &file) {
  if (!begin || !bytes)
    return true;
  std::lock_guard<std::mutex> lock(gMutex);
  uintptr_t b = reinterpret_cast<uintptr_t>(begin);
  return addLocked(b, b + bytes, b, file);
}

void unregisterMappedFile(const void *begin) {
  std::lock_guard<std::mutex> lock(gMutex);
  removeLocked(reinterpret_cast<uintptr_t>(begin));
}

namespace {
struct LibrarySearch {
  uintptr_t address = 0;
  uintptr_t base = 0;
  std::vector<std::pair<uintptr_t, uintptr_t>> segments;
};

int findLibrary(struct dl_phdr_info *info, size_t, void *data) {
  auto *search = static_cast<LibrarySearch *>(data);
  std::vector<std::pair<uintptr_t, uintptr_t>> segments;
  bool contains = false;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD)
      continue;
    // Only the file-backed part of the segment can fault when the file shrinks.
    uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    uintptr_t end = begin + ph.p_filesz;
    segments.push_back({begin, end});
    contains |= search->address >= begin && search->address < info->dlpi_addr + ph.p_vaddr + ph.p_memsz;
  }
  if (!contains)
    return 0;
  search->base = info->dlpi_addr;
  search->segments = std::move(segments);
  return 1;
}
} // namespace

void registerMappedLibrary(const void *inLibrary, const std::string &file) {
  LibrarySearch search;
  search.address = reinterpret_cast<uintptr_t>(inLibrary);
  dl_iterate_phdr(findLibrary, &search);
  // The file as loaded: a fault in its code once the file has changed is
  // named (SIGSEGV / SIGILL).
  // (Its absolute path: the process may change folders.)
  struct stat st;
  char absolute[PATH_MAX];
  bool known = ::realpath(file.c_str(), absolute) && ::stat(absolute, &st) == 0;
  std::lock_guard<std::mutex> lock(gMutex);
  for (auto [begin, end] : search.segments)
    if (end > begin)
      addLocked(begin, end, search.base, file, known ? &st : nullptr, known ? absolute : "");
}

void unregisterMappedLibrary(const void *inLibrary) {
  LibrarySearch search;
  search.address = reinterpret_cast<uintptr_t>(inLibrary);
  dl_iterate_phdr(findLibrary, &search);
  if (search.segments.empty())
    return;
  std::lock_guard<std::mutex> lock(gMutex);
  removeLocked(search.base);
}

} // namespace ssm::rt
