// ssm_runtime.hpp: a thin, header-only C++17 wrapper over the C API (ssm_runtime.h).
//
//   ssm::runtime::Model model("deploy/rwkv4");          // throws ssm::runtime::Error
//   ssm::runtime::Stream stream(model);
//   stream.prefill(prompt);                             // std::vector<int32_t>
//   std::vector<float> logits = stream.step(token);
//   stream.save("after-prompt.ssmstate");
//
//   ssm::runtime::Tokenizer tok("deploy/qwen3");        // or .../tokenizer.json
//   std::vector<int32_t> ids = tok.encode("Hello World");
//   std::string text = tok.decode(ids);
//
//   ssm_sampling_params_t p = ssm_sampling_params_default();
//   p.temperature = 0.8f; p.top_p = 0.95f; p.seed = 42;
//   ssm::runtime::Sampler sampler(p);
//   stream.prefill(ids);
//   sampler.accept(ids);                                // the prompt in the penalty window
//   ssm::runtime::GenerateOptions g;
//   g.sampler = &sampler; g.tokenizer = &tok; g.stop = {"\n\n"};
//   g.onText = [](int32_t, std::string_view t) { std::cout << t << std::flush; return true; };
//   ssm::runtime::Generation out = ssm::runtime::generate(stream, 64, g);
//
// Failures throw ssm::runtime::Error, which carries the C status code and the
// library's message; the C API underneath never throws. Handles are
// move-only and freed by the destructors (free streams before their model).
#ifndef SSM_RUNTIME_HPP
#define SSM_RUNTIME_HPP

