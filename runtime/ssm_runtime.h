/* ssm_runtime.h: the C API of the ssm-opt model library (libssm_runtime).
 *
 * Runs models that ssm-import imported and ssm-compile compiled, with no
 * LLVM, MLIR or Halide compiler in the process: the compiled kernels are
 * loaded from their shared library, the weights are read into memory once
 * (or memory-mapped, ssm_model_open_flags).
 *
 *   ssm_model_t *model;
 *   if (ssm_model_open("deploy/rwkv4", &model) != SSM_OK) {
 *     fprintf(stderr, "%s\n", ssm_last_error());
 *     return 1;
 *   }
 *   ssm_stream_t *stream;
 *   ssm_stream_create(model, &stream);
 *   ssm_stream_prefill(stream, prompt, prompt_len, NULL);
 *   const float *logits;                     // ssm_model_vocab_size() values
 *   ssm_stream_logits(stream, &logits);
 *   ssm_stream_step(stream, next_token, &logits);
 *   ...
 *   ssm_stream_free(stream);
 *   ssm_model_free(model);
 *
 * A model folder holds model.json and weights.safetensors (ssm-import's
 * output) and compiled modules in compiled/<any name>/ (ssm-compile outputs of
 * the folder's model.mlir, or of a graph ssm-import wrote for another prompt
 * length); ssm_model_add_module() adds modules kept elsewhere. A model
 * compiled for sequence length L and with its step function takes prompts of
 * any length: calls of L tokens, then single steps (the state is carried).
 *
 * Conventions, as in llama.h and IREE's runtime:
 *  - Every handle is opaque. Functions that can fail return an ssm_status_t;
 *    SSM_OK is 0. The message of the calling thread's last failure is
 *    ssm_last_error() (valid until that thread's next failing call). No C++
 *    exception crosses this interface, and no function aborts on bad input.
 *  - Pointers returned through out-parameters stay owned by the library.
 *  - A model may be shared by streams running on different threads; a stream
 *    is used by one thread at a time. ssm_model_add_module() and
 *    ssm_model_set_threads() must not run while any stream of the model runs.
 *  - Tokens are int32 ids in [0, vocab); logits and states are float32.
 */
#ifndef SSM_RUNTIME_H
#define SSM_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define SSM_RT_API __declspec(dllexport)
#else
#define SSM_RT_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this interface: functions are only added within a major
 * version; the shared library's SONAME carries the major. */
#define SSM_RUNTIME_VERSION_MAJOR 0
#define SSM_RUNTIME_VERSION_MINOR 11
#define SSM_RUNTIME_VERSION_PATCH 0

typedef enum ssm_status {
  SSM_OK = 0,
  SSM_ERROR_INVALID_ARGUMENT = 1, /* null pointer, wrong size, unknown state, token out of range */
  SSM_ERROR_NOT_FOUND = 2,        /* a file or folder does not exist */
  SSM_ERROR_INVALID_FILE = 3,     /* malformed, truncated or foreign file (model.json, weights,
                                     manifest, state file) */
  SSM_ERROR_MISMATCH = 4,         /* files that do not belong together: a module compiled from
                                     another model, weights of other shapes, a state saved from
                                     another model */
  SSM_ERROR_UNSUPPORTED = 5,      /* nothing compiled for the request, an unsupported dtype */
  SSM_ERROR_KERNEL_FAILED = 6,    /* a compiled kernel returned an error */
  SSM_ERROR_OUT_OF_MEMORY = 7,
  SSM_ERROR_INTERNAL = 8,
  SSM_ERROR_CONTEXT_FULL = 9      /* the tokens would take a stream past the positions its cache
                                     states hold (ssm_model_context_length); nothing was run:
                                     reset the stream or start another. Since 0.7. */
} ssm_status_t;

typedef struct ssm_model ssm_model_t;
typedef struct ssm_stream ssm_stream_t;
typedef struct ssm_module ssm_module_t;
typedef struct ssm_tokenizer ssm_tokenizer_t;
typedef struct ssm_sampler ssm_sampler_t;
/* DLPack 0.6's managed tensor (dlpack/dlpack.h); include that header to use it. */
struct DLManagedTensor;

/* "0.11.0". */
SSM_RT_API const char *ssm_runtime_version(void);
/* "SSM_OK", "SSM_ERROR_NOT_FOUND", ... */
SSM_RT_API const char *ssm_status_name(ssm_status_t status);
/* The message of this thread's last failed call ("" if none). */
SSM_RT_API const char *ssm_last_error(void);

/* --- Models ---------------------------------------------------------------- */

