// The tuning database on SQLite (see TuningDb.h).
#include "tuner/TuningDb.h"
#include "runtime/FormatVersions.h"

#include <algorithm>

#include <sqlite3.h>

#include <fstream>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/utsname.h>

namespace ssm::tune {
namespace {

// "SSMT" in the SQLite header's application_id, and the schema version.
constexpr int kApplicationId = 0x53534d54;
constexpr int kFormat = ssm::kTuningDbVersion;

const char *kSchema = R"sql(
CREATE TABLE IF NOT EXISTS kernels(
  key TEXT PRIMARY KEY,
  op TEXT NOT NULL,
  ir TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS candidates(
  id INTEGER PRIMARY KEY,
  kernel_key TEXT NOT NULL,
  op TEXT NOT NULL,
  target TEXT NOT NULL,
  cpu_model TEXT NOT NULL,
  threads INTEGER NOT NULL,
  ssm_version TEXT NOT NULL,
  halide_version TEXT NOT NULL,
  kind TEXT NOT NULL,
  schedule TEXT NOT NULL,
  status TEXT NOT NULL,
  median_ms REAL,
  repeats INTEGER NOT NULL,
  message TEXT NOT NULL,
  seed INTEGER NOT NULL,
  run_id TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')));
CREATE INDEX IF NOT EXISTS candidates_by_kernel
  ON candidates(kernel_key, target, ssm_version, halide_version);
)sql";

struct Stmt {
  sqlite3_stmt *s = nullptr;
  ~Stmt() { sqlite3_finalize(s); }
};

std::string lastError(sqlite3 *db) { return db ? sqlite3_errmsg(db) : "out of memory"; }

bool exec(sqlite3 *db, const char *sql, std::string &error) {
  char *msg = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &msg) != SQLITE_OK) {
    error = msg ? msg : lastError(db);
    sqlite3_free(msg);
    return false;
  }
  return true;
}

/// The single integer a query returns; nullopt with `error` on failure.
std::optional<int64_t> queryInt(sqlite3 *db, const char *sql, std::string &error) {
  Stmt st;
  if (sqlite3_prepare_v2(db, sql, -1, &st.s, nullptr) != SQLITE_OK) {
    error = lastError(db);
    return std::nullopt;
  }
  int rc = sqlite3_step(st.s);
  if (rc != SQLITE_ROW) {
    error = lastError(db);
    return std::nullopt;
  }
  return sqlite3_column_int64(st.s, 0);
}

std::string text(sqlite3_stmt *s, int col) {
  const unsigned char *t = sqlite3_column_text(s, col);
  return t ? reinterpret_cast<const char *>(t) : "";
}

const char *kColumns = "id, kernel_key, op, target, cpu_model, threads, ssm_version, "
                       "halide_version, kind, schedule, status, median_ms, repeats, message, "
                       "seed, run_id, created_at";

Record readRow(sqlite3_stmt *s) {
  Record r;
  r.id = sqlite3_column_int64(s, 0);
  r.kernelKey = text(s, 1);
  r.op = text(s, 2);
  r.context.target = text(s, 3);
  r.context.cpuModel = text(s, 4);
  r.context.threads = static_cast<unsigned>(sqlite3_column_int64(s, 5));
  r.context.ssmVersion = text(s, 6);
  r.context.halideVersion = text(s, 7);
  r.kind = text(s, 8);
  r.schedule = text(s, 9);
  r.status = text(s, 10);
  r.medianMs = sqlite3_column_double(s, 11);
  r.repeats = static_cast<unsigned>(sqlite3_column_int64(s, 12));
  r.message = text(s, 13);
  r.seed = static_cast<uint64_t>(sqlite3_column_int64(s, 14));
  r.runId = text(s, 15);
  r.createdAt = text(s, 16);
  return r;
}

void bind(sqlite3_stmt *s, int i, const std::string &v) {
  sqlite3_bind_text(s, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}

} // namespace

std::string hostCpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        size_t b = line.find_first_not_of(" \t", colon + 1);
        return b == std::string::npos ? "" : line.substr(b);
      }
    }
  struct utsname u;
  return uname(&u) == 0 ? u.machine : "unknown";
}

