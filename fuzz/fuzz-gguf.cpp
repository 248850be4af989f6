// Fuzzes the GGUF reader and importer (import/Gguf.h, import/GgufImport.h,
// import/GgufTokenizer.h): any bytes give a file or a message; every tensor
// of a parsed file dequantises or says why; a parsed file converts to a
// checkpoint (config and tensors) or names what is wrong; its vocabulary
// converts to a tokenizer.json (or, an "rwkv" one, a World vocabulary file)
// or says why. The metadata-only parse of every
// prefix agrees with the whole parse's tensor infos.
#include "import/Gguf.h"
#include "import/GgufImport.h"
#include "import/GgufTokenizer.h"

#include <cstdlib>

using namespace ssm::importer;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  GgufFile file;
  std::string error;
  const bool ok = parseGguf(std::vector<uint8_t>(data, data + size), file, error, "fuzz.gguf");
  GgufFile meta;
  std::string metaError;
  const bool metaOk = parseGguf(std::vector<uint8_t>(data, data + size), meta, metaError,
                                "fuzz.gguf", /*metadataOnly=*/true);
  if (!ok) {
    if (error.empty())
      std::abort();
    return 0;
  }
  // What parses whole parses without its data too, with the same tensors.
  if (!metaOk || meta.tensors.size() != file.tensors.size())
    std::abort();
  for (const GgufTensor &t : file.tensors) {
    if (t.numel() > (int64_t(1) << 22))
      continue; // valid, but too slow to convert in a fuzzing loop
    std::vector<float> values;
    std::string e;
    if (!ggufToFloats(t, values, e) && e.empty())
      std::abort();
  }
  GgufCheckpoint ckpt;
  if (!ggufToCheckpoint(file, ckpt, error) && error.empty())
    std::abort();
  std::string tj, cj, summary;
  error.clear();
  if (!ggufTokenizerJson(file, tj, cj, summary, error) && error.empty())
    std::abort();
  std::string world;
  error.clear();
  if (!ggufWorldVocab(file, world, summary, error) && error.empty())
    std::abort();
  return 0;
}
