// Named errors for SIGBUS in files the runtime maps (MappedFaults.h).
#include "runtime/MappedFaults.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <link.h>
#include <mutex>
#include <signal.h>
#include <unistd.h>
#include <vector>

namespace ssm::rt {
namespace {

constexpr size_t kSlots = 256;
constexpr size_t kMessageBytes = 1024;

/// One mapped range. `begin` is published last (release) and cleared first,
/// so the handler sees either nothing or a whole entry.
struct Slot {
  std::atomic<uintptr_t> begin{0}; // 0: free
  std::atomic<uintptr_t> end{0};
  uintptr_t key = 0; // what unregistering names: the mapping's start, or the library's base
  size_t length = 0;
  char message[kMessageBytes];
};

Slot gSlots[kSlots];
std::mutex gMutex; // registration only; the handler takes no lock
struct sigaction gPrevious;
bool gInstalled = false;

void onSigbus(int sig, siginfo_t *info, void *context) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(info ? info->si_addr : nullptr);
  for (Slot &s : gSlots) {
    uintptr_t begin = s.begin.load(std::memory_order_acquire);
    if (begin && address >= begin && address < s.end.load(std::memory_order_relaxed)) {
      ssize_t ignored = ::write(STDERR_FILENO, s.message, s.length);
      (void)ignored;
      ::_exit(1);
    }
  }
  // Not ours: as if this handler were not there.
  if (gPrevious.sa_flags & SA_SIGINFO) {
    if (gPrevious.sa_sigaction) {
      gPrevious.sa_sigaction(sig, info, context);
      return;
    }
  } else if (gPrevious.sa_handler != SIG_DFL && gPrevious.sa_handler != SIG_IGN) {
    gPrevious.sa_handler(sig);
    return;
  }
  // The default action: returning re-runs the faulting access, which now
  // raises the signal with its default disposition (the process dies of it).
  ::signal(SIGBUS, SIG_DFL);
}

void installLocked() {
  if (gInstalled)
    return;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = onSigbus;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  if (::sigaction(SIGBUS, &sa, &gPrevious) == 0)
    gInstalled = true;
}

bool addLocked(uintptr_t begin, uintptr_t end, uintptr_t key, const std::string &file) {
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
    s.end.store(end, std::memory_order_relaxed);
    s.begin.store(begin, std::memory_order_release);
    installLocked();
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
  std::lock_guard<std::mutex> lock(gMutex);
  for (auto [begin, end] : search.segments)
    if (end > begin)
      addLocked(begin, end, search.base, file);
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
