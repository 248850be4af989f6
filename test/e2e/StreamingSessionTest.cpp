// Streaming through a compiled module's functions (prefill with the scan, then
// decode with selective_update, the state carried between the calls by its
// ssm.state name) gives what one scan over the whole sequence gives.
#include "StateGraphs.h" // t() and random()

#include <map>

namespace {

using state_graphs::random;
using state_graphs::t;

constexpr int kDim = 64, kN = 16, kPrompt = 32, kSteps = 4, kTotal = kPrompt + kSteps;

std::string moduleText() {
  std::string A = t({kDim, kN}), D = t({kDim}), st = t({1, kDim, kN});
  auto scan = [&](const std::string &name, int len, bool withState) {
    std::string seq = t({1, len, kDim}), bc = t({1, len, kN});
    std::string s = "func.func @" + name + "(";
    if (withState)
      s += "%h0: " + st + " {ssm.state = \"h\"}, ";
    s += "%u: " + seq + ", %dt: " + seq + ", %A: " + A + ", %B: " + bc + ", %C: " + bc +
         ", %D: " + D + ") -> (" + seq + ", " + st + (withState ? " {ssm.state = \"h\"}" : "") +
         ") {\n  %y, %h = ssm.selective_scan time_major %u, %dt, %A, %B, %C D(%D)" +
         (withState ? " h0(%h0)" : "") + " {delta_softplus} : (" + seq + ", " + seq + ", " + A +
         ", " + bc + ", " + bc + ", " + D + (withState ? ", " + st : "") + ") -> (" + seq + ", " +
         st + ")\n  return %y, %h : " + seq + ", " + st + "\n}\n";
    return s;
  };
  std::string x = t({1, kDim}), bn = t({1, kN});
  std::string decode = "func.func @decode(%s: " + st + " {ssm.state = \"h\"}, %x: " + x +
                       ", %dt: " + x + ", %A: " + A + ", %B: " + bn + ", %C: " + bn + ", %D: " + D +
                       ") -> (" + x + ", " + st + " {ssm.state = \"h\"}) {\n" +
                       "  %y, %s2 = ssm.selective_update %s, %x, %dt, %A, %B, %C D(%D) {dt_softplus} : (" +
                       st + ", " + x + ", " + x + ", " + A + ", " + bn + ", " + bn + ", " + D +
                       ") -> (" + x + ", " + st + ")\n  return %y, %s2 : " + x + ", " + st + "\n}\n";
  return scan("prefill", kPrompt, true) + decode + scan("full", kTotal, false);
}

/// Calls of a module's functions with their ssm.state arguments and results
/// carried between calls by name (zeros at the start), the other arguments
/// given in order: what the model library's streams do for model folders.
class Carried {
public:
  explicit Carried(ssm::rt::CompiledModule &module) : module_(module) {}