std::string ssmVersion() { return std::string("ssm-opt ") + SSM_PROJECT_VERSION; }
std::string halideVersion() { return SSM_HALIDE_VERSION; }

namespace {
/// Set by openOnce when it failed while making a new database: another
/// process may be making the same one (SQLite answers one of two writers
/// "database is locked" at once, without waiting, where waiting could
/// deadlock), so open() tries again and then finds that process's schema.
thread_local bool initRace = false;
} // namespace

std::unique_ptr<TuningDb> TuningDb::open(const std::string &path, Mode mode, std::string &error) {
  for (int attempt = 0;; ++attempt) {
    initRace = false;
    std::unique_ptr<TuningDb> db = openOnce(path, mode, error);
    if (db || !initRace || attempt == 50)
      return db;
    ::usleep(100 * 1000);
  }
}

std::unique_ptr<TuningDb> TuningDb::openOnce(const std::string &path, Mode mode,
                                             std::string &error) {
  struct stat st;
  bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) {
    error = "'" + path + "' is not a regular file";
    return nullptr;
  }
  if (!exists && mode == Mode::ReadOnly) {
    error = "no tuning database '" + path + "' (ssm-tune --db writes one)";
    return nullptr;
  }
  bool fresh = !exists || st.st_size == 0;
  int flags = mode == Mode::ReadOnly ? SQLITE_OPEN_READONLY
                                     : SQLITE_OPEN_READWRITE | (exists ? 0 : SQLITE_OPEN_CREATE);
  sqlite3 *raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  std::unique_ptr<TuningDb> db(new TuningDb(raw));
  if (rc != SQLITE_OK) {
    error = "cannot open the tuning database '" + path + "': " + lastError(raw);
    return nullptr;
  }
  sqlite3_busy_timeout(raw, 10000);
  sqlite3_extended_result_codes(raw, 1);
  auto refuse = [&](const std::string &why) {
    error = "'" + path + "' " + why;
    return nullptr;
  };
  // A first read that fails for want of space or permission (a full disk:
  // the WAL's -shm and -wal files cannot be made) says so, not that the file
  // is damaged (it was not changed).
  auto unreadable = [&](const std::string &e) {
    int primary = sqlite3_errcode(raw) & 0xff;
    if (primary == SQLITE_IOERR || primary == SQLITE_FULL || primary == SQLITE_CANTOPEN ||
        primary == SQLITE_READONLY || primary == SQLITE_PERM)
      return refuse("cannot be used here (" + e +
                    "): is its disk full, or its folder not writable? The file was not changed");
    return refuse("is not a SQLite database or is damaged (" + e + ")");
  };
  std::string e;
  // The header's application id and the schema's size from one snapshot
  // (one read transaction): read apart, another process making this
  // database could commit between the two reads, and its new schema beside
  // the old id 0 looked like another program's file (e2e.tune-db's two
  // processes sharing one database, once in CI).
  if (!exec(raw, "BEGIN", e))
    return unreadable(e);
  std::optional<int64_t> appId = queryInt(raw, "PRAGMA application_id", e);
  if (!appId)
    return unreadable(e); // (closing the connection ends the transaction)
  std::optional<int64_t> objects = queryInt(raw, "SELECT count(*) FROM sqlite_master", e);
  if (!objects)
    return unreadable(e);
  if (!exec(raw, "COMMIT", e))
    return unreadable(e);
  if (*appId != kApplicationId && !(fresh || (*appId == 0 && *objects == 0)))
    return refuse("is not an ssm-tune database (another program's SQLite file); nothing was "
                  "changed");
  if (*appId == kApplicationId) {
    std::optional<int64_t> format = queryInt(raw, "PRAGMA user_version", e);
    if (!format)
      return refuse("is damaged (" + e + ")");
    if (*format > kFormat)
      return refuse("was written by a newer ssm-tune (format " + std::to_string(*format) +
                    ", this one reads " + std::to_string(kFormat) + ")");
    Stmt check;
    if (sqlite3_prepare_v2(raw, "PRAGMA quick_check(1)", -1, &check.s, nullptr) != SQLITE_OK ||
        sqlite3_step(check.s) != SQLITE_ROW || text(check.s, 0) != "ok")
      return refuse("is damaged (SQLite's quick_check: " +
                    (check.s ? text(check.s, 0) : lastError(raw)) + ")");
    return db;
  }
  if (mode == Mode::ReadOnly)
    return refuse("is an empty database, not an ssm-tune one");
  // A new (or empty) file: WAL, then the header and the schema in one
  // transaction, so a killed process leaves either no schema or all of it.
  if (!exec(raw, "PRAGMA journal_mode=WAL", e)) {
    initRace = true;
    return refuse("cannot be used (" + e + ")");
  }
  std::string create = "BEGIN IMMEDIATE; PRAGMA application_id=" +
                       std::to_string(kApplicationId) + "; PRAGMA user_version=" +
                       std::to_string(kFormat) + ";" + kSchema + "COMMIT;";
  if (!exec(raw, create.c_str(), e)) {
    std::string ignored;
    exec(raw, "ROLLBACK", ignored);
    initRace = true;
    return refuse("cannot be written (" + e + ")");
  }
  return db;
}

