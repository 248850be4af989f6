// ssm-import: model files -> a model directory (model.mlir, weights.safetensors, model.json).
//
//   ssm-import rwkv <model.bin> -o <dir> [--force] [--seq-len N] [--all-logits] [--weights W]
//   ssm-import mamba <model.safetensors> [--config config.json] -o <dir> [--force] [--seq-len N]
//              [--all-logits] [--weights W] [--batch B]
//
// model.mlir is buildModelMLIR(model.json, N, rows) (import/ModelBuilder.h) with its
// weight arguments typed as weights.safetensors stores them (passes/WeightStorage.h);
// it is parsed and verified before anything is written. Exit codes
// (CONTRACTS.md): 0 written; 1 the generated graph did not verify (a bug
// here, reported with the diagnostics); 2 could not run (bad arguments,
// missing, truncated or malformed input, unsupported model, output exists).
#include "import/FileIO.h"
#include "import/ConfigFields.h"
#include "import/Gguf.h"
#include "import/GgufImport.h"
#include "import/GgufTokenizer.h"
#include "import/HybridModel.h"
#include "import/ModelBuilder.h"
#include "import/RwkvFile.h"
#include "import/RwkvModel.h"
#include "import/Safetensors.h"
#include "tools/CompiledLengths.h"
#include "tools/StaleWork.h"
#include "tools/TargetCheck.h"
#include "import/WeightStore.h"
#include "passes/ActivationQuant.h"
#include "passes/InitAll.h"
#include "passes/WeightStorage.h"
#include "runtime/tokenizer/Tokenizer.h"
#include "runtime/tokenizer/WorldVocab.h"
#include "tools/Version.h"

#include "import/MambaModel.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace ssm::importer;

