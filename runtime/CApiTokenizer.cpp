// The C API's tokenizers (ssm_runtime.h: ssm_tokenizer_*) over runtime/tokenizer/Tokenizer.h.
#include "runtime/ssm_runtime.h"

#include "runtime/CApiHandles.h"
#include "runtime/CApiSupport.h"
#include "runtime/tokenizer/Tokenizer.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>


using ssm::rt::Status;
using ssm::rt::capi::fail;
using ssm::rt::capi::guarded;
using ssm::rt::capi::report;

extern "C" {

ssm_status_t ssm_tokenizer_open(const char *path, ssm_tokenizer_t **out) {
  SSM_REQUIRE(out, "out is NULL");
  *out = nullptr;
  SSM_REQUIRE(path, "path is NULL");
  return guarded([&] {
    Status s;
    auto t = ssm::rt::tok::Tokenizer::open(path, s);
    if (!t)
      return report(s);
    *out = new ssm_tokenizer{std::move(t)};
    return SSM_OK;
  });
}

void ssm_tokenizer_free(ssm_tokenizer_t *tokenizer) { delete tokenizer; }

ssm_status_t ssm_tokenizer_encode(const ssm_tokenizer_t *tokenizer, const char *text, size_t length,
                                  unsigned flags, int32_t *ids, size_t capacity, size_t *n_ids) {
  SSM_REQUIRE(tokenizer, "tokenizer is NULL");
  SSM_REQUIRE(n_ids, "n_ids is NULL");
  *n_ids = 0;
  SSM_REQUIRE(text || length == 0, "text is NULL");
  SSM_REQUIRE(ids || capacity == 0, "ids is NULL with a capacity");
  SSM_REQUIRE((flags & ~unsigned(SSM_TOKENIZE_ADD_SPECIAL)) == 0,
              "unknown flags (SSM_TOKENIZE_ADD_SPECIAL is the only one)");
  return guarded([&] {
    std::vector<int32_t> out;
    Status s = tokenizer->impl->encode(std::string_view(text ? text : "", length),
                                       flags & SSM_TOKENIZE_ADD_SPECIAL, out);
    if (!s)
      return report(s);
    *n_ids = out.size();
    std::copy_n(out.begin(), std::min(out.size(), capacity), ids);
    return SSM_OK;
  });
}

ssm_status_t ssm_tokenizer_decode(const ssm_tokenizer_t *tokenizer, const int32_t *ids, size_t n,
                                  unsigned flags, char *text, size_t capacity, size_t *length) {
  SSM_REQUIRE(tokenizer, "tokenizer is NULL");
  SSM_REQUIRE(length, "length is NULL");
  *length = 0;
  SSM_REQUIRE(ids || n == 0, "ids is NULL");
  SSM_REQUIRE(text || capacity == 0, "text is NULL with a capacity");
  SSM_REQUIRE((flags & ~unsigned(SSM_DETOKENIZE_SKIP_SPECIAL)) == 0,
              "unknown flags (SSM_DETOKENIZE_SKIP_SPECIAL is the only one)");
  return guarded([&] {
    std::string out;
    Status s = tokenizer->impl->decode(ids, n, flags & SSM_DETOKENIZE_SKIP_SPECIAL, out);
    if (!s)
      return report(s);
    *length = out.size();
    if (capacity > 0) {
      const size_t k = std::min(out.size(), capacity - 1);
      std::memcpy(text, out.data(), k);
      text[k] = '\0';
    }
    return SSM_OK;
  });
}

int64_t ssm_tokenizer_vocab_size(const ssm_tokenizer_t *tokenizer) {
  return tokenizer ? tokenizer->impl->vocabSize() : 0;
}

int32_t ssm_tokenizer_special_id(const ssm_tokenizer_t *tokenizer, ssm_special_token_t which) {
  if (!tokenizer)
    return -1;
  const auto &s = tokenizer->impl->special();
  switch (which) {
  case SSM_TOKEN_BOS: return s.bos;
  case SSM_TOKEN_EOS: return s.eos;
  case SSM_TOKEN_PAD: return s.pad;
  case SSM_TOKEN_UNK: return s.unk;
  }
  return -1;
}

int32_t ssm_tokenizer_token_id(const ssm_tokenizer_t *tokenizer, const char *token) {
  if (!tokenizer || !token)
    return -1;
  return tokenizer->impl->tokenToId(token);
}

ssm_status_t ssm_tokenizer_token_text(const ssm_tokenizer_t *tokenizer, int32_t id, const char **text,
                                      int *is_special) {
  SSM_REQUIRE(tokenizer, "tokenizer is NULL");
  SSM_REQUIRE(text, "text is NULL");
  *text = nullptr;
  const std::string *t = tokenizer->impl->tokenText(id);
  SSM_REQUIRE(t, "no token has id " + std::to_string(id) + " (vocabulary size " +
                     std::to_string(tokenizer->impl->vocabSize()) + ")");
  *text = t->c_str();
  if (is_special)
    *is_special = tokenizer->impl->isSpecial(id) ? 1 : 0;
  return SSM_OK;
}

} // extern "C"