  bool call(const std::string &name, const std::vector<const ssm::rt::HostTensor *> &inputs,
            std::vector<ssm::rt::HostTensor> &outputs, std::string &error) {
    const ssm::rt::FunctionInfo *fn = module_.find(name);
    if (!fn) {
      error = "no function @" + name;
      return false;
    }
    std::vector<const ssm::rt::HostTensor *> args;
    size_t next = 0;
    for (const ssm::rt::TensorInfo &a : fn->arguments) {
      if (a.state.empty()) {
        if (next >= inputs.size())
          return error = "too few inputs", false;
        args.push_back(inputs[next++]);
        continue;
      }
      ssm::rt::HostTensor &st = states_[a.state];
      if (st.storage.empty()) {
        st.shape = a.shape;
        int64_t n = 1;
        for (int64_t d : a.shape)
          n *= d;
        st.allocate<float>(static_cast<size_t>(n), 0.0f);
      }
      args.push_back(&st);
    }
    std::vector<ssm::rt::HostTensor> results;
    auto bound = module_.bind(*fn, args, results, error);
    if (!bound || !bound->invoke(error))
      return false;
    outputs.clear();
    for (size_t i = 0; i < fn->results.size(); ++i) {
      if (fn->results[i].state.empty())
        outputs.push_back(std::move(results[i]));
      else
        states_[fn->results[i].state] = std::move(results[i]);
    }
    return true;
  }
  void reset() {
    for (auto &[name, t] : states_)
      std::fill(t.f32().begin(), t.f32().end(), 0.0f);
  }
  const ssm::rt::HostTensor *state(const std::string &name) const {
    auto it = states_.find(name);
    return it == states_.end() ? nullptr : &it->second;
  }

private:
  ssm::rt::CompiledModule &module_;
  std::map<std::string, ssm::rt::HostTensor> states_;
};

/// Rows [t0, t0 + len) of a time-major (1, L, C) tensor.
ssm::rt::HostTensor rows(const ssm::rt::HostTensor &x, int t0, int len, bool keepTime = true) {
  int c = static_cast<int>(x.shape[2]);
  ssm::rt::HostTensor r;
  r.shape = keepTime ? std::vector<int64_t>{1, len, c} : std::vector<int64_t>{1, c};
  r.assign<float>(x.f32().begin() + t0 * c, x.f32().begin() + (t0 + len) * c);
  return r;
}

TEST(StreamingSessionTest, PrefillThenDecodeMatchesOneScan) {
  const char *compiler = SSM_COMPILE_PATH;
  std::string dir = ::testing::TempDir() + "ssm-streaming-" + std::to_string(getpid());
  std::string mlir = dir + ".mlir";
  std::ofstream(mlir) << moduleText();
  std::string cmd = std::string(compiler) + " " + mlir + " -o " + dir + " --force";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::string error;
  auto module = ssm::rt::CompiledModule::load(dir, error);
  ASSERT_TRUE(module) << error;

  std::mt19937 rng(7);
  auto u = random({1, kTotal, kDim}, rng, -1, 1), dt = random({1, kTotal, kDim}, rng, -1, 1);
  auto B = random({1, kTotal, kN}, rng, -1, 1), C = random({1, kTotal, kN}, rng, -1, 1);
  auto A = random({kDim, kN}, rng, -2, -0.1f), D = random({kDim}, rng, 0.5f, 1.5f);

  std::vector<ssm::rt::HostTensor> full;
  Carried oneShot(*module);
  ASSERT_TRUE(oneShot.call("full", {&u, &dt, &A, &B, &C, &D}, full, error)) << error;

  Carried session(*module);
  std::vector<ssm::rt::HostTensor> out;
  auto up = rows(u, 0, kPrompt), dtp = rows(dt, 0, kPrompt), Bp = rows(B, 0, kPrompt),
       Cp = rows(C, 0, kPrompt);
  ASSERT_TRUE(session.call("prefill", {&up, &dtp, &A, &Bp, &Cp, &D}, out, error)) << error;
  std::vector<float> y(out[0].f32().begin(), out[0].f32().end());
  for (int s = 0; s < kSteps; ++s) {
    auto x = rows(u, kPrompt + s, 1, false), d = rows(dt, kPrompt + s, 1, false),
         b = rows(B, kPrompt + s, 1, false), c = rows(C, kPrompt + s, 1, false);
    ASSERT_TRUE(session.call("decode", {&x, &d, &A, &b, &c, &D}, out, error)) << error;
    y.insert(y.end(), out[0].f32().begin(), out[0].f32().end());
  }
  ASSERT_EQ(y.size(), full[0].f32().size());
  for (size_t i = 0; i < y.size(); ++i)
    EXPECT_NEAR(y[i], full[0].f32()[i], 1e-5 + 1e-4 * std::fabs(full[0].f32()[i])) << "element " << i;
  const ssm::rt::HostTensor *h = session.state("h");
  ASSERT_TRUE(h);
  for (size_t i = 0; i < h->f32().size(); ++i)
    EXPECT_NEAR(h->f32()[i], full[1].f32()[i], 1e-5 + 1e-4 * std::fabs(full[1].f32()[i]));

  // A reset starts a new sequence: prefill again gives the first output again.
  session.reset();
  ASSERT_TRUE(session.call("prefill", {&up, &dtp, &A, &Bp, &Cp, &D}, out, error)) << error;
  for (int i = 0; i < kPrompt * kDim; ++i)
    EXPECT_FLOAT_EQ(out[0].f32()[i], y[i]);
}

} // namespace