namespace {

using ssm::tools::kDefaultSeqLen;

const char *kUsage =
    "ssm-import: import a model into an ssm-opt model directory\n"
    "\n"
    "usage:\n"
    "  ssm-import rwkv <model.bin> -o <dir> [--force] [--seq-len N] [--all-logits]\n"
    "                  [--weights source|f32|f16|bf16|q8] [--batch B] [--compile [--target T]]\n"
    "  ssm-import mamba <model.safetensors> [--config <config.json>] -o <dir> [--force] [--seq-len N]\n"
    "                   [--all-logits] [--weights source|f32|f16|bf16|q8] [--batch B]\n"
    "                   [--prefill-batch B] [--compile [--target T]]\n"
    "  ssm-import <checkpoint-folder> -o <dir> [--context N] [the options above]\n"
    "  ssm-import <file.gguf> -o <dir> [--context N] [the options above]\n"
    "\n"
    "Formats:\n"
    "  rwkv   an rwkv.cpp file (FP32 or FP16; RWKV-4, 5.1, 5.2, 6, 7)\n"
    "  mamba  a Mamba-1 or Mamba-2 checkpoint (safetensors, F32, F16 or BF16) with its\n"
    "         config.json (Mamba-2: model_type \"mamba2\" or ssm_cfg.layer \"Mamba2\"),\n"
    "         in transformers' layout (MambaForCausalLM: backbone.embeddings.weight,\n"
    "         MambaConfig fields) or mamba_ssm's (MambaLMHeadModel:\n"
    "         backbone.embedding.weight, d_model / n_layer / ssm_cfg), told apart by\n"
    "         what the files hold\n"
    "\n"
    "  <file.gguf>  a GGUF file (llama.cpp's format, v2 / v3): general.architecture\n"
    "         lfm2, granitehybrid, falcon-h1, qwen35, mamba, mamba2, rwkv6 or rwkv7;\n"
    "         F32, F16,\n"
    "         BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K .. Q6_K tensors: Q8_0 matrices\n"
    "         kept as q8 (their int8 blocks and f16 scales copied), Q6_K ones as int8\n"
    "         blocks of 16 with f32 scales (not for RWKV: dequantised), F16 / BF16\n"
    "         kept, the rest dequantised to f32 (the\n"
    "         summary names them; --weights f32/f16/bf16 then stores them so); its\n"
    "         vocabulary becomes the folder's tokenizer.json\n"
    "         (docs/gguf.md)\n"
    "\n"
    "  <checkpoint-folder>  a Hugging Face folder (config.json + model.safetensors, or\n"
    "         its shards with model.safetensors.index.json; what was found is printed):\n"
    "         the architecture from config.json's model_type: mamba, mamba2, lfm2\n"
    "         (LFM2 / LFM2.5), granitemoehybrid (Granite 4.0-H, dense MLP),\n"
    "         falcon_h1 (Falcon-H1), qwen3_5_text / qwen3_5 (Qwen3.5, dense; the text\n"
    "         model of a qwen3_5 checkpoint), qwen3_next (dense Qwen3-Next)\n"
    "\n"
    "Writes <dir>/model.mlir (@forward_sequence for N tokens, default 16, returning\n"
    "the last position's logits, and @forward_step for one token),\n"
    "<dir>/weights.safetensors (the parameters, stored as --weights says) and\n"
    "<dir>/model.json (architecture, config, states, parameters), and copies the\n"
    "checkpoint's tokenizer.json and tokenizer_config.json (mamba and checkpoint\n"
    "folders: the files beside the weights) when the runtime can read them.\n"
    "\n"
    "Options:\n"
    "  -o, --output <dir>  the model directory (created; an existing non-empty one\n"
    "                      is refused unless --force)\n"
    "  --force             write into an existing non-empty directory\n"
    "  --seq-len N[,M...]  tokens of @forward_sequence in model.mlir (default 16); the\n"
    "                      runner regenerates the graph for any length. With --compile,\n"
    "                      a list compiles one module per length: a prompt runs as the\n"
    "                      longest calls that fit, so 128,16 runs 1016 tokens as 7 + 7\n"
    "                      calls + 8 steps where 128 alone leaves 120 single steps\n"
    "                      (--compile without --seq-len: 256,16, as ssm-run compiles\n"
    "                      a folder on first use; 256 at most the KV caches' --context)\n"
    "  --all-logits        @forward_sequence in model.mlir returns every position's\n"
    "                      logits (L, vocab) instead of the last one's (1, vocab)\n"
    "  --activations A     GGUF files: ggml (default) quantises the activations of each\n"
    "                      matmul as llama.cpp's CPU backend does against that weight's\n"
    "                      type (Q8_0 blocks for Q4_0 / Q5_0 / Q8_0 weights, Q8_K for\n"
    "                      the K-quants, f16 / bf16 roundings), so the logits are\n"
    "                      llama.cpp's on the same file; f32 keeps them f32 (the\n"
    "                      weights' exact dequantisation times f32 activations)\n"
    "  --config <file>     config.json (mamba; default: config.json beside the model)\n"    "  --weights W         how weights are stored and read by the kernels (computed\n"
    "                      in f32 either way): source (default) keeps 16-bit tensors of\n"
    "                      the model file in 16 bits and the rest in f32; f32 widens\n"
    "                      every tensor; f16 / bf16 store the matrices (rank-2 *.weight:\n"
    "                      projections, embedding, head) in that type; q8 stores the\n"
    "                      matrices whose last dim is a multiple of 32 as int8 with one\n"
    "                      f16 scale per block of 32 (ggml's Q8_0), the rest in f32\n"
    "  --compile           also compile the folder into <dir>/compiled/seq<L>, one module\n"
    "                      per length of --seq-len (default: calls of 256 and 16 tokens),\n"
    "                      each with the one-token step (the ssm-compile next to\n"
    "                      ssm-import), so the folder is deployable: prompts of any\n"
    "                      length run with no compilation; it prints the lengths, the\n"
    "                      folders and the time; a failed compile publishes nothing\n"
    "  --target T          with --compile: the Halide target (default host)\n"
    "  --batch B           also write @forward_step_batched: one token of\n"
    "                      each of B streams per call (tokens (B), states with a\n"
    "                      leading dim B, logits (B, vocab)), so every weight is read\n"
    "                      once for B streams; ssm_streams_step uses it (1 to 1024)\n"
    "  --prefill-batch B   also write @forward_sequence_batched (every architecture): the\n"
    "                      --seq-len tokens of each of B streams per call (each\n"
    "                      compiled length gets one), so a server prefills B\n"
    "                      prompts reading every weight once (ssm-serve; 1 to 1024)\n"
    "  --context N         hybrids: the positions each stream's KV cache holds\n"
    "                      (default: max_position_embeddings, at most 4096); a\n"
    "                      stream fed past it fails with a named error; --seq-len\n"
    "                      lengths are at most N (its default 16 becomes N when longer)\n"
    "  -h, --help          this text\n"
    "\n"
    "Exit status: 0 written, 1 the generated graph failed to verify, 2 could not run\n"
    "(bad arguments, unreadable/truncated/malformed input, unsupported model, output exists).\n";

/// The output folder as the user named it (the importers write a staging copy).
std::string gOutputName;
/// --weights.
WeightsMode gWeights = WeightsMode::Source;

/// " (--weights q8)" in the summary line, when not the default.
std::string weightsNote() {
  return gWeights == WeightsMode::Source ? "" : std::string(" (--weights ") + weightsModeName(gWeights) + ")";
}

/// --activations: true (ggml, the default) gives a GGUF's matmuls the
/// activation quantisation llama.cpp's CPU backend applies against each
/// weight's type; false (f32) leaves them f32.
bool gGgmlActivations = true;
/// Weight name -> ssm.quantize_activations format, from the GGUF's tensor
/// types (empty unless a GGUF is imported with --activations ggml); written
/// into model.json as "activation_quant", so regenerated graphs get it too.
std::map<std::string, std::string> gActivationFormats;
/// What the last storeGraph's activation quantisation did.
ssm::ActivationQuantSummary gActivationSummary;

/// Types the weight arguments of `text` as `weights` stores them, then
/// quantises the activations of the matmuls gActivationFormats names.
bool storeGraph(std::string &text, const StFile &weights, std::string &error) {
  mlir::DialectRegistry registry;
  ssm::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  auto dtypeOf = [&](const std::string &name) -> std::optional<std::string> {
    if (const StTensor *t = weights.find(name))
      return std::string(stDTypeName(t->dtype));
    return std::nullopt;
  };
  if (!ssm::applyWeightStorage(
          text, context, [&](llvm::StringRef p) { return ssm::storageFromDtypes(p, dtypeOf); },
          error))
    return false;
  if (gActivationFormats.empty())
    return true;
  gActivationSummary = {};
  return ssm::applyActivationQuant(text, context, gActivationFormats, gActivationSummary, error);
}

/// The line a GGUF import prints about its activations (after the summary
/// line), and the pass's notes as warnings on stderr.
void printActivationsLine() {
  if (!gGgmlActivations) {
    std::cout << "ssm-import: activations: f32 (--activations f32; llama.cpp quantises them "
                 "against quantised weights)\n";
    return;
  }
  if (gActivationFormats.empty())
    return; // an all-f32 file: nothing is quantised, as in llama.cpp
  std::map<std::string, int> byFormat;
  for (const auto &[name, fmt] : gActivationFormats)
    ++byFormat[fmt];
  std::cout << "ssm-import: activations: quantised as llama.cpp's CPU backend does before "
            << gActivationSummary.matmuls << " matmul" << (gActivationSummary.matmuls == 1 ? "" : "s");
  std::string sep = " (";
  for (const auto &[fmt, n] : byFormat) {
    std::cout << sep << fmt << " for " << n << " weight" << (n == 1 ? "" : "s");
    sep = ", ";
  }
  std::cout << ")\n";
  for (const std::string &n : gActivationSummary.notes)
    std::cerr << "ssm-import: warning: " << n << "\n";
}

/// Adds gActivationFormats to <dir>/model.json as "activation_quant".
bool recordActivationFormats(const std::string &dir, std::string &error) {
  if (gActivationFormats.empty())
    return true;
  const fs::path jsonPath = fs::path(dir) / "model.json";
  std::vector<char> bytes;
  if (!readWholeFile(jsonPath.string(), "model.json", bytes, error))
    return false;
  nlohmann::json j = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (!j.is_object()) {
    error = jsonPath.string() + ": not a JSON object";
    return false;
  }
  j["activation_quant"] = gActivationFormats;
  return writeTextFile(jsonPath, j.dump(2) + "\n", error);
}

int cannotRun(const std::string &msg) {
  std::cerr << "ssm-import: error: " << msg << "\n";
  return 2;
}

/// Work folders of imports into `outDir` that were killed (kill -9, a crash),
/// named with their process id (import/FileIO.h): <dir>.tmp-<pid>, a staged
/// model or, after the swap, the old folder, is removed; <dir>.tmp-<pid>-old,
/// the old folder moved aside where the file system has no RENAME_EXCHANGE,
/// is removed when <dir> exists and put back when it does not. Each is
/// named on stderr. Before, a killed import's folders stayed for good.
void removeStaleImports(const std::string &outDir) {
  std::string dir = outDir;
  while (dir.size() > 1 && dir.back() == '/')
    dir.pop_back();
  fs::path path(dir);
  std::string parent = path.parent_path().string(), prefix = path.filename().string() + ".tmp-";
  for (const std::string &r : ssm::tools::removeStaleWork(parent, prefix))
    std::cerr << "ssm-import: removed " << r << ", the work folder of a run that was killed\n";
  std::error_code ec;
  for (const fs::directory_entry &e : fs::directory_iterator(parent.empty() ? "." : parent, ec)) {
    std::string name = e.path().filename().string();
    long pid = ssm::tools::pidInName(name, prefix, '-');
    if (pid <= 0 || name.size() < 4 || name.compare(name.size() - 4, 4, "-old") != 0 ||
        !ssm::tools::processIsGone(pid))
      continue;
    std::error_code rc;
    if (fs::exists(path, rc)) {
      fs::remove_all(e.path(), rc);
      if (!rc)
        std::cerr << "ssm-import: removed " << e.path().string()
                  << ", the old folder a killed run had moved aside\n";
    } else {
      fs::rename(e.path(), path, rc);
      if (!rc)
        std::cerr << "ssm-import: put back " << dir << " from " << e.path().string()
                  << ", where a killed run had moved it aside\n";
    }
  }
}

/// Parses and verifies `text`; false with the diagnostics on failure.
bool verifyModule(const std::string &text, const std::string &name, std::string &error) {
  mlir::DialectRegistry registry;
  ssm::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, name), llvm::SMLoc());
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context, os);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!module || mlir::failed(mlir::verify(*module))) {
    os.flush();
    error = "the generated graph " + name + " does not verify:\n" + diagnostics;
    return false;
  }
  return true;
}

