// ssm-tokenize: one JSON string per line in, one JSON array of token ids per line out (or the reverse), with a Hugging Face tokenizer.json.
//
//   ssm-tokenize <tokenizer.json | model-dir> [--decode] [--add-special] [--skip-special]
//
// A thin shell over runtime/tokenizer/Tokenizer.h. Exit codes (CONTRACTS.md):
// 0 every line done; 2 could not run (bad arguments, a missing or malformed
// tokenizer, an unsupported component, a line that is not the JSON expected,
// text that is not UTF-8, a negative id). Lines before a bad one are written.
#include "import/Gguf.h"
#include "import/GgufTokenizer.h"
#include "runtime/tokenizer/Tokenizer.h"
#include "tools/Version.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using ssm::rt::Status;
using ssm::rt::tok::Tokenizer;

const char *kUsage =
    "ssm-tokenize: text to token ids and back with a model's tokenizer\n"
    "\n"
    "usage:\n"
    "  ssm-tokenize <tokenizer.json | model-dir | model.gguf> [--add-special]\n"
    "  ssm-tokenize <tokenizer.json | model-dir | model.gguf> --decode [--skip-special]\n"
    "\n"
    "Reads standard input line by line. Each line is one JSON string (the text,\n"
    "with \\n and other escapes as JSON writes them); each output line is the JSON\n"
    "array of its token ids. With --decode each line is a JSON array of ids and\n"
    "each output line the JSON string of their text.\n"
    "\n"
    "The tokenizer is a Hugging Face tokenizer.json (byte-level BPE as GPT-2, Qwen,\n"
    "Llama 3; SentencePiece-style BPE with byte fallback as Llama 2, Mistral), or\n"
    "the one in a model folder (ssm-import copies it from the checkpoint), or the\n"
    "vocabulary inside a GGUF file (tokenizer.ggml.*: gpt2 and llama models,\n"
    "converted as ssm-import converts it; docs/gguf.md).\n"
    "tokenizer_config.json beside it names the special tokens. Special tokens\n"
    "written in the text (<|im_start|>, <s>) are always matched.\n"
    "\n"
    "Options:\n"
    "  --decode        ids to text\n"
    "  --add-special   add the special tokens the tokenizer's template puts around a\n"
    "                  text (a bos token for Llama-style tokenizers; none for Qwen)\n"
    "  --skip-special  with --decode: leave special tokens out of the text\n"
    "  --info          print the tokenizer's description, vocabulary size and special\n"
    "                  token ids as one JSON object, then exit\n"
    "  -h, --help      this text\n"
    "  --version       the version\n"
    "\n"
    "Exit status: 0 every line done; 2 could not run (bad arguments, a missing,\n"
    "malformed or unsupported tokenizer, a line that is not the JSON expected, text\n"
    "that is not UTF-8, a negative id); the lines before a bad one are written.\n";

int cannotRun(const std::string &msg) {
  std::cout.flush();
  std::cerr << "ssm-tokenize: error: " << msg << "\n";
  return 2;
}

/// A JSON value as one line (UTF-8 as is; our strings are valid UTF-8).
std::string oneLine(const json &v) { return v.dump(-1, ' ', false, json::error_handler_t::replace); }

} // namespace

