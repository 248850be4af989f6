// ssm-tune --report: per kernel, the heuristic, the tuned schedule and each autoscheduler, from one tuning run.
#ifndef SSM_TUNER_REPORT_H
#define SSM_TUNER_REPORT_H

#include "tuner/KernelKey.h"
#include "tuner/TuningDb.h"

#include "llvm/Support/raw_ostream.h"

#include <map>
#include <string>
#include <vector>

namespace ssm::tune {

struct ReportRow {
  std::string key, opName, summary, runId;
  unsigned occurrences = 0;
  unsigned threads = 0;
  /// Median ms of each kind in `runId` (0: not measured there or not ok):
  /// heuristic, tuned (the fastest correct candidate of the run, the
  /// heuristic included), adams2019, li2018, mullapudi2016.
  double heuristic = 0, tuned = 0, adams2019 = 0, li2018 = 0, mullapudi2016 = 0;
  /// Why an autoscheduler has no time: its status in the run ("wrong",
  /// "failed", "timeout"), by kind; absent when it was not measured.
  std::map<std::string, std::string> autoStatus;
  std::string tunedSchedule;
  unsigned candidates = 0, wrong = 0;
  /// Final rounds the times are medians over (0: the search's single
  /// measurements).
  unsigned rounds = 0;
  /// The search's best was slower than the heuristic in the final rounds:
  /// the heuristic is applied and `tuned` is its time.
  bool heuristicKept = false;
};

/// One row per kernel of the graph, each from the latest run in `db` that
/// measured its heuristic for `ctx` (so that every ratio compares times of
/// one run); kernels never measured have an empty runId.
std::vector<ReportRow> buildReport(const std::vector<Kernel> &kernels, TuningDb &db,
                                   const TuningContext &ctx, std::string &error);

/// The table: times in ms and the ratios heuristic / tuned and best
/// autoscheduler / tuned, and the graph's kernel time weighted by
/// occurrences.
void printReport(const std::vector<ReportRow> &rows, const TuningContext &ctx,
                 llvm::raw_ostream &os);

/// The rows as JSON (the chart script's input).
std::string reportJson(const std::vector<ReportRow> &rows, const TuningContext &ctx);

} // namespace ssm::tune

#endif
