// The C API (ssm_runtime.h) over Model and Stream: status codes, thread-local messages, no exceptions out.
#include "runtime/ssm_runtime.h"

#include "runtime/CApiHandles.h"
#include "runtime/CApiSupport.h"
#include "runtime/Model.h"
#include "runtime/Shape.h"

#include <dlpack/dlpack.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>
#include <new>
#include <string>


using ssm::rt::Status;
using ssm::rt::capi::fail;
using ssm::rt::capi::guarded;
using ssm::rt::capi::report;

namespace {
thread_local std::string lastError;
} // namespace

ssm_status_t ssm::rt::capi::fail(ssm_status_t code, std::string message) {
  lastError = std::move(message);
  return code;
}

extern "C" {

const char *ssm_runtime_version(void) { return "0.11.0"; }

const char *ssm_status_name(ssm_status_t s) {
  switch (s) {
  case SSM_OK: return "SSM_OK";
  case SSM_ERROR_INVALID_ARGUMENT: return "SSM_ERROR_INVALID_ARGUMENT";
  case SSM_ERROR_NOT_FOUND: return "SSM_ERROR_NOT_FOUND";
  case SSM_ERROR_INVALID_FILE: return "SSM_ERROR_INVALID_FILE";
  case SSM_ERROR_MISMATCH: return "SSM_ERROR_MISMATCH";
  case SSM_ERROR_UNSUPPORTED: return "SSM_ERROR_UNSUPPORTED";
  case SSM_ERROR_KERNEL_FAILED: return "SSM_ERROR_KERNEL_FAILED";
  case SSM_ERROR_OUT_OF_MEMORY: return "SSM_ERROR_OUT_OF_MEMORY";
  case SSM_ERROR_INTERNAL: return "SSM_ERROR_INTERNAL";
  case SSM_ERROR_CONTEXT_FULL: return "SSM_ERROR_CONTEXT_FULL";
  }
  return "SSM_ERROR_UNKNOWN";
}

const char *ssm_last_error(void) { return lastError.c_str(); }

ssm_status_t ssm_model_open(const char *dir, ssm_model_t **out) {
  return ssm_model_open_flags(dir, 0, out);
}

ssm_status_t ssm_model_open_flags(const char *dir, unsigned flags, ssm_model_t **out) {
  ssm_model_options_t o = ssm_model_options_default();
  o.flags = flags;
  return ssm_model_open_options(dir, &o, out);
}

ssm_model_options_t ssm_model_options_default(void) {
  ssm_model_options_t o{};
  o.struct_size = sizeof o;
  o.flags = 0;
  o.context_length = 0;
  return o;
}

ssm_status_t ssm_model_open_options(const char *dir, const ssm_model_options_t *options,
                                    ssm_model_t **out) {
  SSM_REQUIRE(out, "out is NULL");
  *out = nullptr;
  SSM_REQUIRE(dir, "dir is NULL");
  // The caller's struct as far as it goes (an older header's is shorter);
  // the fields past it keep their defaults.
  ssm_model_options_t o = ssm_model_options_default();
  if (options) {
    SSM_REQUIRE(options->struct_size >= offsetof(ssm_model_options_t, flags) + sizeof(unsigned),
                "options->struct_size " + std::to_string(options->struct_size) +
                    " is too small (set it to sizeof(ssm_model_options_t), or start from "
                    "ssm_model_options_default())");
    std::memcpy(&o, options, std::min(options->struct_size, sizeof o));
    o.struct_size = sizeof o;
  }
  const unsigned flags = o.flags;
  SSM_REQUIRE((flags & ~unsigned(SSM_MODEL_MAP_WEIGHTS)) == 0,
              "unknown flags (SSM_MODEL_MAP_WEIGHTS is the only one)");
  SSM_REQUIRE(o.context_length >= 0,
              "context_length " + std::to_string(o.context_length) +
                  " is negative (0: the model's own, model.json's)");
  return guarded([&] {
    Status s;
    auto m = ssm::rt::Model::open(dir, s,
                                  flags & SSM_MODEL_MAP_WEIGHTS ? ssm::rt::WeightLoad::Map
                                                                : ssm::rt::WeightLoad::Copy,
                                  o.context_length);
    if (!m) {
      // ModelSpec::withContext's errors name the command-line flag (ssm-run
      // and ssm-serve share them); a C caller set the field instead. Other
      // messages keep theirs ("import it again with --context" is ssm-import's).
      std::string msg = s.message();
      const std::string flag = "--context ", tail = "give a smaller --context";
      if (o.context_length != 0 && msg.rfind(flag, 0) == 0) {
        msg.replace(0, flag.size(), "context_length ");
        if (size_t at = msg.find(tail); at != std::string::npos)
          msg.replace(at, tail.size(), "give a smaller context_length");
      }
      return report(Status(s.code(), msg));
    }
    *out = new ssm_model{std::move(m)};
    return SSM_OK;
  });
}

ssm_status_t ssm_model_add_module(ssm_model_t *model, const char *module_dir) {
  SSM_REQUIRE(model && module_dir, "model or module_dir is NULL");
  return guarded([&] { return report(model->impl->addModule(module_dir)); });
}

void ssm_model_free(ssm_model_t *model) { delete model; }

int64_t ssm_model_vocab_size(const ssm_model_t *model) { return model ? model->impl->vocab() : 0; }

size_t ssm_model_sequence_lengths(const ssm_model_t *model, int64_t *lengths, size_t capacity) {
  if (!model)
    return 0;
  std::vector<int64_t> l = model->impl->sequenceLengths();
  for (size_t i = 0; lengths && i < l.size() && i < capacity; ++i)
    lengths[i] = l[i];
  return l.size();
}

int ssm_model_has_step(const ssm_model_t *model) { return model && model->impl->hasStep(); }

int64_t ssm_model_step_batch(const ssm_model_t *model) {
  return model ? model->impl->stepBatch() : 0;
}

int64_t ssm_model_prefill_batch(const ssm_model_t *model) {
  return model ? model->impl->prefillBatch() : 0;
}

ssm_status_t ssm_model_set_threads(ssm_model_t *model, int threads) {
  SSM_REQUIRE(model, "model is NULL");
  SSM_REQUIRE(threads >= 0, "threads must be >= 0");
  model->impl->setThreads(threads);
  return SSM_OK;
}

size_t ssm_model_state_count(const ssm_model_t *model) {
  return model ? model->impl->spec().states.size() : 0;
}

ssm_status_t ssm_model_state_info(const ssm_model_t *model, size_t index, const char **name,
                                  const int64_t **shape, size_t *rank, size_t *numel) {
  SSM_REQUIRE(model, "model is NULL");
  const auto &states = model->impl->spec().states;
  SSM_REQUIRE(index < states.size(), "index " + std::to_string(index) + " >= the " +
                                         std::to_string(states.size()) + " states");
  const ssm::rt::StateSpec &s = states[index];
  if (name)
    *name = s.name.c_str();
  if (shape)
    *shape = s.shape.data();
  if (rank)
    *rank = s.shape.size();
  if (numel)
    *numel = static_cast<size_t>(s.numel);
  return SSM_OK;
}

ssm_status_t ssm_model_state_kind(const ssm_model_t *model, size_t index, ssm_state_kind_t *kind,
                                  int *axis) {
  SSM_REQUIRE(model, "model is NULL");
  const auto &states = model->impl->spec().states;
  SSM_REQUIRE(index < states.size(), "index " + std::to_string(index) + " >= the " +
                                         std::to_string(states.size()) + " states");
  const ssm::rt::StateSpec &s = states[index];
  if (kind)
    *kind = s.kind == ssm::rt::StateKind::Cache ? SSM_STATE_CACHE : SSM_STATE_FIXED;
  if (axis)
    *axis = s.axis;
  return SSM_OK;
}

int64_t ssm_model_context_length(const ssm_model_t *model) {
  return model ? model->impl->spec().contextLength() : 0;
}

void ssm_model_state_bytes(const ssm_model_t *model, int64_t position, size_t *fixed_bytes,
                           size_t *cache_bytes, size_t *cache_allocated_bytes) {
  int64_t fixed = 0, perPosition = 0, allocated = 0;
  if (model)
    model->impl->spec().stateBytes(fixed, perPosition, allocated);
  int64_t capacity = model ? model->impl->spec().contextLength() : 0;
  int64_t rows = position < 0 ? 0 : (capacity > 0 ? std::min(position, capacity) : 0);
  if (fixed_bytes)
    *fixed_bytes = static_cast<size_t>(fixed);
  if (cache_bytes)
    *cache_bytes = static_cast<size_t>(rows * perPosition);
  if (cache_allocated_bytes)
    *cache_allocated_bytes = static_cast<size_t>(allocated);
}

void ssm_model_weight_bytes(const ssm_model_t *model, size_t *file_bytes, size_t *mapped_bytes,
                            size_t *converted_bytes) {
  ssm::rt::WeightFile *w = model ? &model->impl->weights() : nullptr;
  if (file_bytes)
    *file_bytes = w ? w->fileBytes() : 0;
  if (mapped_bytes)
    *mapped_bytes = w ? w->mappedBytes() : 0;
  if (converted_bytes)
    *converted_bytes = w ? w->convertedBytes() : 0;
}

ssm_status_t ssm_stream_create(ssm_model_t *model, ssm_stream_t **out) {
  SSM_REQUIRE(out, "out is NULL");
  *out = nullptr;
  SSM_REQUIRE(model, "model is NULL");
  return guarded([&] {
    *out = new ssm_stream{std::make_unique<ssm::rt::Stream>(*model->impl)};
    return SSM_OK;
  });
}

void ssm_stream_free(ssm_stream_t *stream) { delete stream; }

ssm_status_t ssm_stream_reset(ssm_stream_t *stream) {
  SSM_REQUIRE(stream, "stream is NULL");
  stream->impl->reset();
  return SSM_OK;
}

ssm_status_t ssm_stream_prefill(ssm_stream_t *stream, const int32_t *tokens, size_t n,
                                float *all_logits) {
  SSM_REQUIRE(stream && tokens, "stream or tokens is NULL");
  return guarded([&] {
    if (!all_logits)
      return report(stream->impl->prefill(tokens, n));
    std::vector<float> all;
    if (ssm_status_t s = report(stream->impl->prefill(tokens, n, &all)))
      return s;
    std::memcpy(all_logits, all.data(), all.size() * sizeof(float));
    return SSM_OK;
  });
}

ssm_status_t ssm_stream_step(ssm_stream_t *stream, int32_t token, const float **logits) {
  SSM_REQUIRE(stream, "stream is NULL");
  return guarded([&] {
    if (ssm_status_t s = report(stream->impl->step(token)))
      return s;
    if (logits)
      *logits = stream->impl->logits().data();
    return SSM_OK;
  });
}

ssm_status_t ssm_streams_step(ssm_stream_t *const *streams, size_t n, const int32_t *tokens,
                              const float **logits) {
  SSM_REQUIRE(streams && tokens, "streams or tokens is NULL");
  SSM_REQUIRE(n > 0, "n is 0");
  // Checked before anything runs, so a bad argument steps no stream.
  for (size_t i = 0; i < n; ++i) {
    SSM_REQUIRE(streams[i], "streams[" + std::to_string(i) + "] is NULL");
    for (size_t j = 0; j < i; ++j)
      SSM_REQUIRE(streams[j] != streams[i], "streams[" + std::to_string(j) + "] and streams[" +
                                                std::to_string(i) + "] are the same stream");
    int64_t vocab = streams[i]->impl->model().vocab();
    SSM_REQUIRE(tokens[i] >= 0 && (vocab <= 0 || tokens[i] < vocab),
                "token " + std::to_string(tokens[i]) + " of stream " + std::to_string(i) +
                    " is outside the vocabulary [0, " + std::to_string(vocab) + ")");
  }
  return guarded([&] {
    std::vector<Status> status(n);
    // The streams of a model with a batched step function: one call per B
    // of them (Model::stepTogether), model by model in order of appearance.
    std::vector<size_t> alone; // the others
    std::vector<bool> grouped(n, false);
    for (size_t i = 0; i < n; ++i) {
      if (grouped[i])
        continue;
      ssm::rt::Model &model = streams[i]->impl->model();
      if (model.stepBatch() == 0) {
        alone.push_back(i);
        continue;
      }
      std::vector<size_t> index;
      std::vector<ssm::rt::Stream *> group;
      std::vector<int32_t> groupTokens;
      for (size_t j = i; j < n; ++j)
        if (!grouped[j] && &streams[j]->impl->model() == &model) {
          grouped[j] = true;
          index.push_back(j);
          group.push_back(streams[j]->impl.get());
          groupTokens.push_back(tokens[j]);
        }
      size_t failed = 0;
      Status s = model.stepTogether(group.data(), group.size(), groupTokens.data(), &failed);
      if (!s.isOk())
        status[index[failed]] = s;
    }
    // Each other stream's step on its own worker (at most one per core),
    // the caller's thread included; a stream's calls stay on one thread.
    std::atomic<size_t> next{0};
    const size_t m = alone.size();
    auto work = [&] {
      for (size_t a; (a = next.fetch_add(1)) < m;) {
        const size_t i = alone[a];
        try {
          status[i] = streams[i]->impl->step(tokens[i]);
        } catch (const std::bad_alloc &) {
          status[i] = Status(ssm::rt::Code::OutOfMemory, "out of memory");
        } catch (const std::exception &e) {
          status[i] = Status(ssm::rt::Code::Internal, std::string("internal error: ") + e.what());
        }
      }
    };
    size_t workers = std::min<size_t>(m, std::max(1u, std::thread::hardware_concurrency()));
    std::vector<std::thread> threads;
    for (size_t w = 1; w < workers; ++w)
      threads.emplace_back(work);
    work();
    for (std::thread &t : threads)
      t.join();
    for (size_t i = 0; i < n; ++i)
      if (!status[i].isOk())
        return fail(static_cast<ssm_status_t>(status[i].code()),
                    "stream " + std::to_string(i) + ": " + status[i].message());
    if (logits)
      for (size_t i = 0; i < n; ++i)
        logits[i] = streams[i]->impl->logits().data();
    return SSM_OK;
  });
}

ssm_status_t ssm_streams_prefill(ssm_stream_t *const *streams, size_t n,
                                 const int32_t *const *tokens, const size_t *counts,
                                 const float **logits) {
  SSM_REQUIRE(streams && tokens && counts, "streams, tokens or counts is NULL");
  SSM_REQUIRE(n > 0, "n is 0");
  for (size_t i = 0; i < n; ++i) {
    SSM_REQUIRE(streams[i], "streams[" + std::to_string(i) + "] is NULL");
    SSM_REQUIRE(&streams[i]->impl->model() == &streams[0]->impl->model(),
                "stream " + std::to_string(i) + " is of another model than stream 0");
    SSM_REQUIRE(tokens[i] || counts[i] == 0, "tokens[" + std::to_string(i) + "] is NULL");
  }
  return guarded([&] {
    // Model::prefillTogether checks the rest (repeats, empty prompts, the
    // vocabulary, the context) before anything runs.
    std::vector<ssm::rt::Stream *> impl(n);
    for (size_t i = 0; i < n; ++i)
      impl[i] = streams[i]->impl.get();
    size_t failed = 0;
    Status s = impl[0]->model().prefillTogether(impl.data(), n, tokens, counts, &failed);
    if (!s.isOk()) {
      // Most of prefillTogether's messages name the stream already ("stream 1
      // is stream 0 again"); the others (the context, a kernel) get its name.
      std::string name = "stream " + std::to_string(failed);
      const std::string &m = s.message();
      bool named = m.compare(0, name.size(), name) == 0 &&
                   (m.size() == name.size() || m[name.size()] == ' ' || m[name.size()] == ':');
      return fail(static_cast<ssm_status_t>(s.code()), named ? m : name + ": " + m);
    }
    if (logits)
      for (size_t i = 0; i < n; ++i)
        logits[i] = impl[i]->logits().data();
    return SSM_OK;
  });
}

ssm_status_t ssm_stream_logits(const ssm_stream_t *stream, const float **logits) {
  SSM_REQUIRE(stream && logits, "stream or logits is NULL");
  SSM_REQUIRE(!stream->impl->logits().empty(), "the stream has processed no token yet");
  *logits = stream->impl->logits().data();
  return SSM_OK;
}

int64_t ssm_stream_position(const ssm_stream_t *stream) {
  return stream ? stream->impl->position() : 0;
}

ssm_status_t ssm_stream_first_nonfinite(const ssm_stream_t *stream, char *text, size_t capacity,
                                        size_t *length) {
  SSM_REQUIRE(stream && length, "stream or length is NULL");
  *length = 0;
  SSM_REQUIRE(text || capacity == 0, "text is NULL with a capacity");
  return guarded([&] {
    std::string where = stream->impl->firstNonFinite();
    *length = where.size();
    if (capacity > 0) {
      const size_t k = std::min(where.size(), capacity - 1);
      std::memcpy(text, where.data(), k);
      text[k] = '\0';
    }
    return SSM_OK;
  });
}

ssm_status_t ssm_stream_get_state(const ssm_stream_t *stream, const char *name, float *values,
                                  size_t numel) {
  SSM_REQUIRE(stream && name && values, "stream, name or values is NULL");
  const auto &spec = stream->impl->model().spec();
  int i = spec.findState(name);
  SSM_REQUIRE(i >= 0, std::string("the model has no state '") + name + "'");
  const auto &data = stream->impl->state(static_cast<size_t>(i)).f32();
  SSM_REQUIRE(numel == data.size(), "state '" + std::string(name) + "' has " +
                                        std::to_string(data.size()) + " values, not " +
                                        std::to_string(numel));
  std::memcpy(values, data.data(), numel * sizeof(float));
  return SSM_OK;
}

ssm_status_t ssm_stream_set_state(ssm_stream_t *stream, const char *name, const float *values,
                                  size_t numel) {
  SSM_REQUIRE(stream && name && values, "stream, name or values is NULL");
  return report(stream->impl->setState(name, values, numel));
}

ssm_status_t ssm_stream_save_state(const ssm_stream_t *stream, const char *path) {
  SSM_REQUIRE(stream && path, "stream or path is NULL");
  return guarded([&] { return report(stream->impl->save(path)); });
}

ssm_status_t ssm_stream_load_state(ssm_stream_t *stream, const char *path) {
  SSM_REQUIRE(stream && path, "stream or path is NULL");
  return guarded([&] { return report(stream->impl->load(path)); });
}

} // extern "C"

