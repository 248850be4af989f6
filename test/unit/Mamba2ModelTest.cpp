// Mamba-2 import: config validation (both formats), the parameter and state lists, the graph text, and importMamba on Mamba-2 checkpoints.
#include "import/ConfigFields.h"
#include "import/Mamba2Model.h"
#include "import/Safetensors.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace ssm::importer;

/// The shared tiny model's config (Infinity as the importer's reader turns it).
json tinyConfig() {
  return json::parse(R"({"architectures": ["Mamba2ForCausalLM"], "model_type": "mamba2",
    "hidden_size": 64, "num_hidden_layers": 2, "state_size": 16, "expand": 2, "head_dim": 16,
    "num_heads": 8, "n_groups": 1, "conv_kernel": 4, "chunk_size": 64, "vocab_size": 256,
    "tie_word_embeddings": false, "rms_norm": true, "norm_before_gate": false,
    "time_step_limit": [0.0, "Infinity"], "use_bias": false, "use_conv_bias": true,
    "layer_norm_epsilon": 1e-05, "hidden_act": "silu"})");
}

/// mamba_ssm's format: 2 groups, limits, biases, tied, vocab 250 padded to 256.
json mambaSsmConfig() {
  return json::parse(R"({"d_model": 32, "d_intermediate": 0, "n_layer": 2, "vocab_size": 250,
    "ssm_cfg": {"layer": "Mamba2", "d_state": 8, "d_conv": 3, "expand": 2, "headdim": 8,
                "ngroups": 2, "chunk_size": 8, "norm_before_gate": true,
                "dt_limit": [0.05, 0.2], "bias": true, "conv_bias": false},
    "rms_norm": true, "pad_vocab_size_multiple": 8, "tie_embeddings": true})");
}

std::string configError(const json &cfg) {
  Mamba2Config c;
  std::string error;
  EXPECT_FALSE(parseMamba2Config(cfg, c, error)) << cfg.dump();
  return error;
}

size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1))
    ++n;
  return n;
}

TEST(Mamba2Config, ReadsTransformersFields) {
  Mamba2Config c;
  MambaConfigFormat f = MambaConfigFormat::MambaSsm;
  std::string error;
  ASSERT_TRUE(parseMamba2Config(tinyConfig(), c, error, &f)) << error;
  EXPECT_EQ(f, MambaConfigFormat::Transformers);
  EXPECT_EQ(c.intermediateSize, 128);
  EXPECT_EQ(c.numHeads, 8);
  EXPECT_EQ(c.headDim, 16);
  EXPECT_EQ(c.nGroups, 1);
  EXPECT_EQ(c.chunkSize, 64);
  EXPECT_EQ(c.convDim(), 160);
  EXPECT_EQ(c.inProjSize(), 296);
  EXPECT_FALSE(c.hasTimeStepLimit());
  EXPECT_TRUE(std::isinf(c.timeStepMax));
  EXPECT_FALSE(c.tieWordEmbeddings);
  // num_heads left out: d_inner / head_dim.
  json cfg = tinyConfig();
  cfg.erase("num_heads");
  ASSERT_TRUE(parseMamba2Config(cfg, c, error)) << error;
  EXPECT_EQ(c.numHeads, 8);
  // The resolved config reads back to itself.
  Mamba2Config d;
  ASSERT_TRUE(parseMamba2Config(mamba2ConfigToJson(c), d, error)) << error;
  EXPECT_EQ(mamba2ConfigToJson(d), mamba2ConfigToJson(c));
}