TuningDb::~TuningDb() { sqlite3_close_v2(db); }

bool TuningDb::addKernel(const std::string &key, const std::string &op, const std::string &ir,
                         std::string &error) {
  Stmt st;
  if (sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO kernels(key, op, ir) VALUES (?, ?, ?)", -1,
                         &st.s, nullptr) != SQLITE_OK) {
    error = lastError(db);
    return false;
  }
  bind(st.s, 1, key);
  bind(st.s, 2, op);
  bind(st.s, 3, ir);
  if (sqlite3_step(st.s) != SQLITE_DONE) {
    error = lastError(db);
    return false;
  }
  return true;
}

bool TuningDb::insert(const Record &r, std::string &error) {
  Stmt st;
  if (sqlite3_prepare_v2(db,
                         "INSERT INTO candidates(kernel_key, op, target, cpu_model, threads, "
                         "ssm_version, halide_version, kind, schedule, status, median_ms, "
                         "repeats, message, seed, run_id) VALUES "
                         "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         -1, &st.s, nullptr) != SQLITE_OK) {
    error = lastError(db);
    return false;
  }
  bind(st.s, 1, r.kernelKey);
  bind(st.s, 2, r.op);
  bind(st.s, 3, r.context.target);
  bind(st.s, 4, r.context.cpuModel);
  sqlite3_bind_int64(st.s, 5, r.context.threads);
  bind(st.s, 6, r.context.ssmVersion);
  bind(st.s, 7, r.context.halideVersion);
  bind(st.s, 8, r.kind);
  bind(st.s, 9, r.schedule);
  bind(st.s, 10, r.status);
  if (r.status == "ok")
    sqlite3_bind_double(st.s, 11, r.medianMs);
  else
    sqlite3_bind_null(st.s, 11);
  sqlite3_bind_int64(st.s, 12, r.repeats);
  bind(st.s, 13, r.message);
  sqlite3_bind_int64(st.s, 14, static_cast<int64_t>(r.seed));
  bind(st.s, 15, r.runId);
  if (sqlite3_step(st.s) != SQLITE_DONE) {
    error = lastError(db);
    return false;
  }
  return true;
}

std::optional<Record> TuningDb::best(const std::string &key, const TuningContext &ctx,
                                     std::string &error) {
  // The latest run with final rounds for this kernel decides.
  {
    std::vector<Record> recs = records(key, ctx, error);
    if (!error.empty())
      return std::nullopt;
    auto preferred = [&](const Record &r) {
      return r.context.cpuModel == ctx.cpuModel && r.context.threads == ctx.threads;
    };
    const Record *last = nullptr; // the latest final-heuristic, preferred context first
    for (const Record &r : recs)
      if (r.kind == "final-heuristic" && r.status == "ok" && !r.schedule.empty() &&
          (!last || preferred(r) || !preferred(*last)))
        last = &r;
    if (last) {
      std::vector<const Record *> heur, tuned;
      for (const Record &r : recs)
        if (r.runId == last->runId && r.status == "ok" && !r.schedule.empty() &&
            r.context.cpuModel == last->context.cpuModel &&
            r.context.threads == last->context.threads) {
          if (r.kind == "final-heuristic")
            heur.push_back(&r);
          else if (r.kind == "final-tuned")
            tuned.push_back(&r);
        }
      auto median = [](std::vector<const Record *> v) {
        std::sort(v.begin(), v.end(),
                  [](const Record *a, const Record *b) { return a->medianMs < b->medianMs; });
        size_t n = v.size();
        return n % 2 ? v[n / 2]->medianMs : 0.5 * (v[n / 2 - 1]->medianMs + v[n / 2]->medianMs);
      };
      double h = median(heur);
      Record out = *heur.front();
      out.medianMs = h;
      if (!tuned.empty() && median(tuned) <= h) {
        out = *tuned.front();
        out.medianMs = median(tuned);
      }
      return out;
    }
  }
  std::string sql = std::string("SELECT ") + kColumns +
                    " FROM candidates WHERE kernel_key = ? AND target = ? AND ssm_version = ? "
                    "AND halide_version = ? AND status = 'ok' AND kind IN ('heuristic', 'tuned') "
                    "AND schedule != '' ORDER BY (cpu_model = ? AND threads = ?) DESC, "
                    "median_ms ASC, id ASC LIMIT 1";
  Stmt st;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st.s, nullptr) != SQLITE_OK) {
    error = lastError(db);
    return std::nullopt;
  }
  bind(st.s, 1, key);
  bind(st.s, 2, ctx.target);
  bind(st.s, 3, ctx.ssmVersion);
  bind(st.s, 4, ctx.halideVersion);
  bind(st.s, 5, ctx.cpuModel);
  sqlite3_bind_int64(st.s, 6, ctx.threads);
  int rc = sqlite3_step(st.s);
  if (rc == SQLITE_ROW)
    return readRow(st.s);
  if (rc != SQLITE_DONE)
    error = lastError(db);
  return std::nullopt;
}

