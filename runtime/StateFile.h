// Saved stream state: a versioned, checksummed file of named f32 tensors, the position and the last logits.
//
// Layout (little endian), version 1:
//   char[8]  magic "SSMSTATE"
//   u32      version (1)
//   u32      reserved (0)
//   u64      model fingerprint (ModelSpec::fingerprint: architecture, config,
//            state names and shapes)
//   i64      position (tokens processed)
//   u32      number of states S
//   S times: u32 name length, name bytes, u32 rank, i64 dims[rank], f32 values
//   u64      number of logits V, f32 logits[V]
//   u64      FNV-1a 64 of every byte before it
// Reading checks the magic (foreign file), the version, every length against
// the bytes left (truncated file), the checksum (corrupt file) and nothing
// after it; the caller checks the fingerprint and the states against its model.
#ifndef SSM_RUNTIME_STATEFILE_H
#define SSM_RUNTIME_STATEFILE_H

#include "runtime/FormatVersions.h"
#include "runtime/Status.h"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ssm::rt {

constexpr uint32_t kStateFileVersion = kStateFileFormatVersion;

struct SavedTensor {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<float> values;
};

struct SavedState {
  uint64_t fingerprint = 0;
  int64_t position = 0;
  std::vector<SavedTensor> states;
  std::vector<float> logits;
};

/// Writes `path` through a temporary file renamed over it, so a failed
/// write leaves what was there. Errors: InvalidArgument (cannot write).
Status writeStateFile(const std::string &path, const SavedState &state);
/// The size of a state file holding `states` (name, shape) and `logits`
/// logits (UINT64_MAX when it overflows).
uint64_t stateFileBytes(const std::vector<std::pair<std::string, std::vector<int64_t>>> &states,
                        uint64_t logits);
/// Reads the magic and the version first, then refuses a file of more than
/// `maxBytes` (Stream::load passes stateFileBytes of its model: a state file
/// it can take is never larger) before reading the rest, so /dev/zero, a FIFO
/// or a huge file fails at once. Errors: NotFound, InvalidFile (not a state
/// file, another version, truncated, corrupt, or not a regular file whose
/// writer sent nothing for `idleTimeoutMs`: a FIFO held open), Mismatch
/// (larger than `maxBytes`), each naming the file.
Status readStateFile(const std::string &path, SavedState &state,
                     uint64_t maxBytes = UINT64_MAX);
/// How long a read of a FIFO or device waits for more bytes (milliseconds).
constexpr int kStateFileIdleTimeoutMs = 20000;
/// Called with the header's fingerprint and position (checksum not yet
/// verified) before the file's size is checked and the rest read: it may
/// change `maxBytes` or refuse the file (a non-ok status is returned).
/// Stream::load only notes them, to name a file saved at a larger capacity.
using StateHeaderCheck =
    std::function<Status(uint64_t fingerprint, int64_t position, uint64_t &maxBytes)>;
Status readStateFile(const std::string &path, SavedState &state, uint64_t maxBytes,
                     const StateHeaderCheck &check,
                     int idleTimeoutMs = kStateFileIdleTimeoutMs);

} // namespace ssm::rt

#endif
