// File helpers shared by the importers and ssm-import (FileIO.h).
#include "import/FileIO.h"

#include <unistd.h>

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

bool checkOutputDir(const std::string &dir, bool force, std::string &error) {
  std::error_code ec;
  fs::path p(dir);
  if (!fs::exists(p, ec))
    return true;
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

std::string stagingDir(const std::string &dir) {
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/')
    d.pop_back();
  return d + ".tmp-" + std::to_string(::getpid());
}

bool publishOutputDir(const std::string &staged, const std::string &dir, std::string &error) {
  std::error_code ec;
  fs::path to(dir);
  bool ok = true;
  if (!fs::exists(to, ec) || (fs::is_directory(to, ec) && fs::is_empty(to, ec))) {
    fs::remove(to, ec); // an empty directory: replaced by the rename
    fs::rename(staged, to, ec);
    if (ec) {
      error = dir + ": cannot move the imported model into place: " + ec.message();
      ok = false;
    }
  } else {
    for (const fs::directory_entry &e : fs::directory_iterator(staged, ec)) {
      std::error_code rc;
      fs::rename(e.path(), to / e.path().filename(), rc);
      if (rc) {
        error = dir + ": cannot write " + e.path().filename().string() + ": " + rc.message();
        ok = false;
        break;
      }
    }
  }
  fs::remove_all(staged, ec);
  return ok;
}

} // namespace ssm::importer