int importRwkv(const std::string &input, const std::string &outDir, bool force, int64_t seqLen,
               LogitsRows rows, int64_t batch, GgufCheckpoint *gguf = nullptr) {
  std::string error;
  RwkvFile file;
  if (gguf)
    file = std::move(gguf->rwkv); // an rwkv6 GGUF's tensors under rwkv.cpp's names
  else if (!readRwkvFile(input, file, error))
    return cannotRun(error);
  RwkvConfig config;
  if (!analyseRwkv(file, config, error))
    return cannotRun(input + ": " + error);
  if (gguf)
    config.layerNormEps = gguf->rwkvLayerNormEps;

  // Every tensor of the file, stored as --weights says, row-major
  // (PyTorch) shape, file order.
  StFile weights;
  for (const RwkvTensor &t : file.tensors)
    storeWeight(weights, t.name, t.shape(), t.data, t.type == 1 ? StDType::F16 : StDType::F32,
                gWeights);

  std::string json = rwkvModelJson(config, input, batch);
  std::string mlir;
  if (!buildModelMLIR(json, seqLen, mlir, error, rows))
    return cannotRun(input + ": " + error);
  if (!storeGraph(mlir, weights, error) ||
      !verifyModule(mlir, (fs::path(gOutputName) / "model.mlir").string(), error)) {
    std::cerr << "ssm-import: error: " << error;
    return 1;
  }
  weights.metadata["format"] = "pt";
  weights.metadata["source"] = fs::path(input).filename().string();
  weights.metadata["architecture"] = config.architecture;
  weights.metadata["source_dtype"] = config.dataType;
  weights.metadata["weight_storage"] = weightsModeName(gWeights);

  if (!prepareOutputDir(outDir, force, error))
    return cannotRun(error);
  fs::path dir(outDir);
  if (!writeSafetensors((dir / "weights.safetensors").string(), weights, error) ||
      !writeTextFile(dir / "model.mlir", mlir, error) || !writeTextFile(dir / "model.json", json, error))
    return cannotRun(error);
  std::cout << "ssm-import: " << input << " -> " << gOutputName << ": " << config.architecture
            << ", n_vocab " << config.nVocab << ", n_embed " << config.nEmbed << ", n_layer "
            << config.nLayer;
  if (config.isV5())
    std::cout << ", " << config.heads << " heads x " << config.headSize;
  std::cout << ", " << config.dataType << " -> " << storedDtypeSummary(weights) << ", "
            << weights.tensors.size() << " tensors" << weightsNote();
  if (gguf) {
    std::cout << " (GGUF " << gguf->ggufArchitecture << ": " << gguf->sourceTypes;
    if (!gguf->widened.empty())
      std::cout << "; widened to f32 x" << gguf->widened.size();
    std::cout << ")";
  }
  std::cout << ", seq-len " << seqLen;
  if (batch > 0)
    std::cout << ", step batch " << batch;
  std::cout << "\n";
  return 0;
}

int importMambaModel(const std::string &input, const std::string &configPath,
                     const std::string &outDir, bool force, int64_t seqLen, LogitsRows rows,
                     int64_t batch, const GgufCheckpoint *gguf = nullptr) {
  std::string configFile = configPath;
  if (gguf)
    configFile = input + " (its metadata)";
  if (configFile.empty()) {
    // As from_pretrained finds it: config.json in the checkpoint's folder.
    fs::path beside = fs::path(input).parent_path() / "config.json";
    std::error_code ec;
    if (!fs::exists(beside, ec))
      return cannotRun("mamba needs --config <config.json> (no " + beside.string() +
                       " beside the model)");
    configFile = beside.string();
  }
  std::string error;
  StFile stored; // the tensors written, without their data
  if (gguf ? !importMambaFrom(gguf->config, gguf->tensors, input, configFile, outDir, force,
                             seqLen, error, rows, gWeights, &stored, batch)
           : !importMamba(input, configFile, outDir, force, seqLen, error, rows, gWeights,
                          &stored, batch))
    return cannotRun(error);
  // Type the weights as stored, then check what was written, as for RWKV.
  std::string written = (fs::path(outDir) / "model.mlir").string();
  std::vector<char> text;
  if (!readWholeFile(written, "an MLIR file", text, error))
    return cannotRun(error);
  std::string mlir(text.begin(), text.end());
  if (!storeGraph(mlir, stored, error) || !verifyModule(mlir, written, error)) {
    std::cerr << "ssm-import: error: " << error;
    return 1;
  }
  if (!writeTextFile(written, mlir, error))
    return cannotRun(error);
  // What was read, from the model.json just written.
  std::vector<char> modelJson;
  std::string summary = "mamba1";
  if (readWholeFile((fs::path(outDir) / "model.json").string(), "a JSON file", modelJson, error)) {
    nlohmann::json j = nlohmann::json::parse(modelJson.begin(), modelJson.end(), nullptr, false);
    if (j.is_object())
      summary = j.value("architecture", std::string("mamba1")) + ", " +
                j.value("source_layout", std::string("?")) + " layout, " +
                j.value("source_dtypes", std::string("?")) + " -> " + storedDtypeSummary(stored) +
                weightsNote();
    if (gguf) {
      // As for the hybrids: what the file held and what was kept (docs/gguf.md).
      summary += " (GGUF " + gguf->ggufArchitecture + ": " + gguf->sourceTypes;
      if (gguf->keptQ8 > 0)
        summary += "; Q8_0 as int8 blocks x" + std::to_string(gguf->keptQ8);
      if (gguf->keptQ6K > 0)
        summary += "; Q6_K as int8 blocks of 16 x" + std::to_string(gguf->keptQ6K);
      if (gguf->keptQ4_0 > 0)
        summary += "; Q4_0 as int8 blocks x" + std::to_string(gguf->keptQ4_0);
      if (gguf->keptQ5_0 > 0)
        summary += "; Q5_0 as int8 blocks x" + std::to_string(gguf->keptQ5_0);
      if (gguf->keptQ4_K > 0)
        summary += "; Q4_K as int8 blocks with mins x" + std::to_string(gguf->keptQ4_K);
      if (gguf->keptQ5_K > 0)
        summary += "; Q5_K as int8 blocks with mins x" + std::to_string(gguf->keptQ5_K);
      if (!gguf->widened.empty())
        summary += "; widened to f32 x" + std::to_string(gguf->widened.size());
      summary += ")";
    }
  }
  std::cout << "ssm-import: " << input << " -> " << gOutputName << ": " << summary << ", seq-len "
            << seqLen;
  if (batch > 0)
    std::cout << ", step batch " << batch;
  std::cout << "\n";
  return 0;
}