TEST(Mamba2Config, ReadsMambaSsmFields) {
  Mamba2Config c;
  MambaConfigFormat f = MambaConfigFormat::Transformers;
  std::string error;
  ASSERT_TRUE(parseMamba2Config(mambaSsmConfig(), c, error, &f)) << error;
  EXPECT_EQ(f, MambaConfigFormat::MambaSsm);
  EXPECT_EQ(c.vocabSize, 256);
  EXPECT_EQ(c.hiddenSize, 32);
  EXPECT_EQ(c.numHeads, 8);
  EXPECT_EQ(c.nGroups, 2);
  EXPECT_EQ(c.convKernel, 3);
  EXPECT_EQ(c.chunkSize, 8);
  EXPECT_TRUE(c.normBeforeGate);
  EXPECT_TRUE(c.useBias);
  EXPECT_FALSE(c.useConvBias);
  EXPECT_TRUE(c.tieWordEmbeddings);
  EXPECT_TRUE(c.hasTimeStepLimit());
  EXPECT_DOUBLE_EQ(c.timeStepMin, 0.05);
  EXPECT_DOUBLE_EQ(c.timeStepMax, 0.2);
  Mamba2Config d;
  ASSERT_TRUE(parseMamba2Config(mamba2ConfigToJson(c), d, error)) << error;
  EXPECT_EQ(mamba2ConfigToJson(d), mamba2ConfigToJson(c));
  // mamba_ssm's defaults: d_state 128, headdim 64, ngroups 1, chunk 256, tied.
  ASSERT_TRUE(parseMamba2Config(
      json::parse(R"({"d_model": 768, "n_layer": 24, "vocab_size": 50277,
                      "ssm_cfg": {"layer": "Mamba2"}})"),
      c, error))
      << error;
  EXPECT_EQ(c.vocabSize, 50280);
  EXPECT_EQ(c.stateSize, 128);
  EXPECT_EQ(c.numHeads, 24);
  EXPECT_EQ(c.nGroups, 1);
  EXPECT_EQ(c.chunkSize, 256);
  EXPECT_TRUE(c.tieWordEmbeddings);
}

TEST(Mamba2Config, RecognisedByModelTypeArchitecturesOrLayer) {
  EXPECT_TRUE(isMamba2Config(tinyConfig()));
  EXPECT_TRUE(isMamba2Config(mambaSsmConfig()));
  EXPECT_TRUE(isMamba2Config(json{{"architectures", {"Mamba2ForCausalLM"}}}));
  EXPECT_FALSE(isMamba2Config(json{{"model_type", "mamba"}, {"hidden_size", 8}}));
  EXPECT_FALSE(isMamba2Config(json{{"d_model", 8}, {"ssm_cfg", json::object()}}));
  EXPECT_FALSE(isMamba2Config(json::array()));
}

TEST(Mamba2Config, ErrorsNameTheField) {
  json cfg = tinyConfig();
  cfg["num_heads"] = 6;
  EXPECT_NE(configError(cfg).find("'num_heads' (6) * 'head_dim' (16) must equal d_inner"),
            std::string::npos)
      << configError(cfg);
  cfg = tinyConfig();
  cfg["n_groups"] = 3;
  EXPECT_NE(configError(cfg).find("field 'n_groups' is 3, which does not divide the 8 heads"),
            std::string::npos);
  cfg = tinyConfig();
  cfg["time_step_limit"] = json::array({0.5, 0.1});
  EXPECT_NE(configError(cfg).find("field 'time_step_limit' is [0.5,0.1]"), std::string::npos);
  cfg["time_step_limit"] = "wide";
  EXPECT_NE(configError(cfg).find("field 'time_step_limit' must be a pair of numbers"),
            std::string::npos);
  cfg = tinyConfig();
  cfg["rms_norm"] = false;
  EXPECT_NE(configError(cfg).find("'rms_norm' is false"), std::string::npos);
  cfg = tinyConfig();
  cfg.erase("num_hidden_layers");
  EXPECT_EQ(configError(cfg), "missing field 'num_hidden_layers'");
  cfg = tinyConfig();
  cfg["conv_kernel"] = 6;
  EXPECT_NE(configError(cfg).find("field 'conv_kernel' is 6, expected 2 to 4"), std::string::npos);
  cfg = tinyConfig();
  cfg["head_dim"] = 48;
  cfg.erase("num_heads");
  EXPECT_NE(configError(cfg).find("'head_dim' is 48, which does not divide d_inner = 128"),
            std::string::npos);

  cfg = mambaSsmConfig();
  cfg["ssm_cfg"]["ngroups"] = 3;
  EXPECT_NE(configError(cfg).find("ssm_cfg: field 'ngroups' is 3"), std::string::npos);
  cfg = mambaSsmConfig();
  cfg["ssm_cfg"]["D_has_hdim"] = true;
  EXPECT_NE(configError(cfg).find("'D_has_hdim' is true"), std::string::npos);
  cfg = mambaSsmConfig();
  cfg["ssm_cfg"]["d_ssm"] = 32;
  EXPECT_NE(configError(cfg).find("'d_ssm' is 32"), std::string::npos);
  cfg = mambaSsmConfig();
  cfg["ssm_cfg"]["dt_limit"] = json::array({0.0});
  EXPECT_NE(configError(cfg).find("ssm_cfg: field 'dt_limit' must be a pair"), std::string::npos);
  EXPECT_NE(configError(json{{"n_layer", 2}}).find("transformers' Mamba2Config"),
            std::string::npos);
}

