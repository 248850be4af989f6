// A file truncated in place under a mapping: a named error, not a silent SIGBUS.
//
// Mapped weights (WeightLoad::Map, ssm-run --mmap-weights,
// SSM_MODEL_MAP_WEIGHTS) and loaded module libraries (dlopen) are read
// through the page cache of their files. When such a file is truncated or
// rewritten in place while it is mapped, the next read of a page past its new
// end raises SIGBUS, which kills the process with no word of why. Files the
// runtime maps are registered here; a SIGBUS whose address falls in one of
// them writes
//
//   ssm runtime: <file> changed while mapped (truncated or rewritten in place):
//   replace model files by rename, never in place
//
// to stderr and ends the process with exit status 1 (_exit: the process
// cannot go on, its weights or code are gone). A library rewritten in place
// at the same size raises no SIGBUS: its code is other bytes, and runs into
// SIGSEGV or SIGILL; one of those whose instruction (or address) lies in a
// registered library is named the same way when the library's file differs
// (stat: device, inode, size, modification time) from the one loaded. A
// SIGBUS anywhere else, and a SIGSEGV or SIGILL elsewhere or in an unchanged
// library, goes to the handler that was installed before (or the default:
// the signal). (Mapped weights rewritten in place at the same size raise
// nothing: the runtime reads the new numbers.)
//
// The handlers are installed on the first registration (SIGSEGV and SIGILL on
// the first library's) and kept. Registering and
// unregistering are thread-safe; the handler reads the table without locks
// (async-signal-safe: fixed slots, atomics, write(2) and _exit(2)).
#ifndef SSM_RUNTIME_MAPPEDFAULTS_H
#define SSM_RUNTIME_MAPPEDFAULTS_H

#include <cstddef>
#include <string>

namespace ssm::rt {

/// Registers [begin, begin + bytes) as mapped from `file`. Returns false
/// when the table is full (256 mappings; then a fault there is a plain SIGBUS).
bool registerMappedFile(const void *begin, size_t bytes, const std::string &file);
/// Forgets the mapping that starts at `begin` (before it is unmapped).
void unregisterMappedFile(const void *begin);
/// Registers every loaded segment of the shared library that contains the
/// address `inLibrary` (a symbol of a library just dlopen'd), as `file`.
void registerMappedLibrary(const void *inLibrary, const std::string &file);
/// Forgets what registerMappedLibrary registered for that library.
void unregisterMappedLibrary(const void *inLibrary);

} // namespace ssm::rt

#endif