int importHybridModel(const std::string &safetensors, const std::string &configFile,
                      const std::string &outDir, int64_t seqLen, int64_t context, LogitsRows rows,
                      int64_t batch, const GgufCheckpoint *gguf = nullptr) {
  std::string error, summary;
  StFile stored;
  bool ok = gguf ? importHybridFrom(gguf->config, gguf->tensors, safetensors,
                                    safetensors + " (its metadata)", outDir, seqLen, context,
                                    error, rows, gWeights, &stored, batch, &summary)
                 : importHybrid(safetensors, configFile, outDir, seqLen, context, error, rows,
                                gWeights, &stored, batch, &summary);
  if (!ok)
    return cannotRun(error);
  if (gguf) {
    // Q8_0 matrices kept as q8, F16 / BF16 as themselves; the tensors
    // dequantised or widened to f32 named (docs/gguf.md).
    summary += " (GGUF " + gguf->ggufArchitecture + ": " + gguf->sourceTypes;
    if (gguf->keptQ8 > 0)
      summary += (gWeights == WeightsMode::Source || gWeights == WeightsMode::Q8
                       ? "; Q8_0 kept as q8 x"
                       : "; Q8_0 dequantised for --weights x") +
                 std::to_string(gguf->keptQ8);
    if (gguf->keptQ6K > 0)
      summary += (gWeights == WeightsMode::Source || gWeights == WeightsMode::Q8
                       ? "; Q6_K kept as int8 blocks of 16 x"
                       : "; Q6_K dequantised for --weights x") +
                 std::to_string(gguf->keptQ6K);
    for (auto [n, name] : {std::pair{gguf->keptQ4_0, "Q4_0"}, std::pair{gguf->keptQ5_0, "Q5_0"},
                           std::pair{gguf->keptQ4_K, "Q4_K"}, std::pair{gguf->keptQ5_K, "Q5_K"}})
      if (n > 0)
        summary += std::string("; ") + name +
                   (gWeights == WeightsMode::Source || gWeights == WeightsMode::Q8
                        ? (name[3] == 'K' ? " kept as q8 with mins x" : " kept as q8 x")
                        : " dequantised for --weights x") +
                   std::to_string(n);
    if (!gguf->widened.empty()) {
      summary += "; widened to f32 x" + std::to_string(gguf->widened.size()) + ":";
      for (size_t i = 0; i < gguf->widened.size() && i < 4; ++i)
        summary += (i ? ", " : " ") + gguf->widened[i];
      if (gguf->widened.size() > 4)
        summary += ", ...";
    }
    summary += ")";
  }
  std::string written = (fs::path(outDir) / "model.mlir").string();
  std::vector<char> text;
  if (!readWholeFile(written, "an MLIR file", text, error))
    return cannotRun(error);
  std::string mlir(text.begin(), text.end());
  if (!storeGraph(mlir, stored, error) || !verifyModule(mlir, written, error)) {
    std::cerr << "ssm-import: error: " << error;
    return 1;
  }
  if (!writeTextFile(written, mlir, error))
    return cannotRun(error);
  std::cout << "ssm-import: " << safetensors << " -> " << gOutputName << ": " << summary << " -> "
            << storedDtypeSummary(stored) << weightsNote() << ", seq-len " << seqLen;
  if (batch > 0)
    std::cout << ", step batch " << batch;
  std::cout << "\n";
  return 0;
}

/// RWKV's World vocabulary (rwkv_vocab_v20230424.txt) beside a .bin, checked
/// by reading it, into the folder; none there, or one that does not read
/// (a warning), leaves the model running from token ids.
bool copyWorldVocab(const fs::path &checkpoint, const std::string &staged, std::string &error) {
  std::error_code ec;
  const fs::path vocab = checkpoint / ssm::rt::tok::kWorldVocabFile;
  if (!fs::exists(vocab, ec))
    return true;
  ssm::rt::Status st;
  auto tok = ssm::rt::tok::Tokenizer::open(vocab.string(), st);
  if (!tok) {
    std::cerr << "ssm-import: warning: the World vocabulary is not copied (the model runs from "
                 "token ids): " << st.message() << "\n";
    return true;
  }
  fs::copy_file(vocab, fs::path(staged) / ssm::rt::tok::kWorldVocabFile,
                fs::copy_options::overwrite_existing, ec);
  if (ec) {
    error = "cannot copy the World vocabulary from " + vocab.string() + ": " + ec.message();
    return false;
  }
  std::cout << "ssm-import: tokenizer: " << ssm::rt::tok::kWorldVocabFile << " (" << tok->description()
            << ")\n";
  return true;
}

/// The checkpoint's tokenizer, as from_pretrained finds it (tokenizer.json and
/// tokenizer_config.json in the checkpoint's folder), copied into the model
/// folder so that ssm-run --prompt and ssm-tokenize use it. One the runtime
/// cannot read (a Unigram model, say) is left out with a warning: the model
/// still runs from token ids. A checkpoint without one copies nothing.
bool copyTokenizer(const fs::path &checkpoint, const std::string &staged, std::string &error) {
  std::error_code ec;
  const fs::path json = checkpoint / "tokenizer.json", config = checkpoint / "tokenizer_config.json";
  if (!fs::exists(json, ec))
    return true;
  ssm::rt::Status st;
  auto tok = ssm::rt::tok::Tokenizer::open(json.string(), st);
  if (!tok) {
    std::cerr << "ssm-import: warning: the tokenizer is not copied (the model runs from token ids): "
              << st.message() << "\n";
    return true;
  }
  std::string copied = "tokenizer.json";
  fs::copy_file(json, fs::path(staged) / "tokenizer.json", fs::copy_options::overwrite_existing, ec);
  if (!ec && fs::exists(config)) {
    fs::copy_file(config, fs::path(staged) / "tokenizer_config.json",
                  fs::copy_options::overwrite_existing, ec);
    copied += ", tokenizer_config.json";
  }
  if (ec) {
    error = "cannot copy the tokenizer from " + checkpoint.string() + ": " + ec.message();
    return false;
  }
  std::cout << "ssm-import: tokenizer: " << copied << " (" << tok->description() << ", "
            << tok->vocabSize() << " ids)\n";
  return true;
}