TEST(Mamba2Config, NonFiniteJsonTokensBecomeStrings) {
  using config_fields::jsonWithNonFiniteAsStrings;
  EXPECT_EQ(jsonWithNonFiniteAsStrings(R"({"a": [0.0, Infinity], "b": -Infinity, "c": NaN})"),
            R"({"a": [0.0, "Infinity"], "b": "-Infinity", "c": "NaN"})");
  // Inside strings (escapes included) nothing changes.
  EXPECT_EQ(jsonWithNonFiniteAsStrings(R"({"Infinity": "x \" Infinity"})"),
            R"({"Infinity": "x \" Infinity"})");
  double v = 0;
  EXPECT_TRUE(config_fields::extendedNumber(json("Infinity"), v));
  EXPECT_TRUE(std::isinf(v) && v > 0);
  EXPECT_FALSE(config_fields::extendedNumber(json("NaN"), v));
}

TEST(Mamba2Params, NamesShapesAndStates) {
  Mamba2Config c;
  std::string error;
  ASSERT_TRUE(parseMamba2Config(tinyConfig(), c, error));
  std::vector<MambaParam> ps = mamba2Params(c);
  ASSERT_EQ(ps.size(), 1u + 2u * 9u + 2u);
  EXPECT_EQ(ps[0].name, "backbone.embedding.weight");
  std::vector<std::pair<std::string, std::vector<int64_t>>> layer0 = {
      {"backbone.layers.0.norm.weight", {64}},
      {"backbone.layers.0.mixer.in_proj.weight", {296, 64}},
      {"backbone.layers.0.mixer.conv1d.weight", {160, 1, 4}},
      {"backbone.layers.0.mixer.conv1d.bias", {160}},
      {"backbone.layers.0.mixer.dt_bias", {8}},
      {"backbone.layers.0.mixer.A_log", {8}},
      {"backbone.layers.0.mixer.D", {8}},
      {"backbone.layers.0.mixer.norm.weight", {128}},
      {"backbone.layers.0.mixer.out_proj.weight", {64, 128}}};
  for (size_t i = 0; i < layer0.size(); ++i) {
    EXPECT_EQ(ps[1 + i].name, layer0[i].first);
    EXPECT_EQ(ps[1 + i].shape, layer0[i].second) << layer0[i].first;
  }
  EXPECT_EQ(ps.back().name, "lm_head.weight");
  std::vector<MambaState> ss = mamba2States(c);
  ASSERT_EQ(ss.size(), 4u);
  EXPECT_EQ(ss[0].name, "layers.0.conv_state");
  EXPECT_EQ(ss[0].shape, (std::vector<int64_t>{160, 3}));
  EXPECT_EQ(ss[1].name, "layers.0.ssm_state");
  EXPECT_EQ(ss[1].shape, (std::vector<int64_t>{8, 16, 16}));

  ASSERT_TRUE(parseMamba2Config(mambaSsmConfig(), c, error));
  ps = mamba2Params(c);
  auto has = [&](const std::string &n) {
    return std::any_of(ps.begin(), ps.end(), [&](const MambaParam &p) { return p.name == n; });
  };
  EXPECT_TRUE(has("backbone.layers.1.mixer.in_proj.bias"));
  EXPECT_TRUE(has("backbone.layers.1.mixer.out_proj.bias"));
  EXPECT_FALSE(has("backbone.layers.0.mixer.conv1d.bias"));
  EXPECT_FALSE(has("lm_head.weight"));
}