/* Loads <dir>/model.json, reads <dir>/weights.safetensors into memory (2 MB
 * aligned, transparent huge pages advised) and adds every module in
 * <dir>/compiled/. On failure *out is NULL. The same as
 * ssm_model_open_flags(dir, 0, out). */
SSM_RT_API ssm_status_t ssm_model_open(const char *dir, ssm_model_t **out);

/* Flags of ssm_model_open_flags. */
enum {
  /* Map weights.safetensors read-only instead of reading it: its pages are
   * shared with the page cache and with other processes, and a tensor read
   * only in part (the embedding table) is only in part resident. Reading it
   * costs a copy at open and decodes faster (runtime/Weights.h: about 12%
   * on an AMD EPYC VM). Replace a mapped file by rename, never in place: a
   * file truncated under the process faults at the next read, and the
   * runtime then names it on stderr and exits 1 (runtime/MappedFaults.h). */
  SSM_MODEL_MAP_WEIGHTS = 1u << 0
};
/* ssm_model_open with flags (SSM_MODEL_*; an unknown bit is
 * SSM_ERROR_INVALID_ARGUMENT). Since 0.6. */
SSM_RT_API ssm_status_t ssm_model_open_flags(const char *dir, unsigned flags, ssm_model_t **out);
/* Options of ssm_model_open_options. Since 0.10. Start from
 * ssm_model_options_default(); fields are added only at the end, and
 * `struct_size` says which the caller has (a caller built against an older
 * header passes a smaller size, and the fields past it keep their defaults). */
typedef struct ssm_model_options {
  size_t struct_size;     /* sizeof(ssm_model_options_t) */
  unsigned flags;         /* SSM_MODEL_* (ssm_model_open_flags) */
  /* The positions each stream's KV caches hold (ssm_model_context_length),
   * from 1 to 2^30; 0: the capacity model.json records (the import's
   * --context). The streams' cache states are that long (ssm_model_state_info,
   * ssm_model_state_bytes), and a prefill or step past it fails with
   * SSM_ERROR_CONTEXT_FULL. A model without KV caches (a pure SSM) holds any
   * number of positions and ignores it. Compiled modules run at any capacity
   * where their kernels write the caches in place (CPU modules); the batched
   * step function (ssm_streams_step) holds the capacity it was compiled for,
   * and a stream at a position past that steps alone. Out of range, or a cache
   * of more than 2^31 - 1 bytes: SSM_ERROR_INVALID_ARGUMENT naming the state. */
  int64_t context_length;
} ssm_model_options_t;
/* struct_size sizeof(ssm_model_options_t), flags 0, context_length 0. */
SSM_RT_API ssm_model_options_t ssm_model_options_default(void);
/* ssm_model_open with options (NULL: the defaults). A module compiled for
 * another capacity that cannot run at this one fails its first call with
 * SSM_ERROR_UNSUPPORTED naming both (import the model again with --context N,
 * or open it with the capacity it was compiled for). A state file saved from
 * the model opened with another capacity loads when its position fits this
 * one (else SSM_ERROR_CONTEXT_FULL). Since 0.10. */
SSM_RT_API ssm_status_t ssm_model_open_options(const char *dir, const ssm_model_options_t *options,
                                               ssm_model_t **out);
/* Adds a compiled module (an ssm-compile output folder) of this model. */
SSM_RT_API ssm_status_t ssm_model_add_module(ssm_model_t *model, const char *module_dir);
/* NULL is ignored. Free every stream of the model first. */
SSM_RT_API void ssm_model_free(ssm_model_t *model);

/* Vocabulary size: logits per position (0 before any module, if model.json
 * does not say). */
SSM_RT_API int64_t ssm_model_vocab_size(const ssm_model_t *model);
/* Token counts of the compiled sequence functions, ascending: writes at most
 * `capacity` into `lengths` (may be NULL), returns how many there are. */
SSM_RT_API size_t ssm_model_sequence_lengths(const ssm_model_t *model, int64_t *lengths,
                                             size_t capacity);
/* 1 when a step function (one token, the state-update form) is compiled. */
SSM_RT_API int ssm_model_has_step(const ssm_model_t *model);
/* Streams per call of the compiled batched step function (a model imported with
 * `ssm-import --batch B`: model.json functions.step_batched), which
 * ssm_streams_step uses; 0 when none is compiled. Since 0.5. */
SSM_RT_API int64_t ssm_model_step_batch(const ssm_model_t *model);
/* Streams per call of the compiled batched sequence function (a model imported
 * with `ssm-import --prefill-batch B`: model.json functions.sequence_batched),
 * which ssm_streams_prefill uses; 0 when none is compiled. Since 0.11. */
