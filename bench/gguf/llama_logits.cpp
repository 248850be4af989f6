// llama_logits: llama.cpp's logits for a token sequence (a measurement tool,
// built against a llama.cpp checkout; not part of the project's build).
//
//   llama_logits MODEL.gguf TOKENS.npy OUT.npy [THREADS]
//
// TOKENS.npy: int32 (T,). OUT.npy: float32 (T, n_vocab), every position's
// logits from one llama_decode of all T tokens, with an F32 K/V cache and
// flash attention off (llama.cpp's default F16 cache moves the logits by
// ~1e-3; the shared models' llama_logits.npy were made the same way, see
// their READMEs). Build (bench/gguf/quantized_check.sh does it):
//   g++ -O2 -std=c++17 -I$L/include -I$L/ggml/include llama_logits.cpp \
//       -L$L/build/bin -lllama -lggml -lggml-base -Wl,-rpath,$L/build/bin
#include "llama.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

static std::vector<int32_t> readTokens(const char *path) {
  std::ifstream f(path, std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (raw.size() < 10 || raw.compare(0, 6, "\x93NUMPY") != 0) {
    std::fprintf(stderr, "%s: not a .npy file\n", path);
    std::exit(2);
  }
  size_t hl = raw[6] == 1 ? size_t(uint8_t(raw[8])) | size_t(uint8_t(raw[9])) << 8 : 0;
  size_t start = raw[6] == 1 ? 10 + hl : 0;
  std::string header = raw.substr(10, hl);
  if (raw[6] != 1 || header.find("'<i4'") == std::string::npos) {
    std::fprintf(stderr, "%s: expected a version 1 int32 .npy\n", path);
    std::exit(2);
  }
  std::vector<int32_t> t((raw.size() - start) / 4);
  std::memcpy(t.data(), raw.data() + start, t.size() * 4);
  return t;
}

static void writeNpy(const char *path, const std::vector<float> &v, size_t rows, size_t cols) {
  std::string h = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(rows) +
                  ", " + std::to_string(cols) + "), }";
  while ((10 + h.size() + 1) % 64)
    h += ' ';
  h += '\n';
  std::ofstream f(path, std::ios::binary);
  f.write("\x93NUMPY\x01\x00", 8);
  uint16_t n = uint16_t(h.size());
  f.write(reinterpret_cast<const char *>(&n), 2);
  f << h;
  f.write(reinterpret_cast<const char *>(v.data()), std::streamsize(v.size() * 4));
}

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: llama_logits MODEL.gguf TOKENS.npy OUT.npy [THREADS]\n");
    return 2;
  }
  std::vector<int32_t> tokens = readTokens(argv[2]);
  int threads = argc > 4 ? std::atoi(argv[4]) : 2;
  llama_backend_init();
  llama_model_params mp = llama_model_default_params();
  mp.n_gpu_layers = 0;
  // No repacked (AMX / interleaved) weight buffers: their kernels fault in this
  // sandbox (illegal instruction on the AMX machines); the plain CPU path
  // computes the same products.
  mp.use_extra_bufts = getenv("LLAMA_EXTRA_BUFTS") != nullptr;
  llama_model *model = llama_model_load_from_file(argv[1], mp);
  if (!model)
    return 2;
  llama_context_params cp = llama_context_default_params();
  cp.n_ctx = cp.n_batch = cp.n_ubatch = uint32_t(tokens.size() + 8);
  cp.n_threads = cp.n_threads_batch = threads;
  cp.type_k = cp.type_v = GGML_TYPE_F32;
  cp.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_DISABLED;
  llama_context *ctx = llama_init_from_model(model, cp);
  if (!ctx)
    return 2;
  const int nVocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
  llama_batch batch = llama_batch_init(int32_t(tokens.size()), 0, 1);
  for (size_t i = 0; i < tokens.size(); ++i) {
    batch.token[i] = tokens[i];
    batch.pos[i] = llama_pos(i);
    batch.n_seq_id[i] = 1;
    batch.seq_id[i][0] = 0;
    batch.logits[i] = 1;
  }
  batch.n_tokens = int32_t(tokens.size());
  if (llama_decode(ctx, batch) != 0) {
    std::fprintf(stderr, "llama_decode failed\n");
    return 1;
  }
  std::vector<float> out(tokens.size() * size_t(nVocab));
  for (size_t i = 0; i < tokens.size(); ++i)
    std::memcpy(&out[i * size_t(nVocab)], llama_get_logits_ith(ctx, int32_t(i)), size_t(nVocab) * 4);
  writeNpy(argv[3], out, tokens.size(), size_t(nVocab));
  llama_batch_free(batch);
  llama_free(ctx);
  llama_model_free(model);
  return 0;
}