/// The GGUF's vocabulary as tokenizer.json + tokenizer_config.json
/// (import/GgufTokenizer.h), checked by opening it; one that is not
/// converted is left out with a warning (the model still runs from token ids).
int writeGgufTokenizer(const GgufFile &file, const std::string &staged) {
  std::string tj, cj, summary, error;
  // RWKV's World vocabulary: rwkv_vocab_v20230424.txt, as beside a .bin.
  if (const GgufValue *m = file.find("tokenizer.ggml.model");
      m && m->type == GgufValueType::String && m->s == "rwkv") {
    std::string text;
    if (!ggufWorldVocab(file, text, summary, error)) {
      std::cerr << "ssm-import: warning: no tokenizer is written (the model runs from token ids): "
                << error << "\n";
      return 0;
    }
    const fs::path vocab = fs::path(staged) / ssm::rt::tok::kWorldVocabFile;
    ssm::rt::Status st;
    std::unique_ptr<ssm::rt::tok::Tokenizer> tok;
    if (writeTextFile(vocab, text, error))
      tok = ssm::rt::tok::Tokenizer::open(vocab.string(), st);
    if (!tok) {
      std::error_code ec;
      fs::remove(vocab, ec);
      std::cerr << "ssm-import: warning: no tokenizer is written (the model runs from token ids): "
                << (error.empty() ? st.message() : error) << "\n";
      return 0;
    }
    std::cout << "ssm-import: tokenizer: " << ssm::rt::tok::kWorldVocabFile
              << " from the GGUF's vocabulary (" << summary << ")\n";
    return 0;
  }
  if (!ggufTokenizerJson(file, tj, cj, summary, error)) {
    std::cerr << "ssm-import: warning: no tokenizer is written (the model runs from token ids): "
              << error << "\n";
    return 0;
  }
  ssm::rt::Status st;
  auto tok = ssm::rt::tok::Tokenizer::fromJson(tj, cj, file.path + " (its vocabulary)", st);
  if (!tok) {
    std::cerr << "ssm-import: warning: no tokenizer is written (the model runs from token ids): "
              << st.message() << "\n";
    return 0;
  }
  if (!writeTextFile(fs::path(staged) / "tokenizer.json", tj, error) ||
      !writeTextFile(fs::path(staged) / "tokenizer_config.json", cj, error))
    return cannotRun(error);
  std::cout << "ssm-import: tokenizer: tokenizer.json, tokenizer_config.json from the GGUF's "
               "vocabulary ("
            << summary << ")\n";
  return 0;
}

/// The lengths as "256 and 16" (longest first).
std::string lengthList(std::vector<int64_t> lengths) {
  std::sort(lengths.rbegin(), lengths.rend());
  std::string list;
  for (size_t i = 0; i < lengths.size(); ++i)
    list += (i == 0 ? "" : i + 1 == lengths.size() ? " and " : ", ") + std::to_string(lengths[i]);
  return list;
}

/// --compile: `ssm-compile <staged>` (the model folder mode) before the
/// folder is published, so a failed compile publishes nothing. Its stderr
/// (progress on a terminal, errors) passes through; ssm-import says which
/// lengths it compiles before it starts (stderr) and, when done, the
/// deployed modules' final paths and the time it took (stdout).
/// `defaultLengths` (no --seq-len given): the ladder ssm-run compiles a
/// folder for on first use (tools/CompiledLengths.h), 256 tokens bounded by
/// the KV caches' context, besides model.mlir's `seqLen`.
/// --prefill-batch B: model.json gets functions.sequence_batched (B streams
/// per call of @forward_sequence_batched) and model.mlir is written again
/// from it (buildModelMLIR: the same graph, the batched sequence function
/// added), with the weights' storage as the import wrote them. An
/// architecture whose layers have no batched sequence form is refused by name.
int addPrefillBatch(const std::string &staged, int64_t prefillBatch, int64_t seqLen,
                    LogitsRows rows) {
  std::string error;
  std::vector<char> bytes;
  const fs::path jsonPath = fs::path(staged) / "model.json";
  if (!readWholeFile(jsonPath.string(), "model.json", bytes, error))
    return cannotRun(error);
  nlohmann::json j = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (!j.is_object() || !j.contains("functions") || !j["functions"].is_object())
    return cannotRun("--prefill-batch: the imported model.json has no \"functions\"");
  j["functions"]["sequence_batched"] = {{"name", "forward_sequence_batched"},
                                        {"batch", prefillBatch}};
  const std::string json = j.dump(2) + "\n";
  std::string mlir;
  StFile stored;
  if (!buildModelMLIR(json, seqLen, mlir, error, rows) ||
      !readSafetensors((fs::path(staged) / "weights.safetensors").string(), stored, error) ||
      !storeGraph(mlir, stored, error))
    return cannotRun("--prefill-batch: " + error);
  const std::string written = (fs::path(staged) / "model.mlir").string();
  if (!verifyModule(mlir, written, error)) {
    std::cerr << "ssm-import: error: " << error;
    return 1;
  }
  if (!writeTextFile(written, mlir, error) || !writeTextFile(jsonPath, json, error))
    return cannotRun(error);
  std::cout << "ssm-import: prefill batch " << prefillBatch
            << " (@forward_sequence_batched)\n";
  return 0;
}