SSM_RT_API int64_t ssm_model_prefill_batch(const ssm_model_t *model);
/* Threads of the kernels' parallel loops, the calling thread included (0: the
 * process's CPUs, or HL_NUM_THREADS when set). The loops run on a pool shared by
 * the process's modules of that thread count, whose workers spin for about 20 ms
 * after a loop before they sleep (as llama.cpp's do); a loop started while
 * another thread's loop holds the pool, and any count above the process's CPUs,
 * run on the module's own Halide pool of the same count (docs/embedding.md).
 * Results do not depend on the count. */
SSM_RT_API ssm_status_t ssm_model_set_threads(ssm_model_t *model, int threads);

/* The model's states, in model.json order. `name` and `shape` stay valid
 * while the model lives; `*numel` is the number of float32 values. */
SSM_RT_API size_t ssm_model_state_count(const ssm_model_t *model);
SSM_RT_API ssm_status_t ssm_model_state_info(const ssm_model_t *model, size_t index,
                                             const char **name, const int64_t **shape,
                                             size_t *rank, size_t *numel);
/* What a state holds: 0 fixed (a conv, SSM or WKV state: the same size at
 * every position), 1 cache (a KV cache: row p along dim `*axis` holds
 * position p, so shape[*axis] positions at most; `*axis` is -1 for fixed).
 * Since 0.7. */
typedef enum ssm_state_kind { SSM_STATE_FIXED = 0, SSM_STATE_CACHE = 1 } ssm_state_kind_t;
SSM_RT_API ssm_status_t ssm_model_state_kind(const ssm_model_t *model, size_t index,
                                             ssm_state_kind_t *kind, int *axis);
/* The positions a stream of the model can hold: the least capacity of its
 * cache states (as opened: ssm_model_options_t.context_length, else
 * model.json's), or 0 when it has none (a recurrent model: no bound). A
 * prefill or step that would go past it fails with SSM_ERROR_CONTEXT_FULL
 * and runs nothing. Since 0.7. */
SSM_RT_API int64_t ssm_model_context_length(const ssm_model_t *model);
/* Memory of one stream's states, in bytes (float32), from model.json:
 * `fixed_bytes` for the fixed states (conv, SSM, WKV: the same at every
 * position), `cache_bytes` for the KV caches' rows a stream at `position`
 * has written (position x bytes per position, at most the capacity), and
 * `cache_allocated_bytes` for the caches at their capacity (what a stream
 * allocates). Any pointer may be null. Since 0.7. */
SSM_RT_API void ssm_model_state_bytes(const ssm_model_t *model, int64_t position,
                                      size_t *fixed_bytes, size_t *cache_bytes,
                                      size_t *cache_allocated_bytes);
/* Bytes of the weights file; of weights used in place (as the file holds
 * them, in the loaded or mapped file); of weights converted to float32 (F16,
 * BF16, F64 files). */
SSM_RT_API void ssm_model_weight_bytes(const ssm_model_t *model, size_t *file_bytes,
                                       size_t *mapped_bytes, size_t *converted_bytes);

/* --- Streams --------------------------------------------------------------- */

/* A new stream at the model's initial state (each state at its model.json
 * "init"), position 0. */
SSM_RT_API ssm_status_t ssm_stream_create(ssm_model_t *model, ssm_stream_t **out);
SSM_RT_API void ssm_stream_free(ssm_stream_t *stream);
/* Back to the initial state, position 0. */
SSM_RT_API ssm_status_t ssm_stream_reset(ssm_stream_t *stream);

/* Runs n >= 1 tokens. `all_logits` (may be NULL) receives n * vocab floats,
 * every position's logits (then only compiled calls that return every
 * position's are used: a model whose sequence functions return only the last
 * position's runs the prompt step by step). After an error the stream's
 * state is undefined: reset it or load one. */
SSM_RT_API ssm_status_t ssm_stream_prefill(ssm_stream_t *stream, const int32_t *tokens, size_t n,
                                           float *all_logits);
/* Runs one token; `*logits` (may be NULL) points at the vocab logits after it,
 * valid until the stream's next call. */
SSM_RT_API ssm_status_t ssm_stream_step(ssm_stream_t *stream, int32_t token,
                                        const float **logits);