TEST(Mamba2Graph, BothFormsWithTheirOps) {
  std::string mlir, error;
  ASSERT_TRUE(buildMamba2MLIR(tinyConfig(), 12, mlir, error)) << error;
  EXPECT_EQ(count(mlir, "func.func @forward_sequence("), 1u);
  EXPECT_EQ(count(mlir, "func.func @forward_step("), 1u);
  EXPECT_NE(mlir.find("-> (tensor<1x256xf32> {ssm.name = \"logits\"}"), std::string::npos);
  EXPECT_NE(mlir.find("%h_last = tensor.extract_slice"), std::string::npos);
  std::string all;
  ASSERT_TRUE(buildMamba2MLIR(tinyConfig(), 12, all, error, LogitsRows::All)) << error;
  EXPECT_NE(all.find("-> (tensor<12x256xf32> {ssm.name = \"logits\"}"), std::string::npos);
  EXPECT_EQ(all.find("%h_last"), std::string::npos);
  EXPECT_EQ(count(mlir, "ssm.ssd_scan"), 1u);
  EXPECT_EQ(count(mlir, "{chunk_size = 64 : i64}"), 1u);
  EXPECT_EQ(count(mlir, "ssm.selective_update"), 1u);
  EXPECT_EQ(count(mlir, "ssm.causal_conv1d silu"), 2u);
  EXPECT_EQ(count(mlir, "call @block_sequence("), 2u);
  EXPECT_EQ(count(mlir, "call @block_step("), 2u);
  EXPECT_EQ(count(mlir, "tensor<8x16x16xf32> {ssm.state = \"layers.1.ssm_state\"}"), 4u);
  EXPECT_EQ(count(mlir, "arith.minimumf"), 0u); // no limit: no clamp
  EXPECT_EQ(count(mlir, "{ssm.param = \"lm_head.weight\"}"), 2u);

  ASSERT_TRUE(buildMamba2MLIR(mambaSsmConfig(), 5, mlir, error)) << error;
  EXPECT_EQ(count(mlir, "lm_head"), 0u);
  EXPECT_EQ(count(mlir, "arith.minimumf"), 2u); // the upper limit, in each form
  EXPECT_NE(mlir.find("norm then gate"), std::string::npos);
  EXPECT_NE(mlir.find("tensor<1x5x2x8xf32>"), std::string::npos); // B, C: 2 groups of N 8
  EXPECT_NE(mlir.find("{chunk_size = 8 : i64}"), std::string::npos);

  EXPECT_FALSE(buildMamba2MLIR(tinyConfig(), 0, mlir, error));
  EXPECT_NE(error.find("sequence length 0"), std::string::npos);
}

//===----------------------------------------------------------------------===//
// importMamba on synthetic Mamba-2 checkpoints.
//===----------------------------------------------------------------------===//

