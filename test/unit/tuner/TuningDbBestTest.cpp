// Which record the tuning database applies (TuningDb::best): the final
// rounds' medians decide over a single lucky search measurement; and the
// report's autoscheduler columns from the same records (tuner/Report.h).
#include "tuner/Report.h"
#include "tuner/TuningDb.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <sys/resource.h>

namespace {

using ssm::tune::Record;
using ssm::tune::TuningContext;
using ssm::tune::TuningDb;

TuningContext context() {
  TuningContext c;
  c.target = "x86-64-linux-avx2";
  c.cpuModel = "test cpu";
  c.threads = 2;
  c.ssmVersion = "ssm-opt test";
  c.halideVersion = "14.0.0";
  return c;
}

const char *kHeur = "#ssm.matmul<algorithm = dot, vector_width = 8, tile_rows = 4, tile_cols = 2>";
const char *kTuned = "#ssm.matmul<algorithm = dot, vector_width = 8, tile_rows = 3, tile_cols = 2>";

struct TuningDbBest : ::testing::Test {
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("ssm-tune-best", "db", path));
    llvm::sys::fs::remove(path); // open creates it
    std::string error;
    db = TuningDb::open(std::string(path), TuningDb::Mode::ReadWrite, error);
    ASSERT_TRUE(db) << error;
    ASSERT_TRUE(db->addKernel("k", "linalg.matmul_transpose_b", "ir", error)) << error;
  }
  void TearDown() override {
    db.reset();
    for (const char *suffix : {"", "-wal", "-shm"})
      llvm::sys::fs::remove(std::string(path) + suffix);
  }
  void add(const std::string &run, const std::string &kind, const char *schedule, double ms,
           const char *status = "ok") {
    Record r;
    r.kernelKey = "k";
    r.op = "linalg.matmul_transpose_b";
    r.kind = kind;
    r.schedule = schedule;
    r.status = status;
    r.medianMs = ms;
    r.repeats = 7;
    r.runId = run;
    r.context = context();
    std::string error;
    ASSERT_TRUE(db->insert(r, error)) << error;
  }
  std::optional<Record> best() {
    std::string error;
    auto b = db->best("k", context(), error);
    EXPECT_TRUE(error.empty()) << error;
    return b;
  }
  llvm::SmallString<128> path;
  std::unique_ptr<TuningDb> db;
};

TEST_F(TuningDbBest, FastestRecordWithoutFinalRounds) {
  add("r1", "heuristic", kHeur, 10.0);
  add("r1", "tuned", kTuned, 9.0);
  auto b = best();
  ASSERT_TRUE(b);
  EXPECT_EQ(b->schedule, kTuned);
  EXPECT_DOUBLE_EQ(b->medianMs, 9.0);
}

TEST_F(TuningDbBest, LuckySearchMeasurementLosesToTheHeuristicInFinalRounds) {
  add("r1", "heuristic", kHeur, 10.0);
  add("r1", "tuned", kTuned, 9.0); // lucky
  for (double ms : {10.0, 10.4, 9.8})
    add("r1", "final-heuristic", kHeur, ms);
  for (double ms : {10.9, 11.2, 10.1})
    add("r1", "final-tuned", kTuned, ms);
  auto b = best();
  ASSERT_TRUE(b);
  EXPECT_EQ(b->schedule, kHeur);
  EXPECT_DOUBLE_EQ(b->medianMs, 10.0); // the final-heuristic median
}

TEST_F(TuningDbBest, TunedWinsWhenItsFinalMedianIsNoSlower) {
  add("r1", "heuristic", kHeur, 10.0);
  add("r1", "tuned", kTuned, 9.0);
  for (double ms : {10.0, 10.4, 9.8})
    add("r1", "final-heuristic", kHeur, ms);
  for (double ms : {9.1, 9.9, 9.3})
    add("r1", "final-tuned", kTuned, ms);
  auto b = best();
  ASSERT_TRUE(b);
  EXPECT_EQ(b->schedule, kTuned);
  EXPECT_DOUBLE_EQ(b->medianMs, 9.3);
}

