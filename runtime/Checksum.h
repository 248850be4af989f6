// Checksums of files the runtime loads: XXH3-64 (Debian libxxhash-dev, BSD-2-Clause), to catch a compiled library damaged in place before dlopen maps it.
#ifndef SSM_RUNTIME_CHECKSUM_H
#define SSM_RUNTIME_CHECKSUM_H

#include <string>

namespace ssm::rt {

/// The XXH3-64 hash of the file at `path` as 16 lower-case hex digits
/// (xxhsum -H3's digest). False with `error` naming the file when it cannot
/// be read.
bool fileChecksum(const std::string &path, std::string &hex, std::string &error);

/// True for 16 lower-case hex digits: the form fileChecksum writes.
bool isChecksum(const std::string &text);

} // namespace ssm::rt

#endif // SSM_RUNTIME_CHECKSUM_H