/* Steps n streams together, stream i on tokens[i]; logits (may be NULL) receives n
 * pointers, each as ssm_stream_step's. The streams must be distinct (of one model or
 * several) and not in use by another thread; null streams, a repeated stream and
 * tokens outside the vocabulary are refused before any stream runs.
 * The streams of a model with a batched step function (ssm_model_step_batch() = B > 0)
 * run through it, B streams per call (the last call padded with rows at the initial
 * state, whose results are dropped; a single stream left over takes its own step
 * instead, which costs less than a call of B rows, and so does a stream past the KV
 * capacity the batched function was compiled for, after the batched calls): their states are copied into the
 * call's batch buffers and the new states and logits back, so each weight is read
 * once per B streams. Each stream's states, logits and position end as a step of its
 * own would leave them, within float32 rounding (the batched kernels may sum in another
 * order: within 1e-5 relative, 1e-6 absolute on the tests' models). The streams of other
 * models run their step functions concurrently, at most one worker per core, the
 * caller's thread included, equal bit for bit to stepping each alone (their kernels
 * are not batched: on a machine whose cores one step already fills, that is no
 * faster than a loop). On a kernel error the message names the first failing stream
 * ("stream 2: ..."); the streams of a failing batched call and of the model's later
 * calls have not stepped, those of the other models have, and a failing unbatched
 * stream's state is undefined (as after ssm_stream_prefill). */
SSM_RT_API ssm_status_t ssm_streams_step(ssm_stream_t *const *streams, size_t n,
                                         const int32_t *tokens, const float **logits);
/* Prefills n >= 1 distinct streams of one model together: stream i runs counts[i]
 * >= 1 tokens from tokens[i] (n pointers, each to counts[i] token ids), each ending
 * where ssm_stream_prefill(streams[i], tokens[i], counts[i], NULL) would leave it
 * (the same split into compiled calls: the longest compiled length that fits what is
 * left, then steps), within float32 rounding (the batched kernels may sum in another
 * order: within 1e-5 x the largest magnitude + 1e-6 on the tests' models). The calls
 * of a length that has a batched sequence function (ssm_model_prefill_batch() = B >
 * 0) run B streams per call, each weight read once per B prompts; streams whose
 * prompts differ in length share the calls of the lengths they have in common, a
 * single stream left over in a call and calls of other lengths run alone, and the
 * one-token remainders go through the batched step (as ssm_streams_step). With no
 * batched sequence function every call runs alone, one stream after another.
 * `logits` (may be NULL) receives n pointers, each to stream i's vocab logits after
 * its last token, valid until that stream's next call. Errors, checked for every
 * stream before any runs (then no stream has changed; the message names the
 * stream, "stream 2: ..."): NULL arguments, n 0, a NULL or repeated stream, streams
 * of different models, a count of 0, a token outside the vocabulary
 * (SSM_ERROR_INVALID_ARGUMENT), a prompt past a stream's context length
 * (SSM_ERROR_CONTEXT_FULL), no compiled function for a remainder (SSM_ERROR_UNSUPPORTED);
 * a kernel error (SSM_ERROR_KERNEL_FAILED) leaves the streams' states undefined, as
 * after a failed ssm_stream_prefill: reset them or load states. Since 0.11. */
SSM_RT_API ssm_status_t ssm_streams_prefill(ssm_stream_t *const *streams, size_t n,
                                            const int32_t *const *tokens, const size_t *counts,
                                            const float **logits);
/* The logits after the last token (SSM_ERROR_INVALID_ARGUMENT at position 0). */
SSM_RT_API ssm_status_t ssm_stream_logits(const ssm_stream_t *stream, const float **logits);
/* Tokens processed since creation, reset or the state loaded. */
SSM_RT_API int64_t ssm_stream_position(const ssm_stream_t *stream);
/* The first value of the stream's logits, then of its states (model.json order),
 * that is NaN or an infinity, as "logits[i] = nan" or "state 'name'[i] = inf"; ""
 * (*length 0) when every value is finite. snprintf-like: the text's length goes to
 * *length and at most capacity - 1 bytes and a NUL to text (capacity 0: only the
 * length). The compiled engines compute in float32, where extreme but valid weights
 * can overflow (docs/numerics.md): call it after a call whose results matter; it
 * reads every value once. */
SSM_RT_API ssm_status_t ssm_stream_first_nonfinite(const ssm_stream_t *stream, char *text,
                                                   size_t capacity, size_t *length);

/* Copies state `name` out of (into) the stream; `numel` must be its size. */
SSM_RT_API ssm_status_t ssm_stream_get_state(const ssm_stream_t *stream, const char *name,
                                             float *values, size_t numel);
SSM_RT_API ssm_status_t ssm_stream_set_state(ssm_stream_t *stream, const char *name,
                                             const float *values, size_t numel);
/* Writes the states, the position and the last logits to `path` (a versioned,
 * checksummed file, replaced atomically). A KV cache is written as its rows
 * up to the position (since 0.10; before, whole): the file does not depend on
 * the capacity the model was opened with. */
