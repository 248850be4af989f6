// One candidate measured by a child ssm-run (see Measure.h).
#include "tuner/Measure.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <chrono>
#include <cstdio>
#include <optional>

extern char **environ;

namespace ssm::tune {
namespace {

std::string readFile(const std::string &path) {
  auto b = llvm::MemoryBuffer::getFile(path);
  return b ? (*b)->getBuffer().str() : "";
}

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

/// The last `n` non-empty lines of `s`, joined by " | ".
std::string tail(llvm::StringRef s, size_t n) {
  llvm::SmallVector<llvm::StringRef> lines;
  s.split(lines, '\n', -1, false);
  size_t from = lines.size() > n ? lines.size() - n : 0;
  std::string out;
  for (size_t i = from; i < lines.size(); ++i)
    out += (out.empty() ? "" : " | ") + lines[i].trim().str();
  return out;
}

} // namespace

Measurement measure(const MeasureSetup &setup, const std::string &mlirPath, unsigned repeats,
                    const std::string &autoschedule) {
  std::vector<std::string> args = {setup.ssmRun, mlirPath, "--engine", "cpu", "--target",
                                   setup.target, "--threads", std::to_string(setup.threads),
                                   "--repeat", std::to_string(repeats), "--rtol",
                                   number(setup.rtol), "--atol",
                                   number(setup.atol)};
  for (const std::string &i : setup.inputs)
    args.insert(args.end(), {"--input", i});
  for (const std::string &e : setup.expected)
    args.insert(args.end(), {"--expected", e});
  if (!autoschedule.empty())
    args.insert(args.end(), {"--autoschedule", autoschedule});
  if (!setup.flushArgs.empty()) {
    std::string list;
    for (unsigned i : setup.flushArgs)
      list += (list.empty() ? "" : ",") + std::to_string(i);
    args.push_back("--flush-args=" + list);
  }
  std::vector<llvm::StringRef> argRefs(args.begin(), args.end());
  std::vector<std::string> envStrings;
  for (char **e = environ; *e; ++e)
    if (!llvm::StringRef(*e).starts_with("SSM_CACHE_DIR="))
      envStrings.push_back(*e);
  envStrings.push_back("SSM_CACHE_DIR=" + setup.cacheDir);
  std::vector<llvm::StringRef> env(envStrings.begin(), envStrings.end());
  std::string out = mlirPath + ".out", err = mlirPath + ".err";
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(out),
                                                llvm::StringRef(err)};
  std::string execError;
  bool failedToExec = false;
  auto t0 = std::chrono::steady_clock::now();
  int rc = llvm::sys::ExecuteAndWait(setup.ssmRun, argRefs, env, redirects,
                                     setup.timeoutSeconds, 0, &execError, &failedToExec);
  Measurement m;
  m.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string stdoutText = readFile(out), stderrText = readFile(err);
  if (failedToExec) {
    m.status = "cannot-run";
    m.message = "cannot run " + setup.ssmRun + ": " + execError;
    return m;
  }
  if (rc < 0) { // timed out (ExecuteAndWait kills the child) or killed by a signal
    bool timedOut = llvm::StringRef(execError).contains_insensitive("timed out");
    m.status = timedOut ? "timeout" : "failed";
    m.message = timedOut ? "no result within " + std::to_string(setup.timeoutSeconds) + " s"
                         : "ssm-run crashed (" + execError + "): " + tail(stderrText, 2);
    return m;
  }
  if (rc == 1 && llvm::StringRef(stdoutText).contains("FAIL")) {
    m.status = "wrong";
    llvm::SmallVector<llvm::StringRef> lines;
    llvm::StringRef(stdoutText).split(lines, '\n');
    for (llvm::StringRef l : lines)
      if (l.contains("FAIL"))
        m.message += (m.message.empty() ? "" : " | ") + l.trim().str();
    return m;
  }
  if (rc != 0) {
    m.status = "failed";
    m.message = "ssm-run exited " + std::to_string(rc) + ": " + tail(stderrText, 3);
    return m;
  }
  size_t at = stdoutText.find("median_ms=");
  if (at == std::string::npos) {
    m.status = "failed";
    m.message = "ssm-run printed no median_ms";
    return m;
  }
  llvm::StringRef rest = llvm::StringRef(stdoutText).substr(at + 10);
  llvm::StringRef num = rest.take_until([](char c) { return c == ' ' || c == '\n'; });
  if (num.getAsDouble(m.medianMs)) {
    m.status = "failed";
    m.message = "unreadable median_ms '" + num.str() + "'";
    return m;
  }
  size_t th = rest.find("threads=");
  if (th != llvm::StringRef::npos)
    rest.substr(th + 8).take_until([](char c) { return c == '\n'; }).getAsInteger(10, m.threads);
  m.status = "ok";
  return m;
}

} // namespace ssm::tune
