// Distributed prefill over MPI: the layer loop, the halo and summary exchanges (Prefill.h says what and why).
#include "runtime/distributed/Prefill.h"

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>

namespace ssm::dist {
namespace {

using rt::Code;
using rt::HostTensor;
using rt::Status;
using rt::TensorInfo;

/// The manifest's spelling of a state name in a result name (codegen
/// replaces what is not a letter, digit or '_').
std::string sanitized(const std::string &s) {
  std::string out = s;
  for (char &c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      c = '_';
  return out;
}

std::string mpiError(int code) {
  char buf[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, buf, &len);
  return std::string(buf, len);
}

/// A view of rows [begin, begin + rows) of `t` (row-major, first axis the rows) as a
/// tensor of `shape` (shape[0] == rows), without copying.
HostTensor rowView(const HostTensor &t, int64_t begin, const std::vector<int64_t> &shape) {
  HostTensor v;
  v.shape = shape;
  v.dtype = t.dtype;
  int64_t rowElems = 1;
  for (size_t d = 1; d < shape.size(); ++d)
    rowElems *= shape[d];
  const size_t bytes = t.dtype == "int32" ? sizeof(int32_t) : sizeof(float);
  v.view = static_cast<const unsigned char *>(t.elements()) + begin * rowElems * bytes;
  return v;
}

/// Elements after the first axis (one row's worth).
int64_t rowElements(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (size_t d = 1; d < shape.size(); ++d)
    n *= shape[d];
  return n;
}

/// The rows (tokens) a dist_ function takes: its "h" or "tokens" argument's first axis.
int64_t rowsOf(const rt::FunctionInfo &fn) {
  for (const TensorInfo &a : fn.arguments)
    if ((a.name == "h" || a.name == "tokens") && !a.shape.empty())
      return a.shape[0];
  return 0;
}

class Runner {
public:
  Runner(rt::CompiledModule &m, rt::CompiledModule *tail, rt::WeightFile &w)
      : module(m), tail(tail), weights(w) {}

  /// `name` in the module compiled for the chunk length, and in the one for
  /// the slice's last, shorter piece (null where there is none).
  const rt::FunctionInfo *find(const std::string &name) const { return module.find(name); }
  const rt::FunctionInfo *findTail(const std::string &name) const {
    return tail ? tail->find(name) : nullptr;
  }

  /// Per-token values a layer passes to later ones on this rank ("carry<l>_<r>":
  /// RWKV-7's first-layer values): every row of the slice, as the last layer
  /// that made them left them.
  std::map<std::string, HostTensor> carries;

  /// Keeps the "carry..." results of `fn` (every row of the slice) in `carries`.
  void keepCarries(const rt::FunctionInfo &fn, std::vector<HostTensor> &results) {
    for (size_t r = 0; r < fn.results.size() && r < results.size(); ++r)
      if (fn.results[r].name.rfind("carry", 0) == 0)
        carries[fn.results[r].name] = results[r];
  }

  /// Calls `fn` with `h` as its "h" or "tokens" argument, `states` (by
  /// name) for its state arguments and the rows of the kept carries from
  /// `row` on (zeros with `zeroCarries`: the halo rows, whose carried values
  /// no window reads); results into `out` (manifest order; storage of the
  /// same size is reused from call to call).
  Status call(const rt::FunctionInfo &fn, const HostTensor &h,
              const std::map<std::string, HostTensor> &states, std::vector<HostTensor> &out,
              bool zeroCarries = false, int64_t row = 0) {
    std::vector<const HostTensor *> inputs;
    std::vector<std::unique_ptr<HostTensor>> temps; // zero carries and carry row views
    for (const TensorInfo &a : fn.arguments) {
      if (a.name.rfind("carry", 0) == 0 && a.param.empty() && a.state.empty()) {
        auto it = carries.find(a.name);
        if (zeroCarries) {
          temps.push_back(std::make_unique<HostTensor>());
          temps.back()->shape = a.shape;
          int64_t n = 1;
          for (int64_t d : a.shape)
            n *= d;
          temps.back()->allocate<float>(static_cast<size_t>(n), 0.0f);
          inputs.push_back(temps.back().get());
        } else if (it == carries.end() || a.shape.empty() || it->second.shape.empty() ||
                   it->second.shape[0] < row + a.shape[0] ||
                   std::vector<int64_t>(it->second.shape.begin() + 1, it->second.shape.end()) !=
                       std::vector<int64_t>(a.shape.begin() + 1, a.shape.end())) {
          return {Code::Mismatch, "@" + fn.name + " takes '" + a.name +
                                      "', which no earlier layer gave with its shape"};
        } else {
          temps.push_back(std::make_unique<HostTensor>(rowView(it->second, row, a.shape)));
          inputs.push_back(temps.back().get());
        }
        continue;
      }
      if (!a.param.empty()) {
        const HostTensor *t = nullptr;
        if (Status st = weight(fn, a, t); !st.isOk())
          return st;
        inputs.push_back(t);
      } else if (!a.state.empty()) {
        auto it = states.find(a.state);
        if (it == states.end())
          return {Code::Mismatch, "@" + fn.name + " takes state '" + a.state + "' that no layer gives"};
        inputs.push_back(&it->second);
      } else if (a.name == "h" || a.name == "tokens") {
        if (h.shape != a.shape)
          return {Code::Mismatch, "@" + fn.name + " takes '" + a.name + "' of another shape than "
                                      "the rows given (a module compiled for another length?)"};
        inputs.push_back(&h);
      } else {
        return {Code::Mismatch, "@" + fn.name + " takes '" + a.name +
                                    "', which is not h, tokens, a state or a weight"};
      }
    }
    std::string error;
    auto bound = owner(fn).bind(fn, inputs, out, error);
    if (!bound)
      return {Code::Mismatch, "@" + fn.name + ": " + error};
    if (!bound->invoke(error))
      return {Code::KernelFailed, "@" + fn.name + ": " + error};
    return Status::ok();
  }

private:
  rt::CompiledModule &owner(const rt::FunctionInfo &fn) {
    const std::vector<rt::FunctionInfo> &f = module.functions();
    return tail && !(&fn >= f.data() && &fn < f.data() + f.size()) ? *tail : module;
  }

  Status weight(const rt::FunctionInfo &fn, const TensorInfo &a, const HostTensor *&out) {
    auto it = views.find(a.param);
    if (it == views.end()) {
      if (a.dtype != "float32")
        return {Code::Unsupported, "@" + fn.name + " reads weight '" + a.param + "' as " + a.dtype +
                                       ": distributed prefill binds float32 weights only"};
      Status st;
      const rt::WeightFile::Tensor *t = weights.get(a.param, st);
      if (!t)
        return {Code::Mismatch, st.message()};
      HostTensor h;
      h.shape = t->shape;
      h.view = t->data;
      it = views.emplace(a.param, std::move(h)).first;
    }
    if (it->second.shape != a.shape)
      return {Code::Mismatch, weights.path() + ": weight '" + a.param +
                                  "' has another shape than @" + fn.name + " expects"};
    out = &it->second;
    return Status::ok();
  }

  rt::CompiledModule &module;
  rt::CompiledModule *tail;
  rt::WeightFile &weights;
  std::map<std::string, HostTensor> views;
};

/// MPI_Recv without spinning: Open MPI busy-polls a blocking receive, which
/// on a machine with fewer free cores than ranks takes the core the rank we
/// wait for needs. The receive is posted and tested every 100 us instead
/// (a latency far below a layer's time).
int recvIdle(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm) {
  MPI_Request req;
  if (int rc = MPI_Irecv(buf, count, type, source, tag, comm, &req); rc != MPI_SUCCESS)
    return rc;
  for (;;) {
    int done = 0;
    if (int rc = MPI_Test(&req, &done, MPI_STATUS_IGNORE); rc != MPI_SUCCESS)
      return rc;
    if (done)
      return MPI_SUCCESS;
    struct timespec ts = {0, 100000};
    nanosleep(&ts, nullptr);
  }
}

double cpuMs() {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/// A state tensor at its initial value (`init`: by state name; absent: 0).
HostTensor initial(const TensorInfo &info, const std::map<std::string, float> &init) {
  HostTensor t;
  t.shape = info.shape;
  int64_t n = 1;
  for (int64_t d : info.shape)
    n *= d;
  auto it = init.find(info.state);
  t.allocate<float>(static_cast<size_t>(n), it == init.end() ? 0.0f : it->second);
  return t;
}

/// How a slice summary composes with the state before the slice
/// (passes/DistributePrefill.cpp names them "summary<kind>.<state>").
enum class Compose {
  Diagonal, // h = T (.) h0 + s (Mamba-1, Mamba-2, RWKV-5/6)
  Matrix,   // h = h0 T + s per (N, N) matrix in the last two dimensions (RWKV-7)
  Wkv4,     // RWKV-4's (aa, bb, pp) from the summed log decay: three states in a row
};

struct Recurrent {
  int state = 0, summary = 0; // result indices
  Compose kind = Compose::Diagonal;
};

/// One layer's functions and which of its states are recurrent (have a summary).
/// seq and plain take a chunk of the slice (the module's length); tseq and
/// tplain, of the tail module, its last n mod chunk rows (null: no tail).
struct Layer {
  const rt::FunctionInfo *seq = nullptr, *plain = nullptr, *step = nullptr;
  const rt::FunctionInfo *tseq = nullptr, *tplain = nullptr;
  std::vector<int> stateResults;                    // result index of each state
  std::vector<Recurrent> recurrent;
};

/// h0 <- the state after a slice whose summary is (T, s), from h0 before it.
/// `x` holds `count` states of `numel` values each, in the order of `kinds`.
void compose(const Layer &L, std::vector<float *> &x, const std::vector<const float *> &T,
             const std::vector<const float *> &s, const std::vector<HostTensor *> &shapes) {
  for (size_t i = 0; i < L.recurrent.size(); ++i) {
    size_t numel = shapes[i]->f32().size();
    switch (L.recurrent[i].kind) {
    case Compose::Diagonal:
      for (size_t k = 0; k < numel; ++k)
        x[i][k] = T[i][k] * x[i][k] + s[i][k];
      break;
    case Compose::Matrix: {
      const std::vector<int64_t> &shape = shapes[i]->shape;
      size_t n = static_cast<size_t>(shape.back());
      std::vector<float> row(n);
      for (size_t m = 0; m < numel; m += n * n)
        for (size_t r = 0; r < n; ++r) {
          float *xr = x[i] + m + r * n;
          for (size_t c = 0; c < n; ++c) {
            float acc = s[i][m + r * n + c];
            for (size_t l = 0; l < n; ++l)
              acc += xr[l] * T[i][m + l * n + c];
            row[c] = acc;
          }
          std::copy(row.begin(), row.end(), xr);
        }
      break;
    }
    case Compose::Wkv4: {
      // (aa, bb, pp) holds the sums A = aa e^pp, B = bb e^pp; over the slice
      // A = e^{sum w} A0 + A_s, so with p1 = pp0 + sum w, p2 = pp_s and
      // p = max(p1, p2): aa = aa0 e^{p1 - p} + aa_s e^{p2 - p}, pp = p.
      float *aa = x[i], *bb = x[i + 1], *pp = x[i + 2];
      for (size_t k = 0; k < numel; ++k) {
        float p1 = pp[k] + T[i + 2][k], p2 = s[i + 2][k];
        float p = std::max(p1, p2);
        float e1 = std::exp(p1 - p), e2 = std::exp(p2 - p);
        aa[k] = e1 * aa[k] + e2 * s[i][k];
        bb[k] = e1 * bb[k] + e2 * s[i + 1][k];
        pp[k] = p;
      }
      i += 2;
      break;
    }
    }
  }
}

/// acc <- the summary of two pieces in a row, `acc` the earlier one's and
/// `next` the later one's (a slice run as several calls): the transitions
/// compose like the states, with nothing added. Diagonal: next (.) acc;
/// Matrix: acc next (the state is a row vector times the product); Wkv4:
/// the summed log decays add (all three parts carry the same sum).
void chain(const Recurrent &rec, HostTensor &acc, const HostTensor &next) {
  float *a = acc.f32().data();
  const float *t = next.f32().data();
  size_t numel = acc.f32().size();
  switch (rec.kind) {
  case Compose::Diagonal:
    for (size_t k = 0; k < numel; ++k)
      a[k] *= t[k];
    break;
  case Compose::Matrix: {
    size_t n = static_cast<size_t>(acc.shape.back());
    std::vector<float> row(n);
    for (size_t m = 0; m < numel; m += n * n)
      for (size_t r = 0; r < n; ++r) {
        float *ar = a + m + r * n;
        for (size_t c = 0; c < n; ++c) {
          float v = 0;
          for (size_t l = 0; l < n; ++l)
            v += ar[l] * t[m + l * n + c];
          row[c] = v;
        }
        std::copy(row.begin(), row.end(), ar);
      }
    break;
  }
  case Compose::Wkv4:
    for (size_t k = 0; k < numel; ++k)
      a[k] += t[k];
    break;
  }
}

/// Runs one function over the `n` rows of `h` as calls of the chunk
/// module's length (`fn`) and one call of the tail module's for the rest
/// (`tailFn`), each call starting from the states the one before left
/// (`states`, by name, updated), as one call over the n rows would.
/// `results` gets what that call would return: the rows of each per-token
/// result (result 0, the carries) for all n rows, the final states, and for
/// `rec` the summaries chained across the calls (chain()).
Status runPieces(Runner &run, const rt::FunctionInfo &fn, const rt::FunctionInfo *tailFn,
                 const HostTensor &h, int64_t n, std::map<std::string, HostTensor> &states,
                 const std::vector<Recurrent> &rec, std::vector<HostTensor> &results,
                 std::vector<HostTensor> &scratch) {
  const int64_t chunk = fn.arguments.empty() ? 0 : rowsOf(fn);
  if (chunk < 1)
    return {Code::Mismatch, "@" + fn.name + " takes no rows"};
  results.clear();
  for (int64_t begin = 0; begin < n;) {
    const int64_t len = std::min(chunk, n - begin);
    const rt::FunctionInfo *f = len == chunk ? &fn : tailFn;
    if (!f || rowsOf(*f) != len)
      return {Code::Mismatch, "@" + fn.name + " is compiled for " + std::to_string(chunk) +
                                  " tokens and the slice has " + std::to_string(n) +
                                  ": the last " + std::to_string(len) +
                                  " need a module compiled for that many"};
    std::vector<int64_t> shape = h.shape;
    shape[0] = len;
    HostTensor rows = rowView(h, begin, shape);
    if (Status st = run.call(*f, rows, states, scratch, false, begin); !st.isOk())
      return st;
    if (results.empty()) {
      results.resize(scratch.size());
      for (size_t r = 0; r < scratch.size(); ++r)
        if (r == 0 || f->results[r].name.rfind("carry", 0) == 0) {
          results[r].shape = scratch[r].shape;
          results[r].shape[0] = n;
          results[r].allocate<float>(static_cast<size_t>(n * rowElements(scratch[r].shape)));
        }
    }
    for (size_t r = 0; r < scratch.size(); ++r) {
      const std::string &name = f->results[r].name;
      if (r == 0 || name.rfind("carry", 0) == 0) {
        int64_t row = rowElements(scratch[r].shape);
        std::copy(scratch[r].f32().begin(), scratch[r].f32().end(),
                  results[r].f32().begin() + begin * row);
      } else if (!f->results[r].state.empty()) {
        states[f->results[r].state] = scratch[r];
      }
    }
    for (const Recurrent &x : rec) {
      if (static_cast<size_t>(x.summary) >= scratch.size())
        continue; // the plain form: no summaries
      if (begin == 0)
        results[x.summary] = scratch[x.summary];
      else
        chain(x, results[x.summary], scratch[x.summary]);
    }
    begin += len;
  }
  for (size_t r = 0; r < results.size(); ++r)
    if (r != 0 && !fn.results[r].state.empty())
      results[r] = states[fn.results[r].state];
  return Status::ok();
}

} // namespace

void agreeFailure(MPI_Comm comm) {
  int size = 1, mine = 0;
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  MPI_Comm_size(comm, &size);
  std::vector<int> all(size);
  MPI_Allgather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, comm);
}

Status prefill(MPI_Comm comm, rt::CompiledModule &module, rt::WeightFile &weights,
               const int32_t *tokens, int64_t n, int64_t haloRows, PrefillResult &out,
               const std::map<std::string, float> &stateInit, rt::CompiledModule *tail) {
  int rank = 0, size = 1;
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  auto mpiFailed = [&](int code, const char *what) {
    return Status(Code::Internal, std::string("MPI ") + what + " failed on rank " +
                                      std::to_string(rank) + ": " + mpiError(code));
  };
  // Every rank agrees on the outcome of its local work before the next
  // collective: a rank that failed sends 0 and the others stop too.
  auto agree = [&](Status local) -> Status {
    int mine = local.isOk() ? 1 : 0;
    std::vector<int> all(size);
    // Non-blocking and tested with pauses, like recvIdle: a rank done early
    // must not spin on the core of one still computing.
    MPI_Request req;
    if (int rc = MPI_Iallgather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, comm, &req);
        rc != MPI_SUCCESS)
      return mpiFailed(rc, "Iallgather (status)");
    for (int done = 0; !done;) {
      if (int rc = MPI_Test(&req, &done, MPI_STATUS_IGNORE); rc != MPI_SUCCESS)
        return mpiFailed(rc, "Iallgather (status)");
      if (!done) {
        struct timespec ts = {0, 100000};
        nanosleep(&ts, nullptr);
      }
    }
    if (!local.isOk())
      return local;
    for (int r = 0; r < size; ++r)
      if (!all[r])
        return {Code::Internal, "rank " + std::to_string(r) + " failed (its message is above)"};
    return Status::ok();
  };

