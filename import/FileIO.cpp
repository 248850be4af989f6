// File helpers shared by the importers and ssm-import (FileIO.h).
#include "import/FileIO.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

namespace ssm::importer {

namespace fs = std::filesystem;

bool readWholeFile(const std::string &path, const char *what, std::vector<char> &bytes,
                   std::string &error) {
  // A directory opens as a stream on Linux, and reading it throws.
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    error = path + ": is a directory, not " + what;
    return false;
  }
  errno = 0;
  std::ifstream is(path, std::ios::binary);
  if (!is) {
    error = path + ": cannot open the file: " + (errno ? std::strerror(errno) : "unknown error");
    return false;
  }
  bytes.assign(std::istreambuf_iterator<char>(is), std::istreambuf_iterator<char>());
  if (is.bad()) {
    error = path + ": read failed";
    return false;
  }
  return true;
}

bool writeTextFile(const fs::path &path, const std::string &text, std::string &error) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    error = path.string() + ": cannot write the file";
    return false;
  }
  return true;
}

bool prepareOutputDir(const std::string &dir, bool force, std::string &error) {
  std::error_code ec;
  fs::path p(dir);
  if (fs::exists(p, ec)) {
    if (!fs::is_directory(p, ec)) {
      error = dir + ": exists and is not a directory";
      return false;
    }
    if (!force && !fs::is_empty(p, ec)) {
      error = dir + ": exists and is not empty; pass --force to write into it";
      return false;
    }
    return true;
  }
  fs::create_directories(p, ec);
  if (ec) {
    error = dir + ": cannot create the directory: " + ec.message();
    return false;
  }
  return true;
}

} // namespace ssm::importer