namespace {
/// A DLPack view and the shape it points at, freed together by its deleter.
struct DlView {
  DLManagedTensor managed{};
  std::vector<int64_t> shape;
};

void deleteView(DLManagedTensor *t) { delete static_cast<DlView *>(t->manager_ctx); }

DLManagedTensor *makeView(const float *data, std::vector<int64_t> shape) {
  auto *v = new DlView();
  v->shape = std::move(shape);
  DLTensor &t = v->managed.dl_tensor;
  t.data = const_cast<float *>(data);
  t.device = {kDLCPU, 0};
  t.ndim = static_cast<int32_t>(v->shape.size());
  t.dtype = {kDLFloat, 32, 1};
  t.shape = v->shape.data();
  t.strides = nullptr;
  t.byte_offset = 0;
  v->managed.manager_ctx = v;
  v->managed.deleter = deleteView;
  return &v->managed;
}
} // namespace

extern "C" {

ssm_status_t ssm_stream_logits_dlpack(const ssm_stream_t *stream, DLManagedTensor **out) {
  SSM_REQUIRE(stream && out, "stream or out is NULL");
  *out = nullptr;
  const std::vector<float> &l = stream->impl->logits();
  SSM_REQUIRE(!l.empty(), "the stream has processed no token yet");
  return guarded([&] {
    *out = makeView(l.data(), {static_cast<int64_t>(l.size())});
    return SSM_OK;
  });
}

ssm_status_t ssm_stream_state_dlpack(ssm_stream_t *stream, const char *name, DLManagedTensor **out) {
  SSM_REQUIRE(stream && name && out, "stream, name or out is NULL");
  *out = nullptr;
  int i = stream->impl->model().spec().findState(name);
  SSM_REQUIRE(i >= 0, std::string("the model has no state '") + name + "'");
  return guarded([&] {
    stream->impl->keepStatesOnHost(); // the view must follow every step (GPU modules)
    const ssm::rt::HostTensor &s = stream->impl->state(static_cast<size_t>(i));
    *out = makeView(s.f32().data(), stream->impl->model().spec().states[i].shape);
    return SSM_OK;
  });
}

ssm_status_t ssm_stream_set_state_dlpack(ssm_stream_t *stream, const char *name,
                                         const DLManagedTensor *tensor) {
  SSM_REQUIRE(stream && name && tensor, "stream, name or tensor is NULL");
  const auto &spec = stream->impl->model().spec();
  int i = spec.findState(name);
  SSM_REQUIRE(i >= 0, std::string("the model has no state '") + name + "'");
  const ssm::rt::StateSpec &state = spec.states[static_cast<size_t>(i)];
  const DLTensor &t = tensor->dl_tensor;
  SSM_REQUIRE(t.device.device_type == kDLCPU, "the tensor is not on the CPU (kDLCPU)");
  SSM_REQUIRE(t.dtype.code == kDLFloat && t.dtype.bits == 32 && t.dtype.lanes == 1,
              "the tensor is not float32 (dtype code " + std::to_string(t.dtype.code) + ", " +
                  std::to_string(t.dtype.bits) + " bits, " + std::to_string(t.dtype.lanes) +
                  " lanes)");
  // Shape first (a negative ndim, a NULL shape, a negative or overflowing
  // dimension), then contiguity: nothing below reads past what it checked.
  int64_t n = 0;
  std::string why = ssm::rt::capi::rowMajorProblem(t, n);
  SSM_REQUIRE(why.empty(), "the tensor is " + why);
  std::vector<int64_t> shape(t.shape, t.shape + t.ndim);
  const bool flat = t.ndim == 1 && n == state.numel;
  SSM_REQUIRE(shape == state.shape || flat,
              "the tensor has shape " + ssm::rt::shapeString(shape) + " (" + std::to_string(t.ndim) +
                  " dims, " + std::to_string(n) + " elements); state '" + name + "' has shape " +
                  ssm::rt::shapeString(state.shape) + " (or flat, " + std::to_string(state.numel) +
                  " elements)");
  SSM_REQUIRE(t.data || n == 0, "the tensor has no data");
  const char *bytes = static_cast<const char *>(t.data) + t.byte_offset;
  SSM_REQUIRE(reinterpret_cast<uintptr_t>(bytes) % alignof(float) == 0,
              "the tensor's data (data + byte_offset) is not aligned to 4 bytes");
  const float *data = reinterpret_cast<const float *>(bytes);
  return report(stream->impl->setState(name, data, static_cast<size_t>(n)));
}

} // extern "C"