  Runner run(module, tail, weights);
  const rt::FunctionInfo *embed = run.find("dist_embed"), *head = run.find("dist_head");
  const rt::FunctionInfo *tailEmbed = run.findTail("dist_embed"), *tailHead = run.findTail("dist_head");
  std::vector<Layer> layers;
  Status local;
  // The slice runs as calls of the module's length (chunk) and one call of
  // the tail module's for the last n mod chunk tokens.
  const int64_t chunk = embed ? rowsOf(*embed) : 0;
  const int64_t rest = chunk > 0 ? n % chunk : 0;
  if (n < 1)
    local = {Code::InvalidArgument, "rank " + std::to_string(rank) + " has no tokens: every rank "
                                    "needs a slice of at least one token"};
  else if (!embed || !head || (tail && (!tailEmbed || !tailHead)))
    local = {Code::Mismatch, "the module has no @dist_embed / @dist_head: compile the graph after "
                             "the ssm-distribute-prefill pass"};
  else if (chunk < 1)
    local = {Code::Mismatch, "@dist_embed takes no tokens"};
  else if (rest != 0 && (!tailEmbed || rowsOf(*tailEmbed) != rest))
    local = {Code::Mismatch, "rank " + std::to_string(rank) + "'s slice of " + std::to_string(n) +
                                 " tokens runs as calls of " + std::to_string(chunk) +
                                 " (the module's length), but the last " + std::to_string(rest) +
                                 " need a module compiled for " + std::to_string(rest) +
                                 (tailEmbed ? " (the tail module's is " +
                                                  std::to_string(rowsOf(*tailEmbed)) + ")"
                                            : " (none given)")};
  for (int i = 0; local.isOk(); ++i) {
    Layer l;
    l.seq = run.find("dist_layer" + std::to_string(i));
    l.plain = run.find("dist_layer_plain" + std::to_string(i));
    l.step = run.find("dist_step" + std::to_string(i));
    if (!l.seq)
      break;
    if (!l.step || !l.plain) {
      local = {Code::Mismatch, "the module has @dist_layer" + std::to_string(i) +
                                   " but no @dist_step" + std::to_string(i) +
                                   " or @dist_layer_plain" + std::to_string(i)};
      break;
    }
    if (rest != 0) {
      // The same graph at another length: the same results in the same order.
      l.tseq = run.findTail("dist_layer" + std::to_string(i));
      l.tplain = run.findTail("dist_layer_plain" + std::to_string(i));
      auto names = [](const rt::FunctionInfo *f) {
        std::vector<std::string> v;
        for (const TensorInfo &t : f->results)
          v.push_back(t.name);
        return v;
      };
      if (!l.tseq || !l.tplain || names(l.tseq) != names(l.seq) ||
          names(l.tplain) != names(l.plain)) {
        local = {Code::Mismatch, "the tail module's @dist_layer" + std::to_string(i) +
                                     " is missing or returns other results than the module's"};
        break;
      }
    }
    for (size_t r = 0; r < l.seq->results.size(); ++r)
      if (!l.seq->results[r].state.empty())
        l.stateResults.push_back(static_cast<int>(r));
    for (size_t r = 0; r < l.seq->results.size(); ++r) {
      const std::string &name = l.seq->results[r].name;
      if (name.rfind("summary_", 0) != 0)
        continue;
      Recurrent rec;
      rec.state = -1;
      rec.summary = static_cast<int>(r);
      static const std::pair<const char *, Compose> kinds[] = {
          {"summary_", Compose::Diagonal},        {"summary_matrix_", Compose::Matrix},
          {"summary_wkv4aa_", Compose::Wkv4},     {"summary_wkv4bb_", Compose::Wkv4},
          {"summary_wkv4pp_", Compose::Wkv4}};
      for (auto [prefix, kind] : kinds)
        for (int s : l.stateResults)
          if (prefix + sanitized(l.seq->results[s].state) == name)
            rec.state = s, rec.kind = kind;
      if (rec.state < 0) {
        local = {Code::Mismatch, "@" + l.seq->name + "'s result '" + name + "' names no state"};
        break;
      }
      l.recurrent.push_back(rec);
    }
    // RWKV-4's three parts come together, in the order aa, bb, pp.
    for (size_t k = 0; k < l.recurrent.size() && local.isOk(); ++k)
      if (l.recurrent[k].kind == Compose::Wkv4) {
        const std::string &name = l.seq->results[l.recurrent[k].summary].name;
        bool ok = name.rfind("summary_wkv4aa_", 0) == 0 && k + 2 < l.recurrent.size() &&
                  l.recurrent[k + 1].kind == Compose::Wkv4 &&
                  l.recurrent[k + 2].kind == Compose::Wkv4;
        if (!ok)
          local = {Code::Mismatch, "@" + l.seq->name + ": the wkv4 summaries are not aa, bb, pp in a row"};
        k += 2;
      }
    layers.push_back(std::move(l));
  }
  if (local.isOk() && layers.empty())
    local = {Code::Mismatch, "the module has no @dist_layer0"};
  if (Status st = agree(local); !st.isOk())
    return st;