std::vector<Record> TuningDb::records(const std::string &key, const TuningContext &ctx,
                                      std::string &error) {
  std::string sql = std::string("SELECT ") + kColumns +
                    " FROM candidates WHERE (? = '' OR kernel_key = ?) AND target = ? AND "
                    "ssm_version = ? AND halide_version = ? ORDER BY id";
  std::vector<Record> out;
  Stmt st;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st.s, nullptr) != SQLITE_OK) {
    error = lastError(db);
    return out;
  }
  bind(st.s, 1, key);
  bind(st.s, 2, key);
  bind(st.s, 3, ctx.target);
  bind(st.s, 4, ctx.ssmVersion);
  bind(st.s, 5, ctx.halideVersion);
  int rc;
  while ((rc = sqlite3_step(st.s)) == SQLITE_ROW)
    out.push_back(readRow(st.s));
  if (rc != SQLITE_DONE)
    error = lastError(db);
  return out;
}

int64_t TuningDb::countAnyContext(const std::string &key, std::string &error) {
  Stmt st;
  if (sqlite3_prepare_v2(db, "SELECT count(*) FROM candidates WHERE kernel_key = ?", -1, &st.s,
                         nullptr) != SQLITE_OK) {
    error = lastError(db);
    return 0;
  }
  bind(st.s, 1, key);
  if (sqlite3_step(st.s) != SQLITE_ROW) {
    error = lastError(db);
    return 0;
  }
  return sqlite3_column_int64(st.s, 0);
}

} // namespace ssm::tune
