// The versions of the file formats ssm-opt writes and reads. A reader refuses
// a file of another version, naming both (the file's and the one it reads);
// `<tool> --version` lists them (tools/Version.h).
#ifndef SSM_RUNTIME_FORMATVERSIONS_H
#define SSM_RUNTIME_FORMATVERSIONS_H

#include <cstdint>

namespace ssm {

/// model.json's "version" (ssm-import writes it; ModelSpec reads it).
constexpr int64_t kModelJsonVersion = 1;
/// A compiled module's manifest.json "version" (ssm-compile; runtime/Manifest.cpp).
constexpr int64_t kManifestVersion = 1;
/// A saved stream state's header version (runtime/StateFile.h).
constexpr uint32_t kStateFileFormatVersion = 1;
/// An ssm-tune database's SQLite user_version (tuner/TuningDb.cpp).
constexpr int kTuningDbVersion = 1;

} // namespace ssm

#endif