SSM_RT_API ssm_status_t ssm_stream_save_state(const ssm_stream_t *stream, const char *path);
/* Reads a file ssm_stream_save_state wrote for this model, opened with any
 * capacity (ssm_model_options_t.context_length) that holds the saved
 * position; a truncated, corrupt, foreign or other-version file
 * (SSM_ERROR_INVALID_FILE), one saved from another model (SSM_ERROR_MISMATCH)
 * or at a position past this stream's capacity (SSM_ERROR_CONTEXT_FULL, naming
 * the context to open the model with) leaves the stream unchanged.
 * The magic and the version are read first, and no more than the size a
 * state file of this model has: a larger file (SSM_ERROR_MISMATCH), a device
 * such as /dev/zero or a FIFO fails at once, without reading it whole. The
 * states and logits are copied into the stream's buffers (DLPack views stay
 * valid). */
SSM_RT_API ssm_status_t ssm_stream_load_state(ssm_stream_t *stream, const char *path);

/* --- DLPack (zero-copy tensors for PyTorch, NumPy, JAX, ...) ---------------- */

/* Views without copies: kDLCPU, float32, row-major (strides NULL), byte_offset 0.
 * The consumer calls (*out)->deleter(*out) when done (it frees the view, not the data;
 * the deleter touches neither the stream nor its memory, so it may run after
 * ssm_stream_free). The logits view holds the stream's last logits, shape (vocab,):
 * the stream's next call replaces the values in the same buffer. The state view is
 * state `name` itself, in its model.json shape: writing through it sets the state.
 * Both buffers stay where they are while the stream lives (steps, reset and
 * ssm_stream_load_state write into them), and are freed with the stream: a view must
 * not be used after ssm_stream_free (the Python binding's views hold a reference on
 * their stream for that). (On a GPU module the states otherwise stay on the device
 * between calls; once a state view exists, the stream copies them back after each
 * call.) */
SSM_RT_API ssm_status_t ssm_stream_logits_dlpack(const ssm_stream_t *stream,
                                                 struct DLManagedTensor **out);
SSM_RT_API ssm_status_t ssm_stream_state_dlpack(ssm_stream_t *stream, const char *name,
                                                struct DLManagedTensor **out);
/* Copies a DLPack tensor into state `name`: it must be on kDLCPU, float32 (one lane),
 * of the state's shape or a flat vector of its element count, contiguous (strides
 * NULL or row-major) and aligned to 4 bytes; a negative ndim or dimension, a NULL
 * shape, or a shape whose element count overflows is SSM_ERROR_INVALID_ARGUMENT
 * naming the problem. The caller keeps ownership (its deleter is not called). */
SSM_RT_API ssm_status_t ssm_stream_set_state_dlpack(ssm_stream_t *stream, const char *name,
                                                    const struct DLManagedTensor *tensor);

/* --- Kernel modules --------------------------------------------------------- */

/* A kernel module is an ssm-compile output folder of a graph (manifest.json and
 * lib<name>.so): its public functions called on caller-owned tensors, as
 * runtime/python/ssm_torch.py does to make them PyTorch ops. A module may be
 * called from several threads at once. */

/* Loads <dir>/manifest.json and the kernel library it names. On failure *out
 * is NULL (SSM_ERROR_NOT_FOUND, SSM_ERROR_INVALID_FILE naming the file). */
SSM_RT_API ssm_status_t ssm_module_open(const char *dir, ssm_module_t **out);
/* NULL is ignored. */
SSM_RT_API void ssm_module_free(ssm_module_t *module);
/* Threads of the module's parallel loops (as ssm_model_set_threads). */
SSM_RT_API ssm_status_t ssm_module_set_threads(ssm_module_t *module, int threads);
/* The Halide target string the module was compiled for ("x86-64-linux-avx2-..."). */
SSM_RT_API const char *ssm_module_target(const ssm_module_t *module);
/* The functions a caller may call, in the manifest's order (a segmented
 * function's internal kernels are not listed). */
SSM_RT_API size_t ssm_module_function_count(const ssm_module_t *module);
/* Function `index`: its MLIR symbol without '@' and its numbers of arguments
 * and results (any out-parameter may be NULL). */
SSM_RT_API ssm_status_t ssm_module_function_info(const ssm_module_t *module, size_t index,
                                                 const char **name, size_t *num_arguments,
                                                 size_t *num_results);
/* Argument (is_result 0) or result (is_result 1) `index` of function
 * `function_index`: its name (the graph's ssm.state, else ssm.param, else ssm.name, else
 * argN / resultN), its dtype ("float32", "int32", "float16", "bfloat16", "int8")
 * and its shape in the graph's order (row-major, the last dim contiguous). The
 * strings and the shape stay valid while the module lives. */