TEST_F(TuningDbBest, TheLatestRunWithFinalRoundsDecides) {
  for (double ms : {10.0, 10.0, 10.0})
    add("r1", "final-heuristic", kHeur, ms);
  for (double ms : {9.0, 9.0, 9.0})
    add("r1", "final-tuned", kTuned, ms);
  // A later run found the heuristic faster (its tuned is slower).
  for (double ms : {8.0, 8.0})
    add("r2", "final-heuristic", kHeur, ms);
  for (double ms : {8.5, 8.6})
    add("r2", "final-tuned", kTuned, ms);
  auto b = best();
  ASSERT_TRUE(b);
  EXPECT_EQ(b->schedule, kHeur);
  EXPECT_DOUBLE_EQ(b->medianMs, 8.0);
}

// ssm-tune --report names every autoscheduler: one whose final rounds all
// failed shows that status (a racing schedule gives a wrong result in some
// rounds: Mullapudi2016 on the selective scan), not a bare "-"; one with no
// final rounds keeps its first measurement.
TEST_F(TuningDbBest, ReportNamesAnAutoschedulerWhoseFinalRoundsFailed) {
  add("r1", "heuristic", kHeur, 10.0);
  add("r1", "adams2019", "", 12.0);
  add("r1", "li2018", "", 13.0);
  add("r1", "mullapudi2016", "", 14.0); // ok once in the baselines
  for (double ms : {10.0, 10.2, 9.8}) {
    add("r1", "final-heuristic", kHeur, ms);
    add("r1", "final-adams2019", "", ms + 2);
    add("r1", "final-mullapudi2016", "", ms + 4, "wrong");
  }
  ssm::tune::Kernel k;
  k.key = "k";
  k.opName = "linalg.matmul_transpose_b";
  std::string error;
  std::vector<ssm::tune::ReportRow> rows = ssm::tune::buildReport({k}, *db, context(), error);
  ASSERT_TRUE(error.empty()) << error;
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_DOUBLE_EQ(rows[0].adams2019, 12.0); // the final rounds' median
  EXPECT_DOUBLE_EQ(rows[0].li2018, 13.0);    // no final rounds: the baseline
  EXPECT_DOUBLE_EQ(rows[0].mullapudi2016, 0.0);
  EXPECT_EQ(rows[0].autoStatus["mullapudi2016"], "wrong");
  std::string text;
  llvm::raw_string_ostream os(text);
  ssm::tune::printReport(rows, context(), os);
  os.flush();
  std::string header = text.substr(text.find("#"), text.find('\n', text.find("#")) - text.find("#"));
  EXPECT_NE(header.find("adams2019"), std::string::npos) << text;
  EXPECT_NE(header.find("li2018"), std::string::npos) << text;
  EXPECT_NE(header.find("mullapudi"), std::string::npos) << text;
  std::string row = text.substr(text.find("\n1 ") + 1);
  row = row.substr(0, row.find('\n'));
  EXPECT_NE(row.find("wrong"), std::string::npos) << text;
}

// A good database that cannot be used for want of space (a full disk, here a
// file size limit of 0 bytes: the WAL's -shm file cannot grow) is named as
// such, not as "not a SQLite database or is damaged" (issue 35 hostile re-run:
// ssm-tune on a full disk), and the file is not changed.
TEST_F(TuningDbBest, AFullDiskIsNotCalledADamagedDatabase) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  add("r1", "heuristic", kHeur, 2.0);
  db.reset(); // closed: the -wal and -shm files go
  // The verdict by exit code: under the limit the child cannot write its
  // stderr (gtest captures it to a file). 0: the message names the cause; 5:
  // another message ("not a SQLite database or is damaged"); 4: it opened.
  auto openWithoutSpace = [&] {
    struct rlimit none = {0, 0};
    std::signal(SIGXFSZ, SIG_IGN);
    if (::setrlimit(RLIMIT_FSIZE, &none) != 0)
      std::exit(3);
    std::string error;
    auto again = TuningDb::open(std::string(path), TuningDb::Mode::ReadWrite, error);
    if (again)
      std::exit(4);
    std::exit(error.find("cannot be used here") != std::string::npos &&
                      error.find("is its disk full, or its folder not writable? The file was "
                                 "not changed") != std::string::npos
                  ? 0
                  : 5);
  };
  EXPECT_EXIT(openWithoutSpace(), ::testing::ExitedWithCode(0), "");
  std::string error;
  db = TuningDb::open(std::string(path), TuningDb::Mode::ReadWrite, error);
  ASSERT_TRUE(db) << error;
  EXPECT_TRUE(best().has_value()) << "the record is still there";
}

} // namespace
