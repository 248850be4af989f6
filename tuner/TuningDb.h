// The tuning database: one SQLite row per measured schedule candidate.
//
// A file written by ssm-tune and read by ssm-compile/ssm-run --tuning-db.
// Rows are keyed by the kernel key (tuner/KernelKey.h), the exact Halide
// target string, the CPU model, the thread count and the versions of ssm-opt
// and Halide; a record is applied only where the target and both versions are
// equal to the reader's (TuningDb::best). The file is in WAL mode and every
// candidate is one committed INSERT, so several ssm-tune processes may share
// it and a process killed mid-run (kill -9) loses at most the row in flight.
// Files of another program, damaged files and newer formats are refused when
// opened, before anything is written.
#ifndef SSM_TUNER_TUNINGDB_H
#define SSM_TUNER_TUNINGDB_H

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace ssm::tune {

/// What a record was measured for; a record is applied only where `target`,
/// `ssmVersion` and `halideVersion` are equal to the reader's.
struct TuningContext {
  std::string target;        // the exact Halide target string ("host" resolved)
  std::string cpuModel;      // /proc/cpuinfo "model name"
  unsigned threads = 0;      // threads the kernels ran with
  std::string ssmVersion;    // "ssm-opt 0.3.0"
  std::string halideVersion; // "14.0.0"
};

/// The CPU model this runs on (/proc/cpuinfo's "model name", else the
/// architecture name).
std::string hostCpuModel();
/// The versions this build records: "ssm-opt <project version>" and Halide's.
std::string ssmVersion();
std::string halideVersion();

/// One measured candidate.
struct Record {
  int64_t id = 0;
  std::string kernelKey, op;
  /// "heuristic" (ssm-assign-schedules), "tuned" (a search candidate), or the
  /// autoscheduler baselines "adams2019", "li2018", "mullapudi2016".
  std::string kind;
  std::string schedule; // the attribute text; empty for the autoschedulers
  /// "ok" (agreed with the reference, timed), "wrong" (disagreed: never
  /// applied), "failed" (did not compile or run), "timeout".
  std::string status;
  double medianMs = 0;
  unsigned repeats = 0;
  std::string message;
  uint64_t seed = 0;
  std::string runId; // one ssm-tune run
  std::string createdAt;
  TuningContext context;
};

class TuningDb {
public:
  enum class Mode { ReadOnly, ReadWrite };
  /// Opens (ReadWrite: creates when absent) the database at `path`. Null
  /// with `error` set when the file cannot be opened or created, is not a
  /// SQLite database, is another program's database, or is damaged.
  /// Processes that create the same new database at once all open it.
  static std::unique_ptr<TuningDb> open(const std::string &path, Mode mode, std::string &error);
  ~TuningDb();

  /// Stores the kernel's IR (its key's text) once.
  bool addKernel(const std::string &key, const std::string &op, const std::string &ir,
                 std::string &error);
  /// Appends one row (one committed transaction).
  bool insert(const Record &r, std::string &error);
  /// The schedule to apply for `key`, from records whose target and versions
  /// equal `ctx`'s (those measured on the same CPU model and thread count win
  /// over others). When a run has final rounds for `key` (kinds
  /// final-heuristic, final-tuned), the latest such run decides: its tuned
  /// schedule when the median of its final-tuned times is no slower than the
  /// median of its final-heuristic times, else the heuristic (medianMs: that
  /// median). Otherwise the fastest "ok" record of kind heuristic or tuned
  /// (one search measurement can be lucky on a busy machine; the final
  /// rounds, taken back to back, are not chosen by their own noise).
  std::optional<Record> best(const std::string &key, const TuningContext &ctx, std::string &error);
  /// Every record for `key` (all keys when empty) matching `ctx`'s target
  /// and versions, oldest first.
  std::vector<Record> records(const std::string &key, const TuningContext &ctx,
                              std::string &error);
  /// How many records of any target or version the file holds for `key`.
  int64_t countAnyContext(const std::string &key, std::string &error);

private:
  /// One attempt of open().
  static std::unique_ptr<TuningDb> openOnce(const std::string &path, Mode mode,
                                            std::string &error);
  explicit TuningDb(sqlite3 *db) : db(db) {}
  sqlite3 *db;
};

} // namespace ssm::tune

#endif