SSM_RT_API ssm_status_t ssm_module_tensor_info(const ssm_module_t *module, size_t function_index,
                                               int is_result, size_t index, const char **name,
                                               const char **dtype, const int64_t **shape,
                                               size_t *rank);
/* Calls `function` without copying: the arguments are read where they lie and
 * the results written into `results`, tensors the caller allocated with the
 * result shapes and dtypes. Every tensor must be on kDLCPU, have exactly the
 * dtype and shape tensor_info gives, be row-major contiguous (strides NULL or
 * row-major) and aligned to its element size; results must not overlap each
 * other or the arguments. SSM_ERROR_INVALID_ARGUMENT names the tensor and what
 * is wrong; SSM_ERROR_KERNEL_FAILED gives Halide's error. The caller keeps
 * ownership (no deleter is called). Buffers are bound per call (microseconds). */
SSM_RT_API ssm_status_t ssm_module_call_dlpack(ssm_module_t *module, const char *function,
                                               const struct DLManagedTensor *const *arguments,
                                               size_t num_arguments,
                                               const struct DLManagedTensor *const *results,
                                               size_t num_results);

/* --- Tokenizers (since 0.8) ------------------------------------------------- */

/* Text to token ids and back, as Hugging Face's tokenizers do with a
 * tokenizer.json (the format's definition; checked against Hugging Face's own
 * JavaScript implementation): added and special tokens written in the text are
 * matched first, the text between them is normalized (NFC, ...), split by the
 * pre-tokenizer (regexes with Unicode properties, ByteLevel, Metaspace) and
 * tokenized by the BPE model (byte-level as GPT-2, Qwen and Llama 3 use, or
 * SentencePiece-style with byte fallback as Llama 2 and Mistral use); decoding
 * runs the file's decoder. A component the library does not implement (a
 * Unigram or WordPiece model, a BertPreTokenizer, ...) is refused at open with
 * SSM_ERROR_UNSUPPORTED and a message naming its type and where it is in the
 * file. A tokenizer is immutable once open and may be used from several
 * threads at once. Texts are UTF-8; token ids are int32. */

/* Opens `path`: a tokenizer.json, or a folder holding one (a model folder
 * ssm-import wrote from a checkpoint with a tokenizer). tokenizer_config.json
 * beside it, when present, names the special tokens (bos_token, eos_token,
 * pad_token), may ask for a bos / eos token when special tokens are added
 * (add_bos_token, add_eos_token; used when the tokenizer.json's post-processor
 * adds none) and sets clean_up_tokenization_spaces (decode; true when absent).
 * On failure *out is NULL: SSM_ERROR_NOT_FOUND (no file, or no tokenizer.json
 * in the folder), SSM_ERROR_INVALID_FILE (malformed JSON, a merge naming a
 * token not in the vocabulary), SSM_ERROR_UNSUPPORTED (a component type, named). */
SSM_RT_API ssm_status_t ssm_tokenizer_open(const char *path, ssm_tokenizer_t **out);
/* NULL is ignored. */
SSM_RT_API void ssm_tokenizer_free(ssm_tokenizer_t *tokenizer);

/* Flags of ssm_tokenizer_encode. */
enum {
  /* Add the special tokens the tokenizer puts around a text (its
   * post-processor's template: a bos token for Llama-style tokenizers; none
   * for Qwen's). Special tokens written in the text are matched either way. */
  SSM_TOKENIZE_ADD_SPECIAL = 1u << 0
};
/* Tokenizes `length` bytes of UTF-8 at `text` (not NUL-terminated; NULL when
 * length is 0). `*n_ids` receives the number of ids; the first
 * min(*n_ids, capacity) are written to `ids` (which may be NULL when capacity is
 * 0). So a call with capacity 0 asks for the count; or a caller passes a
 * buffer of a size it expects (rarely more ids than `length` + 8: a prepended
 * '▁', the special tokens and decomposing normalizers add a few) and calls again
 * with a larger one when *n_ids > capacity, as ssm_runtime.hpp does.
 * SSM_ERROR_INVALID_ARGUMENT for text that is not valid UTF-8 (the message
 * gives the byte offset) or an unknown flag. */
SSM_RT_API ssm_status_t ssm_tokenizer_encode(const ssm_tokenizer_t *tokenizer, const char *text,
                                             size_t length, unsigned flags, int32_t *ids,
                                             size_t capacity, size_t *n_ids);