class Mamba2Import : public ::testing::Test {
protected:
  void SetUp() override {
    root = fs::temp_directory_path() /
           ("ssm-mamba2-import-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root);
    fs::create_directories(root);
  }
  void TearDown() override { fs::remove_all(root); }

  void writeCheckpoint(const json &cfg, const std::function<void(StFile &)> &edit = nullptr,
                       MambaLayout layout = MambaLayout::Transformers) {
    Mamba2Config c;
    std::string error;
    ASSERT_TRUE(parseMamba2Config(cfg, c, error)) << error;
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    StFile f;
    for (const MambaParam &p : mamba2Params(c)) {
      int64_t n = 1;
      for (int64_t d : p.shape)
        n *= d;
      std::vector<float> v(n);
      for (float &x : v)
        x = dist(rng);
      f.tensors.push_back(makeF32Tensor(mambaTensorName(p.name, layout), p.shape, v));
    }
    if (edit)
      edit(f);
    ASSERT_TRUE(writeSafetensors((root / "model.safetensors").string(), f, error)) << error;
    std::ofstream(root / "config.json") << cfg.dump();
  }

  bool run(std::string &error) {
    return importMamba((root / "model.safetensors").string(), (root / "config.json").string(),
                       (root / "out").string(), false, 9, error);
  }

  static std::string slurp(const fs::path &p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  fs::path root;
};

TEST_F(Mamba2Import, WritesTheModelDirectory) {
  writeCheckpoint(tinyConfig());
  // The config as Python writes it: Infinity bare.
  std::string text = tinyConfig().dump();
  text.replace(text.find("\"Infinity\""), 10, "Infinity");
  std::ofstream(root / "config.json") << text;
  std::string error;
  ASSERT_TRUE(run(error)) << error;
  json model = json::parse(slurp(root / "out" / "model.json"));
  EXPECT_EQ(model["architecture"], "mamba2");
  EXPECT_EQ(model["source_layout"], "transformers");
  EXPECT_EQ(model["config"]["time_step_limit"][1], "Infinity");
  ASSERT_EQ(model["states"].size(), 4u);
  EXPECT_EQ(model["states"][1]["shape"], json::array({8, 16, 16}));
  std::string mlir;
  ASSERT_TRUE(buildMamba2MLIR(model["config"], 9, mlir, error)) << error;
  EXPECT_EQ(slurp(root / "out" / "model.mlir"), mlir);
  StFile out;
  ASSERT_TRUE(readSafetensors((root / "out" / "weights.safetensors").string(), out, error));
  EXPECT_EQ(out.tensors.size(), 21u);
  EXPECT_NE(out.find("backbone.embedding.weight"), nullptr);
}

TEST_F(Mamba2Import, MissingAndMisshapenTensorsAreNamed) {
  writeCheckpoint(tinyConfig(), [](StFile &f) {
    f.tensors.erase(std::remove_if(f.tensors.begin(), f.tensors.end(),
                                   [](const StTensor &t) {
                                     return t.name == "backbone.layers.1.mixer.dt_bias";
                                   }),
                    f.tensors.end());
  });
  std::string error;
  EXPECT_FALSE(run(error));
  EXPECT_NE(error.find("missing tensor 'backbone.layers.1.mixer.dt_bias' (expected shape (8,))"),
            std::string::npos)
      << error;

  // in_proj for another number of groups: the config does not fit the file.
  json cfg = tinyConfig();
  writeCheckpoint(cfg);
  cfg["n_groups"] = 2;
  std::ofstream(root / "config.json") << cfg.dump();
  EXPECT_FALSE(run(error));
  EXPECT_NE(error.find("tensor 'backbone.layers.0.mixer.in_proj.weight' has shape (296, 64) but "
                       "the config implies (328, 64)"),
            std::string::npos)
      << error;
  EXPECT_FALSE(fs::exists(root / "out"));
}

TEST_F(Mamba2Import, GenerationMismatchIsNamed) {
  // Mamba-2 tensors under a Mamba-1 config.
  writeCheckpoint(tinyConfig());
  json m1 = json::parse(R"({"model_type": "mamba", "vocab_size": 256, "hidden_size": 64,
    "state_size": 16, "num_hidden_layers": 2, "time_step_rank": 4})");
  std::ofstream(root / "config.json") << m1.dump();
  std::string error;
  EXPECT_FALSE(run(error));
  EXPECT_NE(error.find("holds Mamba-2 tensors (mixer.dt_bias, no mixer.x_proj)"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("describes a Mamba-1 model"), std::string::npos) << error;

  // Mamba-1 tensors under a Mamba-2 config.
  writeCheckpoint(tinyConfig(), [](StFile &f) {
    f.tensors.push_back(makeF32Tensor("backbone.layers.0.mixer.x_proj.weight", {2, 2},
                                      std::vector<float>(4, 0.0f)));
  });
  EXPECT_FALSE(run(error));
  EXPECT_NE(error.find("holds Mamba-1 tensors (mixer.x_proj) but"), std::string::npos) << error;
  EXPECT_NE(error.find("describes a Mamba-2 model"), std::string::npos) << error;
}

TEST_F(Mamba2Import, MambaSsmLayoutAndConfig) {
  writeCheckpoint(mambaSsmConfig(), nullptr, MambaLayout::MambaSsm);
  std::string error;
  ASSERT_TRUE(run(error)) << error;
  json model = json::parse(slurp(root / "out" / "model.json"));
  EXPECT_EQ(model["source_layout"], "mamba_ssm");
  EXPECT_EQ(model["source_config"], "mamba_ssm");
  EXPECT_EQ(model["config"]["vocab_size"], 256);
  EXPECT_EQ(model["config"]["n_groups"], 2);
}

} // namespace