int main(int argc, char **argv) {
  std::string path;
  bool decode = false, addSpecial = false, skipSpecial = false, info = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help" || a == "-help") {
      std::cout << kUsage;
      return 0;
    } else if (a == "--version" || a == "-version") {
      std::cout << ssm::tools::versionText("ssm-tokenize");
      return 0;
    } else if (a == "--decode" || a == "-decode") {
      decode = true;
    } else if (a == "--add-special" || a == "-add-special") {
      addSpecial = true;
    } else if (a == "--skip-special" || a == "-skip-special") {
      skipSpecial = true;
    } else if (a == "--info" || a == "-info") {
      info = true;
    } else if (a.size() > 1 && a[0] == '-') {
      return cannotRun("unknown option '" + a + "' (see --help)");
    } else if (path.empty()) {
      path = a;
    } else {
      return cannotRun("one tokenizer only, got '" + path + "' and '" + a + "' (see --help)");
    }
  }
  if (path.empty())
    return cannotRun("no tokenizer given (a tokenizer.json or a model folder; see --help)");
  if (addSpecial && decode)
    return cannotRun("--add-special is for encoding; with --decode use --skip-special");
  if (skipSpecial && !decode)
    return cannotRun("--skip-special is for --decode");

  std::error_code ec;
  Status st;
  std::unique_ptr<Tokenizer> tok;
  if (fs::path(path).extension() == ".gguf") {
    ssm::importer::GgufFile file;
    std::string tj, cj, summary, error;
    if (!ssm::importer::readGgufMetadata(path, file, error))
      return cannotRun(error);
    // RWKV's World vocabulary (tokenizer.ggml.model "rwkv"), else tokenizer.json's kinds.
    const ssm::importer::GgufValue *m = file.find("tokenizer.ggml.model");
    if (m && m->type == ssm::importer::GgufValueType::String && m->s == "rwkv") {
      if (!ssm::importer::ggufWorldVocab(file, tj, summary, error))
        return cannotRun(error);
      tok = Tokenizer::fromWorldVocab(tj, path + " (its vocabulary)", st);
    } else if (!ssm::importer::ggufTokenizerJson(file, tj, cj, summary, error)) {
      return cannotRun(error);
    } else {
      tok = Tokenizer::fromJson(tj, cj, path + " (its vocabulary)", st);
    }
    if (!tok)
      return cannotRun(st.message());
  }
  if (fs::is_directory(path, ec) && !Tokenizer::inFolder(path) &&
      fs::exists(fs::path(path) / "model.json", ec))
    return cannotRun(path + ": this model folder has no tokenizer (no tokenizer.json; ssm-import copies "
                            "it from a checkpoint folder that has one)");
  if (!tok)
    tok = Tokenizer::open(path, st);
  if (!tok)
    return cannotRun(st.message());

  if (info) {
    const auto &s = tok->special();
    std::cout << oneLine(json{{"description", tok->description()},
                              {"vocab_size", tok->vocabSize()},
                              {"bos", s.bos},
                              {"eos", s.eos},
                              {"pad", s.pad},
                              {"unk", s.unk}})
              << "\n";
    return 0;
  }

  std::ios::sync_with_stdio(false);
  std::string line;
  std::vector<int32_t> ids;
  std::string text;
  for (size_t lineNo = 1; std::getline(std::cin, line); ++lineNo) {
    const std::string where = "<stdin>:" + std::to_string(lineNo) + ": ";
    json in;
    try {
      in = json::parse(line);
    } catch (const json::exception &e) {
      return cannotRun(where + "not valid JSON (" + e.what() + ")");
    }
    if (!decode) {
      if (!in.is_string())
        return cannotRun(where + "expected a JSON string (the text), got " + std::string(in.type_name()));
      ids.clear();
      st = tok->encode(in.get_ref<const std::string &>(), addSpecial, ids);
      if (!st)
        return cannotRun(where + st.message());
      std::cout << oneLine(json(ids)) << "\n";
    } else {
      if (!in.is_array())
        return cannotRun(where + "expected a JSON array of token ids, got " + std::string(in.type_name()));
      ids.clear();
      for (size_t k = 0; k < in.size(); ++k) {
        const json &v = in[k];
        const bool int32 =
            v.is_number_integer() &&
            (v.is_number_unsigned() ? v.get<uint64_t>() <= INT32_MAX
                                    : v.get<int64_t>() >= INT32_MIN && v.get<int64_t>() <= INT32_MAX);
        if (!int32)
          return cannotRun(where + "element " + std::to_string(k) + " (" + oneLine(v) +
                           ") is not an int32 token id");
        ids.push_back(static_cast<int32_t>(v.get<int64_t>()));
      }
      st = tok->decode(ids.data(), ids.size(), skipSpecial, text);
      if (!st)
        return cannotRun(where + st.message());
      std::cout << oneLine(json(text)) << "\n";
    }
    std::cout.flush(); // a script may wait for each answer
  }
  return 0;
}