  // Slice lengths, in rank order.
  std::vector<int64_t> lengths(size);
  if (int rc = MPI_Allgather(&n, 1, MPI_INT64_T, lengths.data(), 1, MPI_INT64_T, comm); rc != MPI_SUCCESS)
    return mpiFailed(rc, "Allgather (lengths)");
  // The halo rows every rank uses: the most any rank's graph asks for (a
  // rank's graph may not show a window: a one-token slice has no shift).
  int64_t haloMax = haloRows;
  if (int rc = MPI_Allreduce(&haloRows, &haloMax, 1, MPI_INT64_T, MPI_MAX, comm); rc != MPI_SUCCESS)
    return mpiFailed(rc, "Allreduce (halo rows)");
  haloRows = haloMax;
  out.totalTokens = 0;
  for (int64_t l : lengths)
    out.totalTokens += l;

  auto start = std::chrono::steady_clock::now();
  // SSM_DISTRIBUTED_TIMES=1: each rank prints, per layer, the milliseconds of
  // its phases (halo, first run, exchange wait, rerun) on stderr.
  const bool times = std::getenv("SSM_DISTRIBUTED_TIMES") != nullptr;
  auto mark = std::chrono::steady_clock::now();
  auto lap = [&]() {
    auto now = std::chrono::steady_clock::now();
    double ms = std::chrono::duration<double, std::milli>(now - mark).count();
    mark = now;
    return ms;
  };
  std::vector<HostTensor> res, scratch;
  HostTensor tok;
  tok.shape = {n};
  tok.dtype = "int32";
  tok.allocate<int32_t>(static_cast<size_t>(n));
  std::memcpy(tok.i32().data(), tokens, sizeof(int32_t) * n);
  {
    std::map<std::string, HostTensor> none;
    if (Status st = agree(runPieces(run, *embed, tailEmbed, tok, n, none, {}, res, scratch));
        !st.isOk())
      return st;
  }
  HostTensor h = std::move(res[0]);
  if (h.shape.size() != 2 || h.shape[0] != n)
    return {Code::Mismatch, "@dist_embed returns no (tokens, width) rows"};
  const int64_t width = h.shape[1];
  const int64_t halo = std::max<int64_t>(0, haloRows);
  out.states.clear();
  out.bytesExchangedPerLayer = 0;

