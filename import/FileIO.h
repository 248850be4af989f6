// File helpers shared by the importers and ssm-import: whole-file reads with
// messages that name the path, and the output directory they write into.
#ifndef SSM_IMPORT_FILEIO_H
#define SSM_IMPORT_FILEIO_H

#include <filesystem>
#include <string>
#include <vector>

namespace ssm::importer {

/// Reads all of `path` into `bytes`. `what` names the expected content in
/// messages ("a safetensors file"). Errors: "<path>: cannot open the file:
/// <reason>", "<path>: is a directory, not <what>", "<path>: read failed".
bool readWholeFile(const std::string &path, const char *what, std::vector<char> &bytes,
                   std::string &error);

/// Writes `text` to `path`, replacing it (the caller decides whether that
/// is allowed). Error: "<path>: cannot write the file".
bool writeTextFile(const std::filesystem::path &path, const std::string &text,
                   std::string &error);

/// Creates `dir`, or accepts it when empty (or, with `force`, whatever it
/// holds). Errors name the directory: it is a file, it is not empty
/// without --force, it cannot be created.
bool prepareOutputDir(const std::string &dir, bool force, std::string &error);

/// Checks, without creating anything, that `dir` may be written: absent,
/// an empty directory, or (with `force`) any directory. Errors as
/// prepareOutputDir's.
bool checkOutputDir(const std::string &dir, bool force, std::string &error);

/// "<dir>.tmp-<pid>": where an importer writes before publishOutputDir.
std::string stagingDir(const std::string &dir);

/// Moves the finished folder `staged` to `dir`: one rename when `dir` is
/// absent or empty, else (--force) all or nothing: files in `dir` the import
/// did not write are carried over (hard links), its compiled/ is not (the
/// modules belong to the old model.mlir), and the two folders swap in one
/// rename (renameat2 RENAME_EXCHANGE; elsewhere the old one aside, then back
/// on failure), the old one removed after. On failure `dir` is as it was.
/// `staged` is removed either way. Error: "<dir>: cannot ...".
bool publishOutputDir(const std::string &staged, const std::string &dir, std::string &error);

} // namespace ssm::importer

#endif
