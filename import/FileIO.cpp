// File helpers shared by the importers and ssm-import (FileIO.h).
#include "import/FileIO.h"

#include <fcntl.h>
#include <stdio.h>
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

namespace {
/// Swaps `a` and `b` (two folders) in one step: renameat2(RENAME_EXCHANGE).
/// False (errno set) where the file system does not support it.
bool exchangePaths(const fs::path &a, const fs::path &b) {
#ifdef RENAME_EXCHANGE
  return ::renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE) == 0;
#else
  errno = EINVAL;
  return false;
#endif
}
} // namespace

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
    fs::remove_all(staged, ec);
    return ok;
  }
  // --force over a model folder: all or nothing. Entries the import did not
  // write (files a user added) are carried into the staged folder, hard
  // linked (copied where linking fails), except compiled/: modules compiled
  // from the old model.mlir no longer match the new one. Then the staged
  // folder and the old one swap in one rename, and the old one is removed.
  // Until the swap nothing in `dir` has changed; a failure leaves it working.
  for (const fs::directory_entry &e : fs::directory_iterator(to, ec)) {
    const fs::path name = e.path().filename();
    std::error_code rc;
    if (name == "compiled" || fs::exists(fs::path(staged) / name, rc))
      continue;
    const fs::path target = fs::path(staged) / name;
    if (e.is_regular_file(rc) && !e.is_symlink(rc)) {
      fs::create_hard_link(e.path(), target, rc);
      if (rc) {
        rc.clear();
        fs::copy_file(e.path(), target, rc);
      }
    } else {
      fs::copy(e.path(), target, fs::copy_options::recursive | fs::copy_options::copy_symlinks, rc);
    }
    if (rc) {
      error = dir + ": cannot carry " + name.string() + " into the new folder: " + rc.message() +
              " (nothing was changed)";
      fs::remove_all(staged, ec);
      return false;
    }
  }
  if (ec) {
    error = dir + ": cannot read the folder: " + ec.message() + " (nothing was changed)";
    fs::remove_all(staged, ec);
    return false;
  }
  if (exchangePaths(staged, to)) {
    fs::remove_all(staged, ec); // now the old folder
    return true;
  }
  // No RENAME_EXCHANGE here: the old folder aside, the new one in, the old
  // one back if that fails.
  std::string aside = stagingDir(dir) + "-old";
  fs::remove_all(aside, ec);
  fs::rename(to, aside, ec);
  if (ec) {
    error = dir + ": cannot move the old folder aside: " + ec.message() + " (nothing was changed)";
    fs::remove_all(staged, ec);
    return false;
  }
  fs::rename(staged, to, ec);
  if (ec) {
    std::error_code back;
    fs::rename(aside, to, back);
    error = dir + ": cannot move the imported model into place: " + ec.message() +
            (back ? "; the old folder is at " + aside : " (the old folder was put back)");
    fs::remove_all(staged, ec);
    return false;
  }
  fs::remove_all(aside, ec);
  return true;
}

} // namespace ssm::importer