/* Flags of ssm_tokenizer_decode. */
enum {
  /* Leave out the added tokens marked special (<|im_end|>, <s>, ...). */
  SSM_DETOKENIZE_SKIP_SPECIAL = 1u << 0
};
/* The UTF-8 text of `n` ids. `*length` receives its length in bytes; the first
 * min(*length, capacity - 1) bytes and a terminating NUL are written to `text`
 * when capacity > 0 (as snprintf: call with capacity 0 for the length). Bytes
 * that do not form UTF-8 (part of a character's tokens) become U+FFFD. Ids
 * that name no token (past the tokenizer's vocabulary, as a model's padded
 * vocabulary may hold) give no text, as in Hugging Face's tokenizers; a
 * negative id is SSM_ERROR_INVALID_ARGUMENT. */
SSM_RT_API ssm_status_t ssm_tokenizer_decode(const ssm_tokenizer_t *tokenizer, const int32_t *ids,
                                             size_t n, unsigned flags, char *text, size_t capacity,
                                             size_t *length);

/* One past the largest token id: the model's vocabulary and the added tokens
 * (151669 for Qwen3's). 0 for NULL. */
SSM_RT_API int64_t ssm_tokenizer_vocab_size(const ssm_tokenizer_t *tokenizer);
/* Tokens a model treats specially. */
typedef enum ssm_special_token {
  SSM_TOKEN_BOS = 0, /* tokenizer_config.json's bos_token */
  SSM_TOKEN_EOS = 1, /* eos_token: generation stops there */
  SSM_TOKEN_PAD = 2, /* pad_token */
  SSM_TOKEN_UNK = 3  /* unk_token, else the model's unk_token */
} ssm_special_token_t;
/* The id of a special token, -1 when the tokenizer has none (Qwen3 has no bos;
 * a tokenizer.json without tokenizer_config.json names only unk). */
SSM_RT_API int32_t ssm_tokenizer_special_id(const ssm_tokenizer_t *tokenizer,
                                            ssm_special_token_t which);
/* The id of the token spelled `token` (NUL-terminated, as the vocabulary spells
 * it: "ĠWorld" in a byte-level vocabulary, "▁the" in a SentencePiece one, or an
 * added token's content such as "<|im_end|>"), -1 when there is none. */
SSM_RT_API int32_t ssm_tokenizer_token_id(const ssm_tokenizer_t *tokenizer, const char *token);
/* The vocabulary's spelling of token `id` (valid while the tokenizer lives),
 * and whether it is a special added token (`is_special` may be NULL).
 * SSM_ERROR_INVALID_ARGUMENT when no token has that id. */
SSM_RT_API ssm_status_t ssm_tokenizer_token_text(const ssm_tokenizer_t *tokenizer, int32_t id,
                                                 const char **text, int *is_special);

/* --- Sampling and generation (since 0.9) ------------------------------------ */

/* A sampler chooses the next token from a stream's logits. Its filters run in
 * llama.cpp's order:
 *   1. penalties   on the tokens among the last `penalty_last_n` accepted (the
 *                  prompt's, given with ssm_sampler_accept, and those sampled),
 *                  a token counted c times there: a logit l becomes
 *                  (l <= 0 ? l * repetition_penalty : l / repetition_penalty)
 *                  - c * frequency_penalty - presence_penalty;
 *   2. top-k       the top_k largest logits (0: all);
 *   3. top-p       the fewest most likely tokens whose probabilities (softmax
 *                  over what top-k left) sum to >= top_p (1: all);
 *   4. min-p       the tokens whose probability is >= min_p times the most
 *                  likely's (0: all);
 *   5. temperature the survivors' logits divided by it;
 *   6. the draw    from their softmax, with the sampler's own random engine
 *                  (std::mt19937_64 seeded with `seed`; a uniform double from
 *                  its 53 high bits: the same draws with every C++ library).
 * Temperature 0 is greedy: the largest penalized logit (the lowest id among
 * equals), no draw. NaN and -inf logits are never drawn. A sampler belongs to
 * one stream: with one sampler per stream, a seed gives a stream the same
 * tokens whatever other streams run, and however they are batched
 * (ssm_streams_step). A sampler is used by one thread at a time. */
typedef struct ssm_sampling_params {
  float temperature;        /* >= 0; 0: greedy */
  int32_t top_k;            /* >= 0; 0: no top-k filter */
  float top_p;              /* in [0, 1]; 1: no top-p filter */
  float min_p;              /* in [0, 1]; 0: no min-p filter */
  float repetition_penalty; /* > 0; 1: none (llama.cpp's --repeat-penalty) */
  float presence_penalty;   /* finite; 0: none */
  float frequency_penalty;  /* finite; 0: none */
  int32_t penalty_last_n;   /* >= -1: the window; 0: no penalties; -1: every token */
  uint64_t seed;
} ssm_sampling_params_t;