  Status pending;
  std::vector<std::vector<float>> sendBuffers; // alive until their sends complete
  std::vector<MPI_Request> sends;
  constexpr int kSummaryTag = 1 << 20; // halo messages are tagged with the layer, summaries above
  // Returns `st` once this rank's sends are done (their buffers die with us).
  auto finishSends = [&](Status st) {
    for (int done = sends.empty(); !done;) { // tested with pauses, as in recvIdle
      if (MPI_Testall(static_cast<int>(sends.size()), sends.data(), &done, MPI_STATUSES_IGNORE) !=
          MPI_SUCCESS)
        break;
      if (!done) {
        struct timespec ts = {0, 100000};
        nanosleep(&ts, nullptr);
      }
    }
    sends.clear();
    return st;
  };
  for (size_t li = 0; li < layers.size(); ++li) {
    const Layer &L = layers[li];
    double tHalo = 0, tFirst = 0, tExchange = 0, tRerun = 0, cpu0 = cpuMs();
    int64_t layerBytes = 0;
    lap();
    // 1. The halo: each rank's last min(n, halo) input rows, gathered.
    std::map<std::string, HostTensor> states;
    for (const TensorInfo &a : L.seq->arguments)
      if (!a.state.empty())
        states[a.state] = initial(a, stateInit);
    // Point to point, not a collective: a rank sends its tail as soon as
    // it has this layer's input and goes on, so rank 0 is never held back
    // by the last rank, which runs one layer behind it (docs/distributed.md).
    Status st = pending; // a failure of the previous layer's rerun, reported below
    if (halo > 0) {
      int64_t rows = std::min(n, halo);
      sendBuffers.emplace_back(h.f32().data() + (n - rows) * width, h.f32().data() + n * width);
      // Ranks after this one that need rows of it: q while fewer than
      // `halo` tokens lie between the end of this slice and q's start.
      int64_t between = 0;
      for (int q = rank + 1; q < size && between < halo; ++q) {
        MPI_Request req;
        if (int rc = MPI_Isend(sendBuffers.back().data(), static_cast<int>(rows * width), MPI_FLOAT,
                               q, static_cast<int>(li), comm, &req);
            rc != MPI_SUCCESS)
          return mpiFailed(rc, "Isend (halo)");
        sends.push_back(req);
        between += lengths[q];
      }
      // The rows just before this slice, oldest first, from the ranks before.
      std::vector<float> before; // filled back to front
      int64_t got = 0;
      for (int r = rank - 1; r >= 0 && got < halo; --r) {
        int64_t have = std::min(lengths[r], halo);
        std::vector<float> buf(static_cast<size_t>(have * width));
        if (int rc = recvIdle(buf.data(), static_cast<int>(buf.size()), MPI_FLOAT, r,
                              static_cast<int>(li), comm);
            rc != MPI_SUCCESS)
          return mpiFailed(rc, "Recv (halo)");
        layerBytes += static_cast<int64_t>(buf.size()) * 4;
        int64_t take = std::min(have, halo - got);
        before.insert(before.begin(), buf.end() - take * width, buf.end());
        got += take;
      }
      HostTensor row;
      row.shape = {1, width};
      row.allocate<float>(static_cast<size_t>(width));
      for (int64_t k = 0; k < got && st.isOk(); ++k) {
        std::memcpy(row.f32().data(), before.data() + k * width, sizeof(float) * width);
        std::vector<HostTensor> sres;
        st = run.call(*L.step, row, states, sres, /*zeroCarries=*/true);
        if (!st.isOk())
          break;
        for (size_t r = 0; r < L.step->results.size(); ++r)
          if (!L.step->results[r].state.empty())
            states[L.step->results[r].state] = std::move(sres[r]);
      }
      // Only the window states are kept: the recurrent ones start from their init.
      for (const Recurrent &rec : L.recurrent) {
        const std::string &name = L.seq->results[rec.state].state;
        auto it = stateInit.find(name);
        for (float &v : states[name].f32())
          v = it == stateInit.end() ? 0.0f : it->second;
      }
    }

    tHalo = lap();
    // 2. The slice from zero recurrent states. Rank 0's run is final (its
    // initial state is zero) and its transition is never used (it
    // multiplies h0_0 = 0); the middle ranks' runs give (T, s); the last
    // rank's (T, s) is used by no one, so it waits for the exchange.
    std::vector<HostTensor> first;
    // A layer without recurrent states (RWKV's channel mix after the pass
    // split the block) is exact from its windows: one run, no exchange.
    const bool windowsOnly = L.recurrent.empty();
    if (st.isOk() && (rank == 0 || windowsOnly)) {
      std::map<std::string, HostTensor> s0 = states;
      st = runPieces(run, *L.plain, L.tplain, h, n, s0, L.recurrent, first, scratch);
    } else if (st.isOk() && rank < size - 1) {
      std::map<std::string, HostTensor> s0 = states;
      st = runPieces(run, *L.seq, L.tseq, h, n, s0, L.recurrent, first, scratch);
    }
    tFirst = lap();
    if (windowsOnly) {
      if (!st.isOk()) { // reported at the next exchange or the final agreement
        pending = st;
        continue;
      }
      out.bytesExchangedPerLayer = std::max(out.bytesExchangedPerLayer, layerBytes);
      if (times)
        std::fprintf(stderr, "ssm distributed: rank %d layer %zu: halo %.1f ms, run %.1f ms; cpu %.1f ms\n",
                     rank, li, tHalo, tFirst, cpuMs() - cpu0);
      run.keepCarries(*L.plain, first);
      h = std::move(first[0]);
      if (rank == size - 1)
        for (int s : L.stateResults)
          out.states.push_back({L.seq->results[s].state,
                                std::vector<float>(first[s].f32().begin(), first[s].f32().end())});
      continue;
    }
    int64_t summaryFloats = 0;
    for (const Recurrent &rec : L.recurrent) {
      int64_t numel = 1;
      for (int64_t d : L.seq->results[rec.state].shape)
        numel *= d;
      summaryFloats += 2 * numel;
    }
    // 3. Exchange (status, T, s) and compose.
    std::vector<float> mine(static_cast<size_t>(1 + summaryFloats), 0.0f),
        all(mine.size() * size);
    mine[0] = st.isOk() ? 1.0f : 0.0f;
    if (st.isOk() && !first.empty()) {
      float *p = mine.data() + 1;
      for (const Recurrent &rec : L.recurrent) {
        int s = rec.state, sum = rec.summary;
        size_t numel = first[s].f32().size();
        if (rank > 0)
          std::copy(first[sum].f32().begin(), first[sum].f32().end(), p);
        p += numel; // rank 0: T_0 stays 0 (unused)
        for (float v : first[s].f32())
          *p++ = v;
      }
    }
    // Summaries flow forward only: rank r sends its own to the ranks after
    // it (without waiting) and receives those of the ranks before it, so no
    // rank ever waits for a later one; the last rank sends nothing. A rank
    // that failed sends its flag 0 and returns; the ranks after it stop on
    // it, the ranks before it at the final agreement.
    if (rank < size - 1) {
      sendBuffers.push_back(mine);
      for (int q = rank + 1; q < size; ++q) {
        MPI_Request req;
        if (int rc = MPI_Isend(sendBuffers.back().data(), static_cast<int>(mine.size()), MPI_FLOAT,
                               q, kSummaryTag + static_cast<int>(li), comm, &req);
            rc != MPI_SUCCESS)
          return mpiFailed(rc, "Isend (summaries)");
        sends.push_back(req);
      }
    }
    for (int r = 0; r < rank; ++r) {
      float *dst = all.data() + static_cast<size_t>(r) * mine.size();
      if (int rc = recvIdle(dst, static_cast<int>(mine.size()), MPI_FLOAT, r,
                            kSummaryTag + static_cast<int>(li), comm);
          rc != MPI_SUCCESS)
        return mpiFailed(rc, "Recv (summaries)");
      layerBytes += static_cast<int64_t>(mine.size()) * 4;
      if (dst[0] != 1.0f && st.isOk())
        st = {Code::Internal, "rank " + std::to_string(r) + " failed (its message is above)"};
    }
    // After a failure a rank goes on exchanging (flag 0, nothing computed)
    // to the end, where every rank agrees on the outcome: no rank is left
    // waiting for a message that would never come.
    if (!st.isOk()) {
      pending = st;
      continue;
    }
    std::vector<HostTensor> *final = &first;
    std::vector<HostTensor> second;
    if (rank > 0) {
      std::vector<float *> x;
      std::vector<HostTensor *> shapes;
      for (const Recurrent &rec : L.recurrent) {
        HostTensor &h0 = states[L.seq->results[rec.state].state];
        x.push_back(h0.f32().data());
        shapes.push_back(&h0);
      }
      for (int r = 0; r < rank; ++r) {
        std::vector<const float *> T, s0;
        const float *p = all.data() + static_cast<size_t>(r) * mine.size() + 1;
        for (HostTensor *t : shapes) {
          T.push_back(p);
          s0.push_back(p + t->f32().size());
          p += 2 * t->f32().size();
        }
        compose(L, x, T, s0, shapes);
      }
      tExchange = lap();
      // 4. The slice again from its true initial states. A failure is
      // reported at the next exchange (or the final agreement): agreeing
      // here would hold rank 0 back until the last rank is done.
      st = runPieces(run, *L.plain, L.tplain, h, n, states, L.recurrent, second, scratch);
      final = &second;
      if (!st.isOk()) // the ranks after this one stop at their next receive; before it, at the end
        pending = st;
      if (!pending.isOk())
        continue;
    }
    out.bytesExchangedPerLayer = std::max(out.bytesExchangedPerLayer, layerBytes);
    if (rank == 0)
      tExchange = lap();
    else
      tRerun = lap();
    if (times)
      std::fprintf(stderr,
                   "ssm distributed: rank %d layer %zu: halo %.1f ms, first run %.1f ms, exchange "
                   "%.1f ms, rerun %.1f ms; cpu %.1f ms\n",
                   rank, li, tHalo, tFirst, tExchange, tRerun, cpuMs() - cpu0);
    run.keepCarries(*L.plain, *final);
    h = std::move((*final)[0]);
    if (rank == size - 1)
      for (int s : L.stateResults) {
        const HostTensor &t = (*final)[s];
        out.states.push_back({L.seq->results[s].state,
                              std::vector<float>(t.f32().begin(), t.f32().end())});
      }
  }

  finishSends(Status::ok());
  if (Status st = agree(pending); !st.isOk())
    return pending.isOk() ? st : pending;
  if (rank == size - 1) {
    // The head on the last call's rows (it reads the last row).
    const rt::FunctionInfo *last = rest != 0 ? tailHead : head;
    std::vector<int64_t> shape = h.shape;
    shape[0] = rowsOf(*last);
    std::vector<HostTensor> logits;
    if (shape[0] < 1 || shape[0] > n)
      return {Code::Mismatch, "@dist_head takes " + std::to_string(shape[0]) + " rows"};
    if (Status st = run.call(*last, rowView(h, n - shape[0], shape), {}, logits); !st.isOk())
      return st;
    out.logits.assign(logits[0].f32().begin(), logits[0].f32().end());
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return Status::ok();
}

} // namespace ssm::dist
