// Fuzzes tokenizer.json (runtime/tokenizer/: the file a model folder carries, from any checkpoint): a tokenizer or a message; a tokenizer then encodes and decodes without faults.
#include "runtime/tokenizer/Tokenizer.h"
#include "runtime/tokenizer/Utf8.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string json(reinterpret_cast<const char *>(data), size);
  ssm::rt::Status st;
  auto tok = ssm::rt::tok::Tokenizer::fromJson(json, "", "fuzz.json", st);
  if (!tok) {
    if (st.isOk() || st.message().empty())
      std::abort();
    return 0;
  }
  // Texts that reach every stage: spaces, bytes outside ASCII, a special
  // token spelling, digits; and the input itself when it is UTF-8.
  std::vector<std::string> texts = {"", " ", "Hello  world\n\t3.14 <s></s><unk> <|im_start|>",
                                    "caf\xC3\xA9 \xE2\x96\x81x \xF0\x9F\x98\x80 'll"};
  if (ssm::rt::tok::firstInvalidUtf8(json) == std::string::npos && json.size() < 4096)
    texts.push_back(json);
  for (const std::string &t : texts) {
    for (bool special : {false, true}) {
      std::vector<int32_t> ids;
      if (!tok->encode(t, special, ids))
        continue;
      std::string back;
      if (!tok->decode(ids.data(), ids.size(), !special, back))
        std::abort(); // the ids of an encode always decode
    }
  }
  // Arbitrary ids: any non-negative id decodes (unknown ones to nothing).
  std::vector<int32_t> ids;
  for (size_t i = 0; i < size && i < 64; ++i)
    ids.push_back(static_cast<int32_t>(data[i]) * 3);
  std::string back;
  if (!tok->decode(ids.data(), ids.size(), false, back))
    std::abort();
  return 0;
}