#include "ssm_runtime.h"

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ssm::runtime {

class Error : public std::runtime_error {
public:
  Error(ssm_status_t status, const std::string &message)
      : std::runtime_error(message), status_(status) {}
  ssm_status_t status() const { return status_; }

private:
  ssm_status_t status_;
};

inline void check(ssm_status_t s) {
  if (s != SSM_OK)
    throw Error(s, ssm_last_error());
}

struct StateInfo {
  std::string name;
  std::vector<int64_t> shape;
  size_t numel = 0;
  /// SSM_STATE_FIXED, or SSM_STATE_CACHE with `axis` the dim positions index
  /// (shape[axis] positions at most); axis is -1 for a fixed state.
  ssm_state_kind_t kind = SSM_STATE_FIXED;
  int axis = -1;
};

class Model {
public:
  /// A model folder: model.json, weights.safetensors, compiled/*/; `flags`:
  /// SSM_MODEL_* (SSM_MODEL_MAP_WEIGHTS maps the weights instead of reading them).
  explicit Model(const std::string &dir, unsigned flags = 0) {
    check(ssm_model_open_flags(dir.c_str(), flags, &handle_));
  }
  /// With options (ssm_model_open_options): the KV caches' capacity in
  /// positions (`options.context_length`; 0: the model's own) and the flags.
  Model(const std::string &dir, const ssm_model_options_t &options) {
    check(ssm_model_open_options(dir.c_str(), &options, &handle_));
  }
  /// The options with a capacity of `contextLength` positions (0: the model's).
  static ssm_model_options_t withContext(int64_t contextLength, unsigned flags = 0) {
    ssm_model_options_t o = ssm_model_options_default();
    o.flags = flags;
    o.context_length = contextLength;
    return o;
  }
  ~Model() { ssm_model_free(handle_); }
  Model(Model &&o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}
  Model &operator=(Model &&o) noexcept {
    std::swap(handle_, o.handle_);
    return *this;
  }
  Model(const Model &) = delete;
  Model &operator=(const Model &) = delete;

  void addModule(const std::string &dir) { check(ssm_model_add_module(handle_, dir.c_str())); }
  void setThreads(int n) { check(ssm_model_set_threads(handle_, n)); }
  int64_t vocabSize() const { return ssm_model_vocab_size(handle_); }
  bool hasStep() const { return ssm_model_has_step(handle_) != 0; }
  /// Streams per call of the batched step function stepTogether uses (0: none).
  int64_t stepBatch() const { return ssm_model_step_batch(handle_); }
  /// Streams per call of the batched sequence function prefillTogether uses (0: none).
  int64_t prefillBatch() const { return ssm_model_prefill_batch(handle_); }
  std::vector<int64_t> sequenceLengths() const {
    std::vector<int64_t> l(ssm_model_sequence_lengths(handle_, nullptr, 0));
    ssm_model_sequence_lengths(handle_, l.data(), l.size());
    return l;
  }
  std::vector<StateInfo> states() const {
    std::vector<StateInfo> out(ssm_model_state_count(handle_));
    for (size_t i = 0; i < out.size(); ++i) {
      const char *name;
      const int64_t *shape;
      size_t rank;
      check(ssm_model_state_info(handle_, i, &name, &shape, &rank, &out[i].numel));
      out[i].name = name;
      out[i].shape.assign(shape, shape + rank);
      check(ssm_model_state_kind(handle_, i, &out[i].kind, &out[i].axis));
    }
    return out;
  }
  /// The positions a stream can hold (its cache states' least capacity, as
  /// opened); 0: unbounded (no cache state). Past it, prefill and step throw
  /// SSM_ERROR_CONTEXT_FULL.
  int64_t contextLength() const { return ssm_model_context_length(handle_); }
  /// One stream's state bytes (ssm_model_state_bytes): fixed states, the KV
  /// rows written at `position`, the KV caches as allocated.
  struct StateBytes {
    size_t fixed = 0, cache = 0, cacheAllocated = 0;
  };
  StateBytes stateBytes(int64_t position) const {
    StateBytes b;
    ssm_model_state_bytes(handle_, position, &b.fixed, &b.cache, &b.cacheAllocated);
    return b;
  }
  ssm_model_t *get() const { return handle_; }

private:
  ssm_model_t *handle_ = nullptr;
};

class Stream {
public:
  explicit Stream(Model &model) : model_(model.get()) {
    check(ssm_stream_create(model.get(), &handle_));
  }
  ~Stream() { ssm_stream_free(handle_); }
  Stream(Stream &&o) noexcept : handle_(std::exchange(o.handle_, nullptr)), model_(o.model_) {}
  Stream &operator=(Stream &&o) noexcept {
    std::swap(handle_, o.handle_);
    std::swap(model_, o.model_);
    return *this;
  }
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;

  void reset() { check(ssm_stream_reset(handle_)); }
  /// Runs the tokens; returns the logits after the last one.
  std::vector<float> prefill(const std::vector<int32_t> &tokens) {
    check(ssm_stream_prefill(handle_, tokens.data(), tokens.size(), nullptr));
    return logits();
  }
  /// Runs the tokens; returns every position's logits (tokens.size() x vocab).
  std::vector<float> prefillAll(const std::vector<int32_t> &tokens) {
    std::vector<float> all(tokens.size() * vocab());
    check(ssm_stream_prefill(handle_, tokens.data(), tokens.size(), all.data()));
    return all;
  }
  std::vector<float> step(int32_t token) {
    const float *l;
    check(ssm_stream_step(handle_, token, &l));
    return std::vector<float>(l, l + vocab());
  }
  /// The logits after the last token.
  std::vector<float> logits() const {
    const float *l;
    check(ssm_stream_logits(handle_, &l));
    return std::vector<float>(l, l + vocab());
  }
  int64_t position() const { return ssm_stream_position(handle_); }
  /// The first NaN or infinity in the logits, then the states
  /// ("logits[i] = nan", "state 'name'[i] = inf"), or "" when all are finite.
  std::string firstNonFinite() const {
    size_t n = 0;
    check(ssm_stream_first_nonfinite(handle_, nullptr, 0, &n));
    std::string text(n + 1, '\0');
    check(ssm_stream_first_nonfinite(handle_, text.data(), text.size(), &n));
    text.resize(n);
    return text;
  }
  std::vector<float> state(const std::string &name, size_t numel) const {
    std::vector<float> v(numel);
    check(ssm_stream_get_state(handle_, name.c_str(), v.data(), numel));
    return v;
  }
  void setState(const std::string &name, const std::vector<float> &v) {
    check(ssm_stream_set_state(handle_, name.c_str(), v.data(), v.size()));
  }
  void save(const std::string &path) const { check(ssm_stream_save_state(handle_, path.c_str())); }
  void load(const std::string &path) { check(ssm_stream_load_state(handle_, path.c_str())); }
  ssm_stream_t *get() const { return handle_; }
  ssm_model_t *model() const { return model_; }

private:
  size_t vocab() const { return static_cast<size_t>(ssm_model_vocab_size(model_)); }
  ssm_stream_t *handle_ = nullptr;
  ssm_model_t *model_ = nullptr;
};

/// Steps streams[i] on tokens[i] together (ssm_streams_step: through the
/// model's batched step function when it has one); returns each stream's
/// logits after its token.
inline std::vector<std::vector<float>> stepTogether(const std::vector<Stream *> &streams,
                                                    const std::vector<int32_t> &tokens) {
  if (streams.size() != tokens.size())
    throw std::invalid_argument("stepTogether: one token per stream");
  std::vector<ssm_stream_t *> handles;
  for (Stream *s : streams)
    handles.push_back(s->get());
  std::vector<const float *> logits(streams.size());
  check(ssm_streams_step(handles.data(), handles.size(), tokens.data(), logits.data()));
  std::vector<std::vector<float>> out;
  for (size_t i = 0; i < streams.size(); ++i) {
    size_t vocab = static_cast<size_t>(ssm_model_vocab_size(streams[i]->model()));
    out.emplace_back(logits[i], logits[i] + vocab);
  }
  return out;
}

/// Prefills streams[i] (of one model) with prompts[i] together
/// (ssm_streams_prefill: the calls of a length with a batched sequence
/// function run together); returns each stream's logits after its prompt.
inline std::vector<std::vector<float>> prefillTogether(
    const std::vector<Stream *> &streams, const std::vector<std::vector<int32_t>> &prompts) {
  if (streams.size() != prompts.size())
    throw std::invalid_argument("prefillTogether: one prompt per stream");
  std::vector<ssm_stream_t *> handles;
  std::vector<const int32_t *> tokens;
  std::vector<size_t> counts;
  for (size_t i = 0; i < streams.size(); ++i) {
    handles.push_back(streams[i]->get());
    tokens.push_back(prompts[i].data());
    counts.push_back(prompts[i].size());
  }
  std::vector<const float *> logits(streams.size());
  check(ssm_streams_prefill(handles.data(), handles.size(), tokens.data(), counts.data(),
                            logits.data()));
  std::vector<std::vector<float>> out;
  for (size_t i = 0; i < streams.size(); ++i) {
    size_t vocab = static_cast<size_t>(ssm_model_vocab_size(streams[i]->model()));
    out.emplace_back(logits[i], logits[i] + vocab);
  }
  return out;
}

/// A Hugging Face tokenizer.json (ssm_tokenizer_*): text to token ids and back.
class Tokenizer {
public:
  /// A tokenizer.json, or a folder holding one (tokenizer_config.json beside it
  /// names the special tokens).
  explicit Tokenizer(const std::string &path) { check(ssm_tokenizer_open(path.c_str(), &handle_)); }
  ~Tokenizer() { ssm_tokenizer_free(handle_); }
  Tokenizer(Tokenizer &&o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}
  Tokenizer &operator=(Tokenizer &&o) noexcept {
    std::swap(handle_, o.handle_);
    return *this;
  }
  Tokenizer(const Tokenizer &) = delete;
  Tokenizer &operator=(const Tokenizer &) = delete;

  /// The ids of UTF-8 `text`; `addSpecial` adds the template's special tokens (bos ...).
  std::vector<int32_t> encode(const std::string &text, bool addSpecial = false) const {
    const unsigned flags = addSpecial ? SSM_TOKENIZE_ADD_SPECIAL : 0u;
    // Rarely more ids than bytes and a few (a prepended '▁', the template); else a second call.
    std::vector<int32_t> ids(text.size() + 8);
    size_t n = 0;
    check(ssm_tokenizer_encode(handle_, text.data(), text.size(), flags, ids.data(), ids.size(), &n));
    if (n > ids.size()) {
      ids.resize(n);
      check(ssm_tokenizer_encode(handle_, text.data(), text.size(), flags, ids.data(), ids.size(), &n));
    }
    ids.resize(n);
    return ids;
  }
  /// The text of `ids`; `skipSpecial` leaves special tokens out.
  std::string decode(const std::vector<int32_t> &ids, bool skipSpecial = false) const {
    const unsigned flags = skipSpecial ? SSM_DETOKENIZE_SKIP_SPECIAL : 0u;
    size_t length = 0;
    check(ssm_tokenizer_decode(handle_, ids.data(), ids.size(), flags, nullptr, 0, &length));
    std::string text(length + 1, '\0');
    check(ssm_tokenizer_decode(handle_, ids.data(), ids.size(), flags, text.data(), text.size(), &length));
    text.resize(length);
    return text;
  }
  int64_t vocabSize() const { return ssm_tokenizer_vocab_size(handle_); }
  /// -1 where the tokenizer has none.
  int32_t bos() const { return ssm_tokenizer_special_id(handle_, SSM_TOKEN_BOS); }
  int32_t eos() const { return ssm_tokenizer_special_id(handle_, SSM_TOKEN_EOS); }
  int32_t pad() const { return ssm_tokenizer_special_id(handle_, SSM_TOKEN_PAD); }
  int32_t unk() const { return ssm_tokenizer_special_id(handle_, SSM_TOKEN_UNK); }
  /// The id of a token as the vocabulary spells it, -1 if none.
  int32_t tokenId(const std::string &token) const { return ssm_tokenizer_token_id(handle_, token.c_str()); }
  /// The vocabulary's spelling of token `id` (throws when there is none).
  std::string tokenText(int32_t id) const {
    const char *t;
    check(ssm_tokenizer_token_text(handle_, id, &t, nullptr));
    return t;
  }
  bool isSpecial(int32_t id) const {
    const char *t;
    int special = 0;
    return ssm_tokenizer_token_text(handle_, id, &t, &special) == SSM_OK && special;
  }
  ssm_tokenizer_t *get() const { return handle_; }

private:
  ssm_tokenizer_t *handle_ = nullptr;
};

/// A sampler (ssm_sampler_*): one per stream, seeded; see ssm_runtime.h for
/// the filters and their order.
class Sampler {
public:
  /// Greedy and no penalties unless `params` says otherwise (throws
  /// SSM_ERROR_INVALID_ARGUMENT naming a field out of its range).
  explicit Sampler(const ssm_sampling_params_t &params = ssm_sampling_params_default()) {
    check(ssm_sampler_create(&params, &handle_));
  }
  ~Sampler() { ssm_sampler_free(handle_); }
  Sampler(Sampler &&o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}
  Sampler &operator=(Sampler &&o) noexcept {
    std::swap(handle_, o.handle_);
    return *this;
  }
  Sampler(const Sampler &) = delete;
  Sampler &operator=(const Sampler &) = delete;

  /// Chooses a token from the logits and adds it to the penalty window.
  int32_t sample(const std::vector<float> &logits) {
    int32_t t = -1;
    check(ssm_sampler_sample(handle_, logits.data(), logits.size(), &t));
    return t;
  }
  /// Adds tokens (a prompt's) to the penalty window.
  void accept(const std::vector<int32_t> &tokens) {
    check(ssm_sampler_accept(handle_, tokens.data(), tokens.size()));
  }
  /// Back to a new sampler's state with this seed.
  void reset(uint64_t seed) { check(ssm_sampler_reset(handle_, seed)); }
  ssm_sampler_t *get() const { return handle_; }

private:
  ssm_sampler_t *handle_ = nullptr;
};

/// What ssm_stream_generate takes besides the stream and the count.
struct GenerateOptions {
  Sampler *sampler = nullptr;          // null: greedy
  const Tokenizer *tokenizer = nullptr; // the text; null: bytes for a byte-token model
  std::vector<int32_t> stopTokens;     // besides the tokenizer's eos
  std::vector<std::string> stop;       // stop strings
  /// Each token handed out and the text final with it (token -1: the text
  /// held back, at the end); false stops.
  std::function<bool(int32_t token, std::string_view text)> onText;
};

/// What a generation gave.
struct Generation {
  std::vector<int32_t> tokens; // handed out (the last one not stepped)
  std::string text;            // their text, up to a stop string
  ssm_stop_reason_t reason = SSM_STOP_MAX_TOKENS;
};

/// ssm_stream_generate: up to `maxTokens` from the stream's logits.
inline Generation generate(Stream &stream, int64_t maxTokens, const GenerateOptions &options = {}) {
  struct Context {
    const GenerateOptions &options;
    Generation out;
  } ctx{options, {}};
  std::vector<const char *> stops;
  for (const std::string &s : options.stop)
    stops.push_back(s.c_str());
  auto callback = [](void *user, int32_t token, const char *text, size_t length) -> int {
    auto &c = *static_cast<Context *>(user);
    if (token >= 0)
      c.out.tokens.push_back(token);
    c.out.text.append(text, length);
    return c.options.onText && !c.options.onText(token, std::string_view(text, length)) ? 1 : 0;
  };
  int64_t n = 0;
  check(ssm_stream_generate(stream.get(), options.sampler ? options.sampler->get() : nullptr,
                            options.tokenizer ? options.tokenizer->get() : nullptr, maxTokens,
                            options.stopTokens.data(), options.stopTokens.size(), stops.data(),
                            stops.size(), callback, &ctx, &n, &ctx.out.reason));
  return std::move(ctx.out);
}

} // namespace ssm::runtime

#endif
