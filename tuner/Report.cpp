// The tuning report (see Report.h).
#include "tuner/Report.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace ssm::tune {

std::vector<ReportRow> buildReport(const std::vector<Kernel> &kernels, TuningDb &db,
                                   const TuningContext &ctx, std::string &error) {
  std::vector<ReportRow> rows;
  for (const Kernel &k : kernels) {
    ReportRow row;
    row.key = k.key;
    row.opName = k.opName;
    row.summary = k.summary;
    row.occurrences = k.ops.size();
    std::vector<Record> recs = db.records(k.key, ctx, error);
    if (!error.empty())
      return rows;
    for (auto it = recs.rbegin(); it != recs.rend(); ++it)
      if (it->kind == "heuristic" && it->status == "ok") {
        row.runId = it->runId;
        break;
      }
    // The final rounds of the run, when it has them: the median of each kind.
    std::map<std::string, std::vector<double>> finals;
    // An autoscheduler whose final rounds all failed (a schedule that races
    // gives a wrong result in some rounds only): the last failure's status.
    std::map<std::string, std::string> finalStatus;
    for (const Record &r : recs)
      if (r.runId == row.runId && !row.runId.empty() &&
          llvm::StringRef(r.kind).starts_with("final-")) {
        if (r.status == "ok")
          finals[r.kind.substr(6)].push_back(r.medianMs);
        else
          finalStatus[r.kind.substr(6)] = r.status;
      }
    for (const Record &r : recs) {
      if (r.runId != row.runId || row.runId.empty())
        continue;
      if (r.kind == "tuned")
        ++row.candidates, row.wrong += r.status == "wrong";
      if (r.status != "ok") {
        if (r.kind == "adams2019" || r.kind == "li2018" || r.kind == "mullapudi2016")
          row.autoStatus[r.kind] = r.status;
        continue;
      }
      row.threads = r.context.threads;
      if (r.kind == "heuristic")
        row.heuristic = r.medianMs;
      if ((r.kind == "heuristic" || r.kind == "tuned") && (!row.tuned || r.medianMs < row.tuned)) {
        // (replaced by the final rounds' median below when the run has them)
        row.tuned = r.medianMs;
        row.tunedSchedule = r.schedule;
      }
      if (r.kind == "adams2019")
        row.adams2019 = r.medianMs;
      if (r.kind == "li2018")
        row.li2018 = r.medianMs;
      if (r.kind == "mullapudi2016")
        row.mullapudi2016 = r.medianMs;
    }
    if (!finals.empty()) {
      auto median = [&](const char *kind) {
        std::vector<double> v = finals[kind];
        if (v.empty())
          return 0.0;
        std::sort(v.begin(), v.end());
        return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
      };
      row.rounds = finals["heuristic"].size();
      row.heuristic = median("heuristic");
      row.tuned = finals.count("tuned") ? median("tuned") : row.heuristic;
      if (!finals.count("tuned"))
        row.tunedSchedule.clear(); // the heuristic was the best
      if (row.tuned > row.heuristic) {
        // The search's best was lucky: slower than the heuristic in the
        // final rounds, so the heuristic is what gets applied
        // (TuningDb::best); the row shows that.
        row.tuned = row.heuristic;
        row.tunedSchedule.clear();
        row.heuristicKept = true;
      }
      // Each autoscheduler: its final rounds' median; with none of them ok,
      // their failure (the row names every autoscheduler, never a bare "-"
      // for one that ran); with no final rounds of it, its first measurement.
      for (auto [kind, value] : {std::pair<const char *, double *>{"adams2019", &row.adams2019},
                                 {"li2018", &row.li2018},
                                 {"mullapudi2016", &row.mullapudi2016}}) {
        if (finals.count(kind)) {
          *value = median(kind);
        } else if (finalStatus.count(kind)) {
          *value = 0;
          row.autoStatus[kind] = finalStatus[kind];
        }
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

namespace {
/// Four significant digits: decode kernels take microseconds.
std::string ms(double v) {
  if (!v)
    return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, v >= 1000 ? "%.1f" : "%.4g", v);
  return buf;
}
/// An autoscheduler's time, or why it has none.
std::string autoMs(const ReportRow &r, const char *kind, double v) {
  auto it = r.autoStatus.find(kind);
  return v || it == r.autoStatus.end() ? ms(v) : it->second;
}
std::string ratio(double a, double b) { return a && b ? llvm::formatv("{0:f2}x", a / b).str() : "-"; }
double bestAuto(const ReportRow &r) {
  double b = 0;
  for (double v : {r.adams2019, r.li2018, r.mullapudi2016})
    if (v && (!b || v < b))
      b = v;
  return b;
}
} // namespace

void printReport(const std::vector<ReportRow> &rows, const TuningContext &ctx,
                 llvm::raw_ostream &os) {
  os << "target " << ctx.target << "\ncpu " << ctx.cpuModel << ", " << ctx.ssmVersion
     << ", Halide " << ctx.halideVersion << "\n";
  os << llvm::formatv("{0,-4} {1,-26} {2,4} {3,8} {4,10} {5,10} {6,10} {7,10} {8,10} {9,12} {10,14}\n",
                      "#", "op", "ops", "thr/rnd", "heuristic", "tuned", "adams2019", "li2018",
                      "mullapudi", "heur/tuned", "bestauto/tuned");
  double heurTotal = 0, tunedTotal = 0;
  bool complete = true;
  for (size_t i = 0; i < rows.size(); ++i) {
    const ReportRow &r = rows[i];
    os << llvm::formatv("{0,-4} {1,-26} {2,4} {3,8} {4,10} {5,10} {6,10} {7,10} {8,10} {9,12} {10,14}\n",
                        i + 1, r.opName, r.occurrences,
                        (r.threads ? std::to_string(r.threads) : "-") + "/" + std::to_string(r.rounds),
                        ms(r.heuristic), ms(r.tuned), autoMs(r, "adams2019", r.adams2019),
                        autoMs(r, "li2018", r.li2018),
                        autoMs(r, "mullapudi2016", r.mullapudi2016), ratio(r.heuristic, r.tuned),
                        ratio(bestAuto(r), r.tuned));
    if (r.heuristic && r.tuned) {
      heurTotal += r.occurrences * r.heuristic;
      tunedTotal += r.occurrences * r.tuned;
    } else {
      complete = false;
    }
  }
  os << "times in ms, each row from one run: the median over its final rounds (rounds "
        "column) of the median of repeats; kernels:\n";
  for (size_t i = 0; i < rows.size(); ++i)
    os << "  " << i + 1 << "  " << rows[i].key << "  " << rows[i].summary
       << (rows[i].runId.empty() ? "  (not measured for this target)" : "") << "\n"
       << (rows[i].tunedSchedule.empty() ? "" : "     tuned: " + rows[i].tunedSchedule + "\n")
       << (rows[i].heuristicKept ? "     the search's best was slower than the heuristic in the "
                                   "final rounds: the heuristic is applied\n"
                                 : "");
  if (tunedTotal)
    os << llvm::formatv("tunable kernels of the graph, weighted by occurrences: heuristic {0} "
                        "ms, tuned {1} ms ({2:f2}x){3}\n",
                        ms(heurTotal), ms(tunedTotal), heurTotal / tunedTotal,
                        complete ? "" : " (kernels not measured left out)");
}

std::string reportJson(const std::vector<ReportRow> &rows, const TuningContext &ctx) {
  llvm::json::Array kernels;
  for (const ReportRow &r : rows) {
    llvm::json::Object o{{"key", r.key},          {"op", r.opName},
                         {"shapes", r.summary},   {"occurrences", r.occurrences},
                         {"threads", r.threads},  {"run_id", r.runId}, {"rounds", r.rounds},
                         {"heuristic", r.heuristic}, {"tuned", r.tuned},
                         {"adams2019", r.adams2019}, {"li2018", r.li2018},
                         {"mullapudi2016", r.mullapudi2016}};
    for (const auto &[kind, status] : r.autoStatus)
      o[kind + "_status"] = status;
    kernels.push_back(std::move(o));
  }
  llvm::json::Object root{{"target", ctx.target},
                          {"cpu_model", ctx.cpuModel},
                          {"ssm_version", ctx.ssmVersion},
                          {"halide_version", ctx.halideVersion},
                          {"kernels", std::move(kernels)}};
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::json::Value(std::move(root));
  return os.str();
}

} // namespace ssm::tune