int compileStaged(const std::string &compiler, const std::string &staged,
                  const std::string &outDir, const std::string &target,
                  std::vector<int64_t> moreLengths, int64_t seqLen, bool defaultLengths,
                  LogitsRows rows) {
  // model.mlir into compiled/seq<N> (ssm-compile <dir>), then each further
  // length's graph into compiled/seq<L>: the runtime runs a prompt as the
  // longest compiled calls that fit, so a ladder (e.g. 256,16) leaves at
  // most a few calls of each length where one length left a remainder of
  // single steps (or, 16 alone, a 512-token prompt 32 calls).
  std::vector<std::pair<std::vector<std::string>, std::string>> jobs; // args, temporary graph
  jobs.push_back({{compiler, staged}, ""});
  // The further lengths' graphs, with the weights' storage as model.mlir has
  // it (the runner builds other lengths the same way: reference/ModelStream.cpp
  // storedModelGraph); model.json and the weights' dtypes are read once.
  std::string json, error;
  StFile stored;
  {
    std::vector<char> bytes;
    if (!readWholeFile((fs::path(staged) / "model.json").string(), "model.json", bytes, error)) {
      std::cerr << "ssm-import: error: --compile: " << error << "; nothing was written to "
                << outDir << "\n";
      return 2;
    }
    json.assign(bytes.begin(), bytes.end());
  }
  // The KV caches' positions (hybrids: config.context_length, the import's
  // --context); none for pure SSMs.
  int64_t context = 0;
  nlohmann::json j = nlohmann::json::parse(json, nullptr, false);
  if (j.is_object() && j.contains("config") && j["config"].is_object() &&
      j["config"].contains("context_length") && j["config"]["context_length"].is_number_integer())
    context = j["config"]["context_length"].get<int64_t>();
  std::string sequenceFunction = "forward_sequence";
  if (j.is_object() && j.contains("functions") && j["functions"].is_object() &&
      j["functions"].contains("sequence") && j["functions"]["sequence"].is_string())
    sequenceFunction = j["functions"]["sequence"].get<std::string>();
  // With a batched sequence function, each length's module holds it too.
  std::string sequenceFunctions = sequenceFunction;
  if (j.is_object() && j.contains("functions") && j["functions"].is_object() &&
      j["functions"].contains("sequence_batched") &&
      j["functions"]["sequence_batched"].is_object() &&
      j["functions"]["sequence_batched"].contains("name") &&
      j["functions"]["sequence_batched"]["name"].is_string())
    sequenceFunctions += "," + j["functions"]["sequence_batched"]["name"].get<std::string>();
  if (defaultLengths)
    for (int64_t len : ssm::tools::defaultCompiledLengths(context, seqLen))
      if (len != seqLen)
        moreLengths.push_back(len);
  for (int64_t len : moreLengths)
    if (context > 0 && len > context) {
      std::cerr << "ssm-import: error: --compile: a sequence of " << len
                << " tokens (--seq-len) is longer than the " << context
                << " positions the KV caches hold (--context); nothing was written to " << outDir
                << "\n";
      return 2;
    }
  if (!moreLengths.empty() &&
      !readSafetensors((fs::path(staged) / "weights.safetensors").string(), stored, error)) {
    std::cerr << "ssm-import: error: --compile: " << error << "; nothing was written to "
              << outDir << "\n";
    return 2;
  }
  std::vector<int64_t> all = moreLengths;
  all.push_back(seqLen);
  std::cout.flush(); // the import's summary first
  std::cerr << "ssm-import: compiling " << outDir << " for calls of " << lengthList(all)
            << (all.size() == 1 && all[0] == 1 ? " token" : " tokens")
            << " and one-token steps"
            << (defaultLengths ? " (the lengths ssm-run compiles a folder for on first use; "
                                 "--seq-len N,M,... --compile names others)"
                               : "")
            << "\n";
  auto start = std::chrono::steady_clock::now();
  for (int64_t len : moreLengths) {
    std::string mlir;
    fs::path file = fs::path(staged) / (".seq" + std::to_string(len) + ".mlir");
    if (!buildModelMLIR(json, len, mlir, error, rows) || !storeGraph(mlir, stored, error) ||
        !writeTextFile(file, mlir, error)) {
      std::cerr << "ssm-import: error: --compile: the graph for " << len << " tokens: " << error
                << "; nothing was written to " << outDir << "\n";
      return 2;
    }
    // Only model.mlir's module needs the step functions (the runtime takes
    // them from any module): the further lengths' modules hold the sequence
    // function alone, which halves their compile time.
    jobs.push_back({{compiler, file.string(), "-o",
                     (fs::path(staged) / "compiled" / ("seq" + std::to_string(len))).string(),
                     "--functions", sequenceFunctions},
                    file.string()});
  }
  // --parent-pid: a killed import takes its ssm-compile along (before, the
  // orphan compiled on for nothing, seconds to minutes of every core).
  const std::string parentPid = "--parent-pid=" + std::to_string(::getpid());
  for (auto &[argv, temporary] : jobs) {
    llvm::SmallVector<llvm::StringRef> args(argv.begin(), argv.end());
    if (!target.empty())
      args.append({"--target", target});
    args.push_back(parentPid);
    std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef("/dev/null"),
                                                  std::nullopt};
    std::string msg;
    int rc = llvm::sys::ExecuteAndWait(compiler, args, std::nullopt, redirects, 0, 0, &msg);
    std::error_code rmEc;
    if (!temporary.empty())
      fs::remove(temporary, rmEc);
    if (rc != 0) {
      std::cerr << "ssm-import: error: --compile: ssm-compile "
                << (msg.empty() ? "exited " + std::to_string(rc) : msg)
                << "; nothing was written to " << outDir << "\n";
      return rc == 1 ? 1 : 2;
    }
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::error_code ec;
  std::vector<std::string> dirs;
  for (const auto &e : fs::directory_iterator(fs::path(staged) / "compiled", ec))
    dirs.push_back((fs::path(outDir) / "compiled" / e.path().filename()).string());
  // seq4 before seq16: by the name's length, then the name.
  std::sort(dirs.begin(), dirs.end(), [](const std::string &a, const std::string &b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  char took[32];
  std::snprintf(took, sizeof took, "%.1f s", seconds);
  std::cout << "ssm-import: compiled calls of " << lengthList(all)
            << (all.size() == 1 && all[0] == 1 ? " token" : " tokens")
            << " and one-token steps in " << took << ": ";
  for (size_t i = 0; i < dirs.size(); ++i)
    std::cout << (i ? ", " : "") << dirs[i];
  std::cout << "; ssm-run " << outDir
            << " runs prompts of any length with no compilation (the longest compiled calls "
               "that fit, then steps)\n";
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> positional;
  std::string outDir, configPath;
  bool force = false, compile = false;
  std::string target;
  LogitsRows rows = LogitsRows::Last;
  int64_t seqLen = kDefaultSeqLen;
  bool activationsGiven = false; // --activations: GGUF files only
  bool seqLenGiven = false; // --seq-len: else --compile compiles the default ladder
  std::vector<int64_t> moreLengths; // --seq-len N,M,...: the lengths after the first
  int64_t batch = 0; // no batched step function
  int64_t prefillBatch = 0; // no batched sequence function
  int64_t context = 0; // hybrids: the config's default
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const std::string &opt, std::string &out) {
      if (i + 1 >= argc)
        return false;
      out = argv[++i];
      (void)opt;
      return true;
    };
    // The value of `--opt=V` or of `--opt V`.
    auto optionValue = [&](std::string &out) {
      if (a.find('=') == std::string::npos)
        return value(a, out);
      out = a.substr(a.find('=') + 1);
      return true;
    };
    // `v` as an integer from 1 to `max`, the whole string.
    auto integerFrom1 = [](const std::string &v, long long max, long long &n) {
      char *end = nullptr;
      n = std::strtoll(v.c_str(), &end, 10);
      return !v.empty() && *end == '\0' && n >= 1 && n <= max;
    };
    if (a == "-h" || a == "--help" || a == "-help") {
      std::cout << kUsage;
      return 0;
    } else if (a == "--version" || a == "-version") {
      std::cout << ssm::tools::versionText("ssm-import");
      return 0;
    } else if (a == "-o" || a == "--output" || a == "-output") {
      if (!value(a, outDir))
        return cannotRun(a + " needs a directory");
    } else if (a.rfind("--output=", 0) == 0 || a.rfind("-o=", 0) == 0) {
      outDir = a.substr(a.find('=') + 1);
    } else if (a == "--force" || a == "-force") {
      force = true;
    } else if (a == "--compile" || a == "-compile") {
      compile = true;
    } else if (a == "--target" || a == "-target" || a.rfind("--target=", 0) == 0) {
      if (!optionValue(target))
        return cannotRun("--target needs a Halide target");
    } else if (a == "--all-logits" || a == "-all-logits") {
      rows = LogitsRows::All;
    } else if (a == "--config" || a == "-config") {
      if (!value(a, configPath))
        return cannotRun(a + " needs a file");
    } else if (a.rfind("--config=", 0) == 0) {
      configPath = a.substr(9);
    } else if (a == "--activations" || a == "-activations" || a.rfind("--activations=", 0) == 0) {
      std::string v;
      if (!optionValue(v))
        return cannotRun("--activations needs ggml or f32");
      if (v != "ggml" && v != "f32")
        return cannotRun("--activations takes ggml or f32, got '" + v + "'");
      gGgmlActivations = v == "ggml";
      activationsGiven = true;
    } else if (a == "--weights" || a == "-weights" || a.rfind("--weights=", 0) == 0) {
      std::string v;
      if (!optionValue(v))
        return cannotRun("--weights needs one of source, f32, f16, bf16, q8");
      if (!parseWeightsMode(v, gWeights))
        return cannotRun("--weights takes source, f32, f16, bf16 or q8, got '" + v + "'");
    } else if (a == "--seq-len" || a == "-seq-len" || a.rfind("--seq-len=", 0) == 0) {
      std::string v;
      if (!optionValue(v))
        return cannotRun("--seq-len needs a positive integer");
      // N, or a comma-separated list N,M,...: model.mlir at the first, and
      // with --compile one module per length.
      moreLengths.clear();
      seqLenGiven = true;
      std::stringstream list(v);
      std::string item;
      bool first = true;
      while (std::getline(list, item, ',')) {
        long long n = 0;
        if (!integerFrom1(item, 1 << 20, n))
          return cannotRun("--seq-len takes integers from 1 to 1048576 (N or N,M,...), got '" + v +
                           "'");
        if (first)
          seqLen = n;
        else if (n != seqLen &&
                 std::find(moreLengths.begin(), moreLengths.end(), n) == moreLengths.end())
          moreLengths.push_back(n);
        first = false;
      }
      if (first || v.back() == ',')
        return cannotRun("--seq-len takes integers from 1 to 1048576 (N or N,M,...), got '" + v +
                         "'");
    } else if (a == "--batch" || a == "-batch" || a.rfind("--batch=", 0) == 0) {
      std::string v;
      long long n = 0;
      if (!optionValue(v))
        return cannotRun("--batch needs a positive integer");
      if (!integerFrom1(v, kMaxStepBatch, n))
        return cannotRun("--batch takes an integer from 1 to " + std::to_string(kMaxStepBatch) +
                         ", got '" + v + "'");
      batch = n;
    } else if (a == "--prefill-batch" || a.rfind("--prefill-batch=", 0) == 0) {
      std::string v;
      long long n = 0;
      if (!optionValue(v))
        return cannotRun("--prefill-batch needs a positive integer");
      if (!integerFrom1(v, kMaxStepBatch, n))
        return cannotRun("--prefill-batch takes an integer from 1 to " +
                         std::to_string(kMaxStepBatch) + ", got '" + v + "'");
      prefillBatch = n;
    } else if (a == "--context" || a == "-context" || a.rfind("--context=", 0) == 0) {
      std::string v;
      long long n = 0;
      if (!optionValue(v))
        return cannotRun("--context needs a positive integer");
      if (!integerFrom1(v, 1 << 30, n))
        return cannotRun("--context takes an integer from 1 to 1073741824, got '" + v + "'");
      context = n;
    } else if (a.size() > 1 && a[0] == '-') {
      return cannotRun("unknown option '" + a + "' (see --help)");
    } else {
      positional.push_back(a);
    }
  }
  if (positional.empty())
    return cannotRun("no format given (rwkv or mamba; see --help)");
  std::string format = positional[0];
  // A checkpoint folder: the architecture from its config.json.
  std::string hybridConfig;
  {
    std::error_code fe;
    if (format != "rwkv" && format != "mamba" && fs::is_directory(format, fe)) {
      fs::path folder(format), cfgPath = folder / "config.json";
      if (!fs::exists(cfgPath, fe))
        return cannotRun(format + ": a folder without config.json (a Hugging Face checkpoint "
                         "folder holds config.json and model.safetensors)");
      std::vector<char> bytes;
      std::string err;
      if (!readWholeFile(cfgPath.string(), "a JSON file", bytes, err))
        return cannotRun(err);
      // Python's json writes Infinity bare (transformers' time_step_limit).
      nlohmann::json cfg = nlohmann::json::parse(
          config_fields::jsonWithNonFiniteAsStrings(std::string(bytes.begin(), bytes.end())),
          nullptr, false);
      if (!cfg.is_object())
        return cannotRun(cfgPath.string() + ": not a JSON object (config.json must be valid JSON)");
      if (!cfg.contains("model_type") || !cfg["model_type"].is_string())
        return cannotRun(cfgPath.string() + ": no model_type string (the architecture is "
                         "taken from it)");
      std::string type = cfg["model_type"].get<std::string>();
      // One file, or shards with their index (Hugging Face's layout past a
      // few GB): what was found is said before anything is read.
      fs::path weights = folder / "model.safetensors";
      fs::path index = folder / "model.safetensors.index.json";
      std::string found;
      if (fs::exists(weights, fe)) {
        found = "model.safetensors";
      } else if (fs::exists(index, fe)) {
        ShardIndex shards;
        std::string err;
        if (!readShardIndex(index.string(), shards, err))
          return cannotRun(err);
        weights = index;
        found = std::to_string(shards.shards.size()) + " safetensors shard" +
                (shards.shards.size() == 1 ? "" : "s") + " (" + shards.shards.front() +
                (shards.shards.size() > 1 ? " ... " + shards.shards.back() : std::string()) +
                ", " + std::to_string(shards.tensorShard.size()) +
                " tensors in model.safetensors.index.json)";
      } else {
        std::string listing;
        for (const auto &e : fs::directory_iterator(folder, fe))
          if (e.path().extension() == ".safetensors" || e.path().extension() == ".bin" ||
              e.path().extension() == ".gguf" || e.path().extension() == ".pt")
            listing += (listing.empty() ? "" : ", ") + e.path().filename().string();
        return cannotRun(format + ": no model.safetensors and no model.safetensors.index.json " +
                         "(a Hugging Face checkpoint folder holds one of them beside config.json)" +
                         (listing.empty() ? std::string() : "; weight files here: " + listing));
      }
      std::cout << "ssm-import: " << format << ": config.json (model_type '" << type << "'), "
                << found << "\n";
      if (type == "mamba" || type == "mamba2") {
        positional = {"mamba", weights.string()};
        if (configPath.empty())
          configPath = cfgPath.string();
      } else if (findHybridByModelType(type)) {
        positional = {"hybrid", weights.string()};
        hybridConfig = configPath.empty() ? cfgPath.string() : configPath;
      } else {
        std::string known = "mamba, mamba2";
        for (const HybridArch &h : hybridArchs())
          known += std::string(", ") + h.modelType;
        return cannotRun(cfgPath.string() + ": model_type '" + type +
                         "' is not one ssm-import reads (known: " + known + ")");
      }
      format = positional[0];
    }
  }
  // A GGUF file (llama.cpp's format): the architecture from general.architecture.
  if (positional.size() == 1 && looksLikeGguf(format)) {
    positional = {"gguf", format};
    format = "gguf";
  }
  if (format != "rwkv" && format != "mamba" && format != "hybrid" && format != "gguf")
    return cannotRun("unknown format '" + format +
                     "' (known: rwkv, mamba, or a checkpoint folder with config.json)");
  if (positional.size() < 2)
    return cannotRun("no model file given (see --help)");
  if (positional.size() > 2)
    return cannotRun("unexpected argument '" + positional[2] + "'");
  if (outDir.empty())
    return cannotRun("no output directory: give -o <dir>");
  if (!target.empty() && !compile)
    return cannotRun("--target goes with --compile");
  if (!moreLengths.empty() && !compile)
    return cannotRun("--seq-len with several lengths goes with --compile (model.mlir holds one "
                     "length; the compiled modules hold the others)");
  std::string compiler;
  if (compile) {
    std::error_code pe;
    fs::path self = fs::read_symlink("/proc/self/exe", pe);
    compiler = (pe ? fs::path(argv[0]) : self).parent_path() / "ssm-compile";
    if (!fs::exists(compiler, pe))
      return cannotRun("--compile: cannot find ssm-compile next to ssm-import (" + compiler + ")");
    // Refused before anything is read or written, as ssm-compile refuses it.
    if (!target.empty())
      if (std::string problem = ssm::tools::targetProblem(compiler, target); !problem.empty())
        return cannotRun(problem);
  }
  const std::string &input = positional[1];
  std::error_code ec;
  if (!fs::exists(input, ec))
    return cannotRun(input + ": no such file");
  if (format == "rwkv" && !configPath.empty())
    return cannotRun("--config is for mamba; an rwkv.cpp file holds its own configuration");
  if (format == "gguf" && !configPath.empty())
    return cannotRun("--config is for mamba; a GGUF file holds its own configuration");
  if (activationsGiven && format != "gguf")
    return cannotRun("--activations is for GGUF files (the other formats' activations are f32)");
  GgufCheckpoint gguf;
  GgufFile ggufFile;
  if (format == "gguf") {
    std::string err;
    if (!readGguf(input, ggufFile, err) || !ggufToCheckpoint(ggufFile, gguf, err))
      return cannotRun(err);
    if (gGgmlActivations)
      for (const auto &[name, type] : gguf.ggmlType) {
        std::string fmt = ssm::activationFormatForGgmlType(ggmlTypeName(type));
        if (!fmt.empty())
          gActivationFormats[name] = fmt;
      }
    // The tensors are converted; the metadata (the vocabulary) is kept.
    for (GgufTensor &t : ggufFile.tensors)
      t.data = nullptr;
    std::vector<uint8_t>().swap(ggufFile.bytes);
  }
  // Written into a temporary sibling and published only when whole and
  // verified: a failed import leaves nothing behind, and never touches
  // what `outDir` held.
  std::string error;
  removeStaleImports(outDir); // first: it may put `outDir` back
  if (!checkOutputDir(outDir, force, error))
    return cannotRun(error);
  std::string staged = stagingDir(outDir);
  fs::remove_all(staged, ec);
  gOutputName = outDir;
  // Mamba-1 / Mamba-2 GGUFs go to the Mamba importer (no attention, no context).
  const bool ggufIsMamba = format == "gguf" && (gguf.ggufArchitecture == "mamba" ||
                                                gguf.ggufArchitecture == "mamba2");
  const bool ggufIsRwkv = format == "gguf" && (gguf.ggufArchitecture == "rwkv6" ||
                                               gguf.ggufArchitecture == "rwkv7");
  if (context > 0 && (ggufIsMamba || ggufIsRwkv || (format != "hybrid" && format != "gguf")))
    return cannotRun("--context is for models with attention layers (KV caches)");
  // A context shorter than the default length: model.mlir's calls hold it.
  if (!seqLenGiven && context > 0 && context < seqLen)
    seqLen = context;
  int rc = format == "rwkv"     ? importRwkv(input, staged, /*force=*/true, seqLen, rows, batch)
           : format == "gguf" && ggufIsRwkv
               ? importRwkv(input, staged, /*force=*/true, seqLen, rows, batch, &gguf)
           : format == "gguf" && ggufIsMamba
               ? importMambaModel(input, "", staged, /*force=*/true, seqLen, rows, batch, &gguf)
           : format == "gguf"   ? importHybridModel(input, "", staged, seqLen, context, rows,
                                                    batch, &gguf)
           : format == "hybrid" ? importHybridModel(input, hybridConfig, staged, seqLen, context,
                                                    rows, batch)
                                : importMambaModel(input, configPath, staged, /*force=*/true,
                                                   seqLen, rows, batch);
  if (rc == 0 && format == "gguf" && !recordActivationFormats(staged, error))
    rc = cannotRun(error);
  if (rc == 0 && format == "gguf")
    printActivationsLine();
  // Checkpoints of Hugging Face's layout keep their tokenizer beside the weights.
  if (rc == 0 && format != "rwkv" && format != "gguf" && !copyTokenizer(fs::path(input).parent_path(), staged, error))
    rc = cannotRun(error);
  if (rc == 0 && format == "rwkv" && !copyWorldVocab(fs::path(input).parent_path(), staged, error))
    rc = cannotRun(error);
  if (rc == 0 && format == "gguf")
    rc = writeGgufTokenizer(ggufFile, staged);
  if (rc == 0 && prefillBatch > 0)
    rc = addPrefillBatch(staged, prefillBatch, seqLen, rows);
  if (rc == 0 && compile)
    rc = compileStaged(compiler, staged, outDir, target, moreLengths, seqLen, !seqLenGiven, rows);
  if (rc == 0 && !publishOutputDir(staged, outDir, error))
    rc = cannotRun(error);
  fs::remove_all(staged, ec);
  return rc;
}