/* Greedy and no penalties: temperature 0, top_k 0, top_p 1, min_p 0,
 * repetition_penalty 1, presence and frequency 0, penalty_last_n 64, seed 0.
 * (llama.cpp's defaults are temperature 0.8, top_k 40, top_p 0.95, min_p
 * 0.05.) Fields are only added in a new major version. */
SSM_RT_API ssm_sampling_params_t ssm_sampling_params_default(void);
/* A sampler with an empty penalty window. SSM_ERROR_INVALID_ARGUMENT naming
 * the field for a value outside its range (a negative or NaN temperature,
 * top_p 1.5, ...). On failure *out is NULL. */
SSM_RT_API ssm_status_t ssm_sampler_create(const ssm_sampling_params_t *params,
                                           ssm_sampler_t **out);
/* NULL is ignored. */
SSM_RT_API void ssm_sampler_free(ssm_sampler_t *sampler);
/* Back to a new sampler's state, its engine seeded with `seed`. */
SSM_RT_API ssm_status_t ssm_sampler_reset(ssm_sampler_t *sampler, uint64_t seed);
/* Adds tokens to the penalty window: a prompt's, before the first sample (as
 * llama.cpp does); sampled tokens are added by ssm_sampler_sample. */
SSM_RT_API ssm_status_t ssm_sampler_accept(ssm_sampler_t *sampler, const int32_t *tokens,
                                           size_t n);
/* Chooses a token from `n` >= 1 logits (ssm_stream_logits' or
 * ssm_stream_step's) into *token, and adds it to the penalty window. */
SSM_RT_API ssm_status_t ssm_sampler_sample(ssm_sampler_t *sampler, const float *logits, size_t n,
                                           int32_t *token);

/* Why ssm_stream_generate ended. */
typedef enum ssm_stop_reason {
  SSM_STOP_MAX_TOKENS = 0, /* max_tokens were handed out */
  SSM_STOP_TOKEN = 1,      /* a stop token (or the tokenizer's eos) was chosen; not handed out */
  SSM_STOP_STRING = 2,     /* the text reached a stop string; the text handed out ends before it */
  SSM_STOP_CALLBACK = 3    /* the callback returned nonzero */
} ssm_stop_reason_t;

/* Called by ssm_stream_generate with each token handed out and the text that
 * is final once it is: `text` (NUL-terminated, `length` bytes, valid UTF-8)
 * may be empty while an incomplete character or the possible start of a stop
 * string is held back, and holds several tokens' text when it comes. At the
 * end (unless the callback stopped it), text still held back comes in a last
 * call with token -1. `text` is valid during the call. Nonzero stops the
 * generation. */
typedef int (*ssm_generate_callback_t)(void *user_data, int32_t token, const char *text,
                                       size_t length);

/* Generates up to `max_tokens` from the stream's current logits (after a
 * prefill: SSM_ERROR_INVALID_ARGUMENT at position 0): chooses a token with
 * `sampler` (NULL: greedy), hands it to `callback` (may be NULL), steps the
 * stream on it, and so on. The last token handed out is not stepped (its
 * logits are not needed to choose it): to go on after this call, step it
 * first. So n tokens cost n - 1 steps.
 * The text: with `tokenizer`, the tokens decoded (special tokens included);
 * without, bytes for a model of byte tokens (model.json byte_tokens), else
 * none (length 0; stop strings are then SSM_ERROR_INVALID_ARGUMENT). Bytes
 * that do not form UTF-8 become U+FFFD.
 * Stops: the `n_stop_tokens` ids of `stop_tokens` and the tokenizer's eos end
 * the generation when chosen (not handed out, not stepped); the text reaching
 * one of the `n_stop_strings` NUL-terminated `stop_strings` (empty ones are
 * ignored) ends it after the token that completed it. `n_generated` (may be
 * NULL) receives the tokens handed out, `reason` (may be NULL) why it ended;
 * both are set on error too. A step's error ends the generation and is
 * returned (the stream's state is then undefined, as after
 * ssm_stream_prefill). */
SSM_RT_API ssm_status_t ssm_stream_generate(ssm_stream_t *stream, ssm_sampler_t *sampler,
                                            const ssm_tokenizer_t *tokenizer, int64_t max_tokens,
                                            const int32_t *stop_tokens, size_t n_stop_tokens,
                                            const char *const *stop_strings, size_t n_stop_strings,
                                            ssm_generate_callback_t callback, void *user_data,
                                            int64_t *n_generated, ssm_stop_reason_t *reason);

#ifdef __cplusplus
}
#endif

#endif /* SSM_RUNTIME_H */
