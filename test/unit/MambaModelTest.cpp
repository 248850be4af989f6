// Mamba-1 import: config validation, the parameter and state lists, the graph text, and importMamba's files and errors.
#include "import/MambaModel.h"
#include "import/ModelBuilder.h"
#include "import/Safetensors.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <fstream>
#include <random>
#include <sstream>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace ssm::importer;

json tinyConfig() {
  return json::parse(R"({
    "architectures": ["MambaForCausalLM"], "model_type": "mamba",
    "vocab_size": 256, "hidden_size": 64, "state_size": 16, "num_hidden_layers": 2,
    "expand": 2, "conv_kernel": 4, "time_step_rank": 4, "layer_norm_epsilon": 1e-05,
    "use_bias": false, "use_conv_bias": true, "tie_word_embeddings": false,
    "residual_in_fp32": true})");
}

/// A small config that exercises the optional parameters.
json smallConfig() {
  return json::parse(R"({"vocab_size": 11, "hidden_size": 8, "state_size": 3,
    "num_hidden_layers": 2, "expand": 2, "conv_kernel": 3, "time_step_rank": 2,
    "use_bias": true, "use_conv_bias": false, "tie_word_embeddings": true})");
}

/// smallConfig() in mamba_ssm's config.json format (vocab 11 padded to 16).
json mambaSsmConfig() {
  return json::parse(R"({"d_model": 8, "d_intermediate": 0, "n_layer": 2, "vocab_size": 11,
    "ssm_cfg": {"layer": "Mamba1", "d_state": 3, "d_conv": 3, "dt_rank": 2, "bias": true,
                "conv_bias": false},
    "attn_layer_idx": [], "attn_cfg": {}, "rms_norm": true, "residual_in_fp32": true,
    "fused_add_norm": true, "pad_vocab_size_multiple": 8, "tie_embeddings": true})");
}

std::string configError(const json &cfg) {
  MambaConfig c;
  std::string error;
  EXPECT_FALSE(parseMambaConfig(cfg, c, error)) << cfg.dump();
  return error;
}

TEST(MambaConfig, ReadsTheHuggingFaceFields) {
  MambaConfig c;
  std::string error;
  ASSERT_TRUE(parseMambaConfig(tinyConfig(), c, error)) << error;
  EXPECT_EQ(c.vocabSize, 256);
  EXPECT_EQ(c.hiddenSize, 64);
  EXPECT_EQ(c.stateSize, 16);
  EXPECT_EQ(c.numLayers, 2);
  EXPECT_EQ(c.intermediateSize, 128);
  EXPECT_EQ(c.convKernel, 4);
  EXPECT_EQ(c.timeStepRank, 4);
  EXPECT_DOUBLE_EQ(c.layerNormEpsilon, 1e-5);
  EXPECT_FALSE(c.useBias);
  EXPECT_TRUE(c.useConvBias);
  EXPECT_FALSE(c.tieWordEmbeddings);
}

TEST(MambaConfig, MissingOptionalFieldsTakeMambaConfigDefaults) {
  MambaConfig c;
  std::string error;
  json cfg = {{"vocab_size", 50280}, {"hidden_size", 768}, {"state_size", 16},
              {"num_hidden_layers", 24}, {"time_step_rank", "auto"}};
  ASSERT_TRUE(parseMambaConfig(cfg, c, error)) << error;
  EXPECT_EQ(c.expand, 2);
  EXPECT_EQ(c.intermediateSize, 1536);
  EXPECT_EQ(c.convKernel, 4);
  EXPECT_EQ(c.timeStepRank, 48); // ceil(768 / 16)
  EXPECT_DOUBLE_EQ(c.layerNormEpsilon, 1e-5);
  EXPECT_FALSE(c.useBias);
  EXPECT_TRUE(c.useConvBias);
  EXPECT_TRUE(c.tieWordEmbeddings);
  cfg["hidden_size"] = 40; // auto rank rounds up
  ASSERT_TRUE(parseMambaConfig(cfg, c, error)) << error;
  EXPECT_EQ(c.timeStepRank, 3);
}

TEST(MambaConfig, RejectsMissingAndWrongFieldsByName) {
  json cfg = tinyConfig();
  cfg.erase("vocab_size");
  EXPECT_EQ(configError(cfg), "missing field 'vocab_size'");

  cfg = tinyConfig();
  cfg["hidden_size"] = "64";
  EXPECT_NE(configError(cfg).find("field 'hidden_size' must be an integer"), std::string::npos);

  cfg = tinyConfig();
  cfg["num_hidden_layers"] = 0;
  EXPECT_NE(configError(cfg).find("field 'num_hidden_layers' is 0"), std::string::npos);

  cfg = tinyConfig();
  cfg["conv_kernel"] = 5;
  EXPECT_NE(configError(cfg).find("field 'conv_kernel' is 5, expected 2 to 4"), std::string::npos);

  cfg = tinyConfig();
  cfg["state_size"] = 2.5;
  EXPECT_NE(configError(cfg).find("'state_size' must be an integer"), std::string::npos);

  cfg = tinyConfig();
  cfg["use_bias"] = "no";
  EXPECT_NE(configError(cfg).find("field 'use_bias' must be true or false"), std::string::npos);

  cfg = tinyConfig();
  cfg["time_step_rank"] = "big";
  EXPECT_NE(configError(cfg).find("'time_step_rank' must be an integer or \"auto\""),
            std::string::npos);

  cfg = tinyConfig();
  cfg["layer_norm_epsilon"] = -1;
  EXPECT_NE(configError(cfg).find("'layer_norm_epsilon'"), std::string::npos);

  cfg = tinyConfig();
  cfg["intermediate_size"] = 100;
  EXPECT_NE(configError(cfg).find("'intermediate_size' is 100 but expand * hidden_size is 128"),
            std::string::npos);

  cfg = tinyConfig();
  cfg["model_type"] = "mamba2";
  EXPECT_NE(configError(cfg).find("'mamba2'"), std::string::npos);

  cfg = tinyConfig();
  cfg["hidden_act"] = "gelu";
  EXPECT_NE(configError(cfg).find("'hidden_act'"), std::string::npos);

  EXPECT_NE(configError(json::array()).find("must be a JSON object"), std::string::npos);
  // Neither format's size field: the message names both formats.
  std::string neither = configError(json{{"n_layer", 2}, {"vocab_size", 256}});
  EXPECT_NE(neither.find("missing field 'hidden_size'"), std::string::npos) << neither;
  EXPECT_NE(neither.find("transformers' MambaConfig"), std::string::npos) << neither;
  EXPECT_NE(neither.find("mamba_ssm's (d_model"), std::string::npos) << neither;
}

TEST(MambaConfig, ReadsMambaSsmConfigs) {
  MambaConfig c;
  MambaConfigFormat format = MambaConfigFormat::Transformers;
  std::string error;
  ASSERT_TRUE(parseMambaConfig(mambaSsmConfig(), c, error, &format)) << error;
  EXPECT_EQ(format, MambaConfigFormat::MambaSsm);
  EXPECT_EQ(c.vocabSize, 16); // 11 rounded up to pad_vocab_size_multiple 8
  EXPECT_EQ(c.hiddenSize, 8);
  EXPECT_EQ(c.numLayers, 2);
  EXPECT_EQ(c.stateSize, 3);
  EXPECT_EQ(c.convKernel, 3);
  EXPECT_EQ(c.timeStepRank, 2);
  EXPECT_EQ(c.intermediateSize, 16);
  EXPECT_TRUE(c.useBias);
  EXPECT_FALSE(c.useConvBias);
  EXPECT_TRUE(c.tieWordEmbeddings);
  // The same model as smallConfig() (vocabulary aside), so the same graph.
  json hf = smallConfig();
  hf["vocab_size"] = 16;
  MambaConfig h;
  ASSERT_TRUE(parseMambaConfig(hf, h, error, &format)) << error;
  EXPECT_EQ(format, MambaConfigFormat::Transformers);
  EXPECT_EQ(mambaConfigToJson(h), mambaConfigToJson(c));

  // mamba_ssm's defaults: MambaConfig's (pad 8, tied) and the mixer's
  // (d_state 16, d_conv 4, expand 2, dt_rank ceil(d_model / 16), conv bias).
  ASSERT_TRUE(parseMambaConfig(json{{"d_model", 768}, {"n_layer", 24}, {"vocab_size", 50277}},
                               c, error))
      << error;
  EXPECT_EQ(c.vocabSize, 50280);
  EXPECT_EQ(c.stateSize, 16);
  EXPECT_EQ(c.convKernel, 4);
  EXPECT_EQ(c.intermediateSize, 1536);
  EXPECT_EQ(c.timeStepRank, 48);
  EXPECT_TRUE(c.useConvBias);
  EXPECT_FALSE(c.useBias);
  EXPECT_TRUE(c.tieWordEmbeddings);
  EXPECT_DOUBLE_EQ(c.layerNormEpsilon, 1e-5);
}

TEST(MambaConfig, MambaSsmConfigErrorsNameTheField) {
  json cfg = mambaSsmConfig();
  cfg.erase("n_layer");
  EXPECT_EQ(configError(cfg), "missing field 'n_layer'");
  cfg = mambaSsmConfig();
  cfg["ssm_cfg"]["d_conv"] = 7;
  EXPECT_NE(configError(cfg).find("ssm_cfg: field 'd_conv' is 7, expected 2 to 4"),
            std::string::npos);
  cfg = mambaSsmConfig();
  cfg["ssm_cfg"] = "Mamba1";
  EXPECT_NE(configError(cfg).find("field 'ssm_cfg' must be an object"), std::string::npos);
  cfg = mambaSsmConfig();
  cfg["d_intermediate"] = 32;
  EXPECT_NE(configError(cfg).find("field 'd_intermediate' is 32"), std::string::npos);
  cfg = mambaSsmConfig();
  cfg["attn_layer_idx"] = json::array({1});
  EXPECT_NE(configError(cfg).find("field 'attn_layer_idx'"), std::string::npos);
  cfg = mambaSsmConfig();
  cfg["rms_norm"] = false;
  EXPECT_NE(configError(cfg).find("'rms_norm' is false"), std::string::npos);
  cfg = mambaSsmConfig();
  cfg["ssm_cfg"]["dt_rank"] = "wide";
  EXPECT_NE(configError(cfg).find("ssm_cfg: field 'dt_rank' must be an integer or \"auto\""),
            std::string::npos);
  cfg = mambaSsmConfig();
  cfg["hidden_size"] = 8;
  EXPECT_NE(configError(cfg).find("both 'hidden_size' and 'd_model'"), std::string::npos);
}

TEST(MambaLayout, DetectedFromTheEmbeddingTensor) {
  MambaLayout layout = MambaLayout::MambaSsm;
  std::string error;
  ASSERT_TRUE(detectMambaLayout({"backbone.norm_f.weight", "backbone.embeddings.weight"}, layout,
                                error));
  EXPECT_EQ(layout, MambaLayout::Transformers);
  ASSERT_TRUE(detectMambaLayout({"backbone.embedding.weight"}, layout, error));
  EXPECT_EQ(layout, MambaLayout::MambaSsm);
  EXPECT_FALSE(detectMambaLayout({"emb.weight", "head.weight"}, layout, error));
  EXPECT_NE(error.find("'backbone.embeddings.weight' (the layout of transformers'"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("'backbone.embedding.weight' (the layout of mamba_ssm's"),
            std::string::npos)
      << error;
  EXPECT_FALSE(detectMambaLayout({"backbone.embedding.weight", "backbone.embeddings.weight"},
                                 layout, error));
  EXPECT_NE(error.find("holds both"), std::string::npos) << error;
  EXPECT_EQ(mambaTensorName("backbone.embedding.weight", MambaLayout::Transformers),
            "backbone.embeddings.weight");
  EXPECT_EQ(mambaTensorName("backbone.embedding.weight", MambaLayout::MambaSsm),
            "backbone.embedding.weight");
  EXPECT_EQ(mambaTensorName("lm_head.weight", MambaLayout::Transformers), "lm_head.weight");
}

TEST(MambaConfig, ToJsonRoundTrips) {
  for (const json &cfg : {tinyConfig(), smallConfig()}) {
    MambaConfig a, b;
    std::string error;
    ASSERT_TRUE(parseMambaConfig(cfg, a, error)) << error;
    json j = mambaConfigToJson(a);
    ASSERT_TRUE(parseMambaConfig(j, b, error)) << error;
    EXPECT_EQ(mambaConfigToJson(b), j);
    EXPECT_EQ(j["intermediate_size"], a.intermediateSize);
    EXPECT_TRUE(j["time_step_rank"].is_number_integer());
  }
}

TEST(MambaParams, NamesAndShapesFollowHuggingFace) {
  MambaConfig c;
  std::string error;
  ASSERT_TRUE(parseMambaConfig(tinyConfig(), c, error));
  std::vector<MambaParam> ps = mambaParams(c);
  ASSERT_EQ(ps.size(), 1u + 2u * 10u + 2u);
  EXPECT_EQ(ps[0].name, "backbone.embedding.weight");
  EXPECT_EQ(ps[0].shape, (std::vector<int64_t>{256, 64}));
  std::vector<std::pair<std::string, std::vector<int64_t>>> layer0 = {
      {"backbone.layers.0.norm.weight", {64}},
      {"backbone.layers.0.mixer.in_proj.weight", {256, 64}},
      {"backbone.layers.0.mixer.conv1d.weight", {128, 1, 4}},
      {"backbone.layers.0.mixer.conv1d.bias", {128}},
      {"backbone.layers.0.mixer.x_proj.weight", {36, 128}},
      {"backbone.layers.0.mixer.dt_proj.weight", {128, 4}},
      {"backbone.layers.0.mixer.dt_proj.bias", {128}},
      {"backbone.layers.0.mixer.A_log", {128, 16}},
      {"backbone.layers.0.mixer.D", {128}},
      {"backbone.layers.0.mixer.out_proj.weight", {64, 128}}};
  for (size_t i = 0; i < layer0.size(); ++i) {
    EXPECT_EQ(ps[1 + i].name, layer0[i].first);
    EXPECT_EQ(ps[1 + i].shape, layer0[i].second) << layer0[i].first;
  }
  EXPECT_EQ(ps[11].name, "backbone.layers.1.norm.weight");
  EXPECT_EQ(ps[21].name, "backbone.norm_f.weight");
  EXPECT_EQ(ps[22].name, "lm_head.weight");

  // Biases where the config asks for them; a tied head reads the embedding.
  ASSERT_TRUE(parseMambaConfig(smallConfig(), c, error));
  ps = mambaParams(c);
  std::vector<std::string> names;
  for (const MambaParam &p : ps)
    names.push_back(p.name);
  auto has = [&](const std::string &n) {
    return std::find(names.begin(), names.end(), n) != names.end();
  };
  EXPECT_TRUE(has("backbone.layers.1.mixer.in_proj.bias"));
  EXPECT_TRUE(has("backbone.layers.1.mixer.out_proj.bias"));
  EXPECT_FALSE(has("backbone.layers.0.mixer.conv1d.bias"));
  EXPECT_FALSE(has("lm_head.weight"));
  EXPECT_EQ(ps.back().name, "backbone.norm_f.weight");
}

TEST(MambaStates, ConvWindowThenSsmStatePerLayer) {
  MambaConfig c;
  std::string error;
  ASSERT_TRUE(parseMambaConfig(tinyConfig(), c, error));
  std::vector<MambaState> ss = mambaStates(c);
  ASSERT_EQ(ss.size(), 4u);
  EXPECT_EQ(ss[0].name, "layers.0.conv_state");
  EXPECT_EQ(ss[0].shape, (std::vector<int64_t>{128, 3}));
  EXPECT_EQ(ss[1].name, "layers.0.ssm_state");
  EXPECT_EQ(ss[1].shape, (std::vector<int64_t>{128, 16}));
  EXPECT_EQ(ss[3].name, "layers.1.ssm_state");
  for (const MambaState &s : ss)
    EXPECT_EQ(s.init, 0.0);
}

size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1))
    ++n;
  return n;
}

TEST(MambaGraph, HasBothFunctionsWithTheContractSignature) {
  std::string mlir, error;
  ASSERT_TRUE(buildMambaMLIR(tinyConfig(), 16, mlir, error)) << error;
  EXPECT_EQ(count(mlir, "func.func @forward_sequence("), 1u);
  EXPECT_EQ(count(mlir, "func.func @forward_step("), 1u);
  EXPECT_NE(mlir.find("%tokens: tensor<16xi32> {ssm.name = \"tokens\"}"), std::string::npos);
  EXPECT_NE(mlir.find("%tokens: tensor<1xi32> {ssm.name = \"tokens\"}"), std::string::npos);
  // The head for the last position only: the hidden state is sliced first.
  EXPECT_NE(mlir.find("-> (tensor<1x256xf32> {ssm.name = \"logits\"}"), std::string::npos);
  EXPECT_EQ(mlir.find("-> (tensor<16x256xf32> {ssm.name = \"logits\"}"), std::string::npos);
  EXPECT_NE(mlir.find("[15, 0] [1, 64] [1, 1] : tensor<16x64xf32> to tensor<1x64xf32>"),
            std::string::npos);
  EXPECT_NE(mlir.find("-> (tensor<1x256xf32> {ssm.name = \"logits\"}"), std::string::npos);
  // Each state is an argument and a result of both functions.
  EXPECT_EQ(count(mlir, "tensor<128x3xf32> {ssm.state = \"layers.0.conv_state\"}"), 4u);
  EXPECT_EQ(count(mlir, "tensor<128x16xf32> {ssm.state = \"layers.1.ssm_state\"}"), 4u);
  EXPECT_EQ(count(mlir, "{ssm.param = \"backbone.layers.1.mixer.A_log\"}"), 2u);
  EXPECT_EQ(count(mlir, "{ssm.param = \"lm_head.weight\"}"), 2u);
  // Arguments in order: tokens, states, weights.
  size_t fn = mlir.find("func.func @forward_sequence(");
  size_t tok = mlir.find("%tokens", fn), st = mlir.find("{ssm.state", fn),
         par = mlir.find("{ssm.param", fn);
  EXPECT_LT(tok, st);
  EXPECT_LT(st, par);
  // Scan form for the sequence, the state update for the step: one block
  // function each, called once per layer.
  EXPECT_EQ(count(mlir, "ssm.selective_scan time_major"), 1u);
  EXPECT_EQ(count(mlir, "ssm.selective_update"), 1u);
  EXPECT_EQ(count(mlir, "{delta_softplus}"), 1u);
  EXPECT_EQ(count(mlir, "{dt_softplus}"), 1u);
  EXPECT_EQ(count(mlir, "ssm.causal_conv1d silu"), 2u);
  EXPECT_EQ(count(mlir, "initial_states("), 2u);
  EXPECT_EQ(count(mlir, "h0("), 1u);
  EXPECT_EQ(count(mlir, "call @block_sequence("), 2u);
  EXPECT_EQ(count(mlir, "call @block_step("), 2u);
  EXPECT_EQ(count(mlir, "tensor.extract %w_backbone_embedding_weight["), 2u);
  // RMSNorm's epsilon and width (f32 literals that parse back exactly), in
  // the two block functions and the two final norms.
  EXPECT_EQ(count(mlir, "arith.constant 9.99999975e-06 : f32"), 4u);
  EXPECT_EQ(count(mlir, "arith.constant 6.40000000e+01 : f32"), 4u);
}

TEST(MambaGraph, AllLogitsVariantComputesEveryPosition) {
  std::string last, all, error;
  ASSERT_TRUE(buildMambaMLIR(tinyConfig(), 16, last, error)) << error;
  ASSERT_TRUE(buildMambaMLIR(tinyConfig(), 16, all, error, LogitsRows::All)) << error;
  EXPECT_NE(all.find("-> (tensor<16x256xf32> {ssm.name = \"logits\"}"), std::string::npos);
  EXPECT_EQ(all.find("to tensor<1x64xf32>"), std::string::npos);
  // The step function is the same in both.
  EXPECT_EQ(last.substr(last.find("func.func @forward_step(")),
            all.substr(all.find("func.func @forward_step(")));
}

TEST(MambaGraph, TiedHeadAndBiases) {
  std::string mlir, error;
  ASSERT_TRUE(buildMambaMLIR(smallConfig(), 5, mlir, error)) << error;
  EXPECT_EQ(mlir.find("lm_head"), std::string::npos);
  EXPECT_EQ(mlir.find("conv1d.bias"), std::string::npos);
  // The last matmul of each public function (the head) reads the embedding
  // table; the block functions follow them.
  size_t head = mlir.rfind("linalg.matmul_transpose_b", mlir.find("func.func private @block_step"));
  EXPECT_NE(mlir.find("%w_backbone_embedding_weight : tensor<1x8xf32>, tensor<11x8xf32>"),
            std::string::npos);
  EXPECT_NE(mlir.find("%w_backbone_embedding_weight", head), std::string::npos);
  EXPECT_EQ(count(mlir, "in_proj.bias\"}"), 4u);
  // Residual + biased out_proj, once per block function (sequence, step),
  // each called once per layer.
  EXPECT_EQ(count(mlir, "%h_out = linalg.generic"), 2u);
  EXPECT_EQ(count(mlir, "ins(%h, %out, %w_mixer_out_proj_bias"), 2u);
  EXPECT_EQ(count(mlir, "ssm.causal_conv1d silu"), 2u);
  EXPECT_EQ(count(mlir, "call @block_sequence("), 2u);
  EXPECT_EQ(count(mlir, "call @block_step("), 2u);
  EXPECT_NE(mlir.find("tensor<16x2xf32> {ssm.state = \"layers.0.conv_state\"}"), std::string::npos);
}

TEST(MambaGraph, RejectsBadSequenceLengthAndConfig) {
  std::string mlir, error;
  EXPECT_FALSE(buildMambaMLIR(tinyConfig(), 0, mlir, error));
  EXPECT_NE(error.find("sequence length 0"), std::string::npos);
  json cfg = tinyConfig();
  cfg.erase("state_size");
  EXPECT_FALSE(buildMambaMLIR(cfg, 8, mlir, error));
  EXPECT_EQ(error, "missing field 'state_size'");
}

TEST(MambaGraph, BatchedStepFunctionOnlyWhenAskedAndRebuiltFromModelJson) {
  MambaConfig c;
  std::string error, plain, batched, rebuilt;
  ASSERT_TRUE(parseMambaConfig(smallConfig(), c, error)) << error;
  ASSERT_TRUE(buildMambaMLIR(smallConfig(), 5, plain, error)) << error;
  ASSERT_TRUE(buildMambaMLIR(smallConfig(), 5, batched, error, LogitsRows::Last, 3)) << error;
  EXPECT_EQ(plain.find("forward_step_batched"), std::string::npos);
  // The batched form comes after the unbatched functions, which are unchanged.
  const size_t tail = batched.find("\n  // Decode of 3 streams");
  ASSERT_NE(tail, std::string::npos);
  EXPECT_EQ(batched.substr(0, tail), plain.substr(0, plain.rfind("}\n")));
  EXPECT_NE(batched.find("func.func @forward_step_batched(%tokens: tensor<3xi32>"),
            std::string::npos);
  // States (d_inner 16, W-1 2, N 3) with the batch dim in front; logits (3, vocab 11).
  EXPECT_NE(batched.find("%s_layers_0_conv_state: tensor<3x16x2xf32> {ssm.state = \"layers.0.conv_state\"}"),
            std::string::npos);
  EXPECT_NE(batched.find("-> (tensor<3x11xf32> {ssm.name = \"logits\"}"), std::string::npos);

  // model.json (what the runner regenerates graphs from) carries the batch.
  json model = mambaModelJson(c, 5, "x.safetensors", 3);
  EXPECT_EQ(model["functions"]["step_batched"],
            json({{"name", "forward_step_batched"}, {"batch", 3}}));
  EXPECT_FALSE(mambaModelJson(c, 5, "x.safetensors")["functions"].contains("step_batched"));
  ASSERT_TRUE(buildModelMLIR(model.dump(), 5, rebuilt, error)) << error;
  EXPECT_EQ(rebuilt, batched);

  // Refused: a batch out of range, a malformed entry. (Every architecture
  // has a batched form: a Mamba-1 config under "mamba2" fails as a config.)
  EXPECT_FALSE(buildMambaMLIR(smallConfig(), 5, rebuilt, error, LogitsRows::Last, kMaxStepBatch + 1));
  EXPECT_NE(error.find("step batch 1025 is out of range"), std::string::npos) << error;
  for (json bad : {json(0), json("2"), json(2.5)}) {
    json m = model;
    m["functions"]["step_batched"]["batch"] = bad;
    EXPECT_FALSE(buildModelMLIR(m.dump(), 5, rebuilt, error)) << bad.dump();
    EXPECT_NE(error.find("functions.step_batched must be"), std::string::npos) << error;
  }
  json other = model;
  other["architecture"] = "mamba2";
  EXPECT_FALSE(buildModelMLIR(other.dump(), 5, rebuilt, error));
  EXPECT_NE(error.find("expected \"mamba2\""), std::string::npos) << error;
}

//===----------------------------------------------------------------------===//
// importMamba on synthetic checkpoints.
//===----------------------------------------------------------------------===//

class MambaImport : public ::testing::Test {
protected:
  void SetUp() override {
    root = fs::temp_directory_path() /
           ("ssm-mamba-import-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root);
    fs::create_directories(root);
  }
  void TearDown() override { fs::remove_all(root); }

  /// Writes config.json and model.safetensors for `cfg` with seeded weights
  /// (the same for every layout and dtype, rounded to `dtype`) under the
  /// tensor names of `layout`; `edit` may change the tensors before they are
  /// written.
  void writeCheckpoint(const json &cfg,
                       const std::function<void(StFile &)> &edit = nullptr,
                       MambaLayout layout = MambaLayout::MambaSsm,
                       StDType dtype = StDType::F32) {
    MambaConfig c;
    std::string error;
    ASSERT_TRUE(parseMambaConfig(cfg, c, error)) << error;
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    StFile f;
    for (const MambaParam &p : mambaParams(c)) {
      int64_t n = 1;
      for (int64_t d : p.shape)
        n *= d;
      std::vector<float> v(n);
      for (float &x : v)
        x = dist(rng);
      const std::string name = mambaTensorName(p.name, layout);
      f.tensors.push_back(dtype == StDType::F16    ? makeF16Tensor(name, p.shape, v)
                          : dtype == StDType::BF16 ? makeBF16Tensor(name, p.shape, v)
                                                   : makeF32Tensor(name, p.shape, v));
    }
    if (edit)
      edit(f);
    ASSERT_TRUE(writeSafetensors((root / "model.safetensors").string(), f, error)) << error;
    std::ofstream(root / "config.json") << cfg.dump();
  }

  bool run(std::string &error, bool force = false, int64_t seqLen = 16,
           WeightsMode weights = WeightsMode::Source) {
    return importMamba((root / "model.safetensors").string(), (root / "config.json").string(),
                       (root / "out").string(), force, seqLen, error, LogitsRows::Last, weights);
  }

  static std::string slurp(const fs::path &p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  fs::path root;
};

TEST_F(MambaImport, WritesGraphWeightsAndModelJson) {
  // Half-precision source tensors are widened to F32 with --weights f32.
  writeCheckpoint(smallConfig(), [](StFile &f) {
    for (StTensor &t : f.tensors)
      if (t.name == "backbone.layers.0.mixer.D") {
        std::vector<float> v;
        std::string e;
        ASSERT_TRUE(toFloats(t, v, e));
        t = makeF16Tensor(t.name, t.shape, v);
      }
    // Unused extra tensors (lm_head with a tied head) are left out.
    f.tensors.push_back(makeF32Tensor("lm_head.weight", {11, 8}, std::vector<float>(88, 1.0f)));
  });
  std::string error;
  ASSERT_TRUE(run(error, false, 7, WeightsMode::F32)) << error;

  StFile in, out;
  ASSERT_TRUE(readSafetensors((root / "model.safetensors").string(), in, error)) << error;
  ASSERT_TRUE(readSafetensors((root / "out" / "weights.safetensors").string(), out, error))
      << error;
  MambaConfig c;
  ASSERT_TRUE(parseMambaConfig(smallConfig(), c, error));
  std::vector<MambaParam> params = mambaParams(c);
  ASSERT_EQ(out.tensors.size(), params.size());
  EXPECT_EQ(out.find("lm_head.weight"), nullptr);
  for (const MambaParam &p : params) {
    const StTensor *t = out.find(p.name);
    ASSERT_NE(t, nullptr) << p.name;
    EXPECT_EQ(t->dtype, StDType::F32) << p.name;
    EXPECT_EQ(t->shape, p.shape) << p.name;
    std::vector<float> a, b;
    ASSERT_TRUE(toFloats(*t, a, error));
    ASSERT_TRUE(toFloats(*in.find(p.name), b, error));
    EXPECT_EQ(a, b) << p.name;
  }

  std::string mlir, expectMlir;
  ASSERT_TRUE(buildMambaMLIR(smallConfig(), 7, expectMlir, error));
  EXPECT_EQ(slurp(root / "out" / "model.mlir"), expectMlir);

  json model = json::parse(slurp(root / "out" / "model.json"));
  EXPECT_EQ(model["format"], "ssm-opt-model");
  EXPECT_EQ(model["version"], 1);
  EXPECT_EQ(model["architecture"], "mamba1");
  EXPECT_EQ(model["byte_tokens"], false);
  EXPECT_EQ(model["seq_len"], 7);
  EXPECT_EQ(model["config"], mambaConfigToJson(c));
  ASSERT_EQ(model["states"].size(), 4u);
  EXPECT_EQ(model["states"][0]["name"], "layers.0.conv_state");
  EXPECT_EQ(model["states"][0]["shape"], json::array({16, 2}));
  EXPECT_EQ(model["states"][0]["init"], 0.0);
  EXPECT_EQ(model["states"][3]["name"], "layers.1.ssm_state");
  EXPECT_EQ(model["states"][3]["shape"], json::array({16, 3}));
  // model.json's config rebuilds the same graph (the runner does this per length).
  ASSERT_TRUE(buildMambaMLIR(model["config"], 7, mlir, error)) << error;
  EXPECT_EQ(mlir, expectMlir);
  ASSERT_TRUE(buildModelMLIR(model.dump(), 7, mlir, error)) << error;
  EXPECT_EQ(mlir, expectMlir);

  // A config edited apart from the lists would run another model than the
  // files hold (found by a hostile trial): refused, naming the first entry.
  json fewer = model;
  fewer["config"]["num_hidden_layers"] = 1;
  EXPECT_FALSE(buildModelMLIR(fewer.dump(), 7, mlir, error));
  EXPECT_NE(error.find("model.json's \"params\" do not match its mamba1 \"config\""),
            std::string::npos)
      << error;
  json reshaped = model;
  reshaped["states"][1]["shape"] = json::array({16, 4});
  EXPECT_FALSE(buildModelMLIR(reshaped.dump(), 7, mlir, error));
  EXPECT_NE(error.find("entry 1 is 'layers.0.ssm_state' [16, 4], the config has "
                       "'layers.0.ssm_state' [16, 3]"),
            std::string::npos)
      << error;
  // A state the graph does not read may be listed besides (a cache the
  // runtime bounds the context with: lit Import/context-full.mlir).
  json extra = model;
  extra["states"].push_back({{"name", "kv"}, {"shape", {3, 2}}, {"kind", "cache"}, {"axis", 0}});
  EXPECT_TRUE(buildModelMLIR(extra.dump(), 7, mlir, error)) << error;
}

/// The tensors of a safetensors file as floats, by name.
std::map<std::string, std::vector<float>> floatsOf(const fs::path &file) {
  StFile f;
  std::string error;
  EXPECT_TRUE(readSafetensors(file.string(), f, error)) << error;
  std::map<std::string, std::vector<float>> out;
  for (const StTensor &t : f.tensors) {
    EXPECT_TRUE(toFloats(t, out[t.name], error)) << error;
    EXPECT_EQ(t.dtype, StDType::F32) << t.name;
  }
  return out;
}

TEST_F(MambaImport, BothLayoutsAndConfigFormatsGiveTheSameModel) {
  // transformers' layout and config, then mamba_ssm's layout and config for
  // the same weights: the same graph and the same F32 weights.
  json hf = smallConfig();
  hf["vocab_size"] = 16;
  writeCheckpoint(hf, nullptr, MambaLayout::Transformers);
  std::string error;
  ASSERT_TRUE(run(error, false, 6)) << error;
  fs::rename(root / "out", root / "hf");
  writeCheckpoint(mambaSsmConfig(), nullptr, MambaLayout::MambaSsm);
  ASSERT_TRUE(run(error, false, 6)) << error;

  EXPECT_EQ(slurp(root / "hf" / "model.mlir"), slurp(root / "out" / "model.mlir"));
  auto a = floatsOf(root / "hf" / "weights.safetensors");
  auto b = floatsOf(root / "out" / "weights.safetensors");
  EXPECT_EQ(a.size(), b.size());
  EXPECT_TRUE(a == b);
  EXPECT_TRUE(a.count("backbone.embedding.weight"));
  json ja = json::parse(slurp(root / "hf" / "model.json"));
  json jb = json::parse(slurp(root / "out" / "model.json"));
  EXPECT_EQ(ja["source_layout"], "transformers");
  EXPECT_EQ(ja["source_config"], "transformers");
  EXPECT_EQ(jb["source_layout"], "mamba_ssm");
  EXPECT_EQ(jb["source_config"], "mamba_ssm");
  EXPECT_EQ(ja["config"], jb["config"]);
  EXPECT_EQ(ja["params"], jb["params"]);
}

TEST_F(MambaImport, HalfPrecisionCheckpointsAreWidenedExactly) {
  for (StDType dtype : {StDType::F16, StDType::BF16}) {
    writeCheckpoint(tinyConfig(), nullptr, MambaLayout::Transformers, dtype);
    std::string error;
    // By default (--weights source) every tensor is written as it was read.
    ASSERT_TRUE(run(error, /*force=*/true)) << error;
    StFile in, kept;
    ASSERT_TRUE(readSafetensors((root / "model.safetensors").string(), in, error));
    ASSERT_TRUE(readSafetensors((root / "out" / "weights.safetensors").string(), kept, error));
    ASSERT_EQ(kept.tensors.size(), in.tensors.size());
    for (const StTensor &t : in.tensors) {
      const std::string name =
          t.name == "backbone.embeddings.weight" ? "backbone.embedding.weight" : t.name;
      const StTensor *k = kept.find(name);
      ASSERT_NE(k, nullptr) << name;
      EXPECT_EQ(k->dtype, dtype) << name;
      EXPECT_EQ(k->bytes, t.bytes) << name;
    }
    // --weights f32 widens them.
    ASSERT_TRUE(run(error, /*force=*/true, 16, WeightsMode::F32)) << error;
    auto out = floatsOf(root / "out" / "weights.safetensors");
    ASSERT_EQ(out.size(), in.tensors.size());
    for (const StTensor &t : in.tensors) {
      ASSERT_EQ(t.dtype, dtype);
      // Each 16-bit value, decoded here bit by bit, is the F32 value written.
      const std::string name =
          t.name == "backbone.embeddings.weight" ? "backbone.embedding.weight" : t.name;
      const std::vector<float> &got = out.at(name);
      ASSERT_EQ(int64_t(got.size()), t.numel()) << name;
      for (int64_t i = 0; i < t.numel(); ++i) {
        uint16_t bits = uint16_t(t.bytes[2 * i] | t.bytes[2 * i + 1] << 8);
        float want = dtype == StDType::F16 ? halfToFloat(bits) : bf16ToFloat(bits);
        ASSERT_EQ(got[i], want) << name << "[" << i << "]";
      }
    }
    json model = json::parse(slurp(root / "out" / "model.json"));
    EXPECT_EQ(model["source_dtypes"], stDTypeName(dtype));
  }
  // bf16 rounding: nearest even, NaN stays NaN, overflow to infinity.
  EXPECT_EQ(floatToBf16(1.0f), 0x3f80);
  EXPECT_EQ(floatToBf16(1.00390625f), 0x3f80);  // halfway, to even
  EXPECT_EQ(floatToBf16(1.01171875f), 0x3f82);  // halfway, to even (up)
  EXPECT_EQ(floatToBf16(-2.0f), 0xc000);
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBf16(std::nanf("")))));
  EXPECT_TRUE(std::isinf(bf16ToFloat(floatToBf16(3.4e38f))));
}

TEST_F(MambaImport, NeitherLayoutIsRefusedNamingBoth) {
  writeCheckpoint(tinyConfig(), [](StFile &f) {
    for (StTensor &t : f.tensors)
      if (t.name == "backbone.embedding.weight")
        t.name = "model.embed_tokens.weight";
  });
  std::string error;
  EXPECT_FALSE(run(error));
  EXPECT_NE(error.find("model.safetensors: holds neither 'backbone.embeddings.weight'"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("'backbone.embedding.weight' (the layout of mamba_ssm's"),
            std::string::npos)
      << error;
  EXPECT_FALSE(fs::exists(root / "out"));
}

TEST_F(MambaImport, TransformersLayoutErrorsUseItsNames) {
  writeCheckpoint(tinyConfig(), [](StFile &f) {
    for (StTensor &t : f.tensors)
      if (t.name == "backbone.embeddings.weight")
        t = makeF32Tensor(t.name, {250, 64}, std::vector<float>(250 * 64, 0.5f));
  }, MambaLayout::Transformers);
  std::string error;
  EXPECT_FALSE(run(error));
  EXPECT_NE(error.find("tensor 'backbone.embeddings.weight' has shape (250, 64) but the config "
                       "implies (256, 64)"),
            std::string::npos)
      << error;
}

TEST_F(MambaImport, MissingTensorIsNamed) {
  writeCheckpoint(tinyConfig(), [](StFile &f) {
    f.tensors.erase(std::remove_if(f.tensors.begin(), f.tensors.end(),
                                   [](const StTensor &t) {
                                     return t.name == "backbone.layers.1.mixer.dt_proj.bias";
                                   }),
                    f.tensors.end());
  });
  std::string error;
  EXPECT_FALSE(run(error));
  EXPECT_NE(error.find("missing tensor 'backbone.layers.1.mixer.dt_proj.bias' (expected shape "
                       "(128,))"),
            std::string::npos)
      << error;
  EXPECT_FALSE(fs::exists(root / "out")); // nothing written on failure
}

TEST_F(MambaImport, MisshapenTensorIsNamed) {
  writeCheckpoint(tinyConfig(), [](StFile &f) {
    for (StTensor &t : f.tensors)
      if (t.name == "backbone.layers.0.mixer.conv1d.weight")
        t = makeF32Tensor(t.name, {128, 4}, std::vector<float>(512, 0.5f));
  });
  std::string error;
  EXPECT_FALSE(run(error));
  EXPECT_NE(error.find("tensor 'backbone.layers.0.mixer.conv1d.weight' has shape (128, 4) but "
                       "the config implies (128, 1, 4)"),
            std::string::npos)
      << error;
}

TEST_F(MambaImport, IntegerTensorIsRefused) {
  writeCheckpoint(tinyConfig(), [](StFile &f) {
    for (StTensor &t : f.tensors)
      if (t.name == "backbone.norm_f.weight") {
        t.dtype = StDType::I32; // same byte size as F32
      }
  });
  std::string error;
  EXPECT_FALSE(run(error));
  EXPECT_NE(error.find("backbone.norm_f.weight"), std::string::npos) << error;
}

TEST_F(MambaImport, ConfigWithFewerLayersThanTheCheckpointIsRefused) {
  writeCheckpoint(tinyConfig());
  json cfg = tinyConfig();
  cfg["num_hidden_layers"] = 1;
  std::ofstream(root / "config.json") << cfg.dump();
  std::string error;
  EXPECT_FALSE(run(error));
  EXPECT_NE(error.find("belongs to layer 1"), std::string::npos) << error;
  EXPECT_NE(error.find("num_hidden_layers = 1"), std::string::npos) << error;
}

TEST_F(MambaImport, UntiedHeadMissing) {
  writeCheckpoint(tinyConfig(), [](StFile &f) { f.tensors.pop_back(); });
  std::string error;
  EXPECT_FALSE(run(error));
  EXPECT_NE(error.find("missing tensor 'lm_head.weight'"), std::string::npos) << error;
  EXPECT_NE(error.find("tie_word_embeddings = false"), std::string::npos) << error;
}

TEST_F(MambaImport, ConfigErrorsNameTheFile) {
  writeCheckpoint(tinyConfig());
  std::ofstream(root / "config.json") << "{\"vocab_size\": 256,";
  std::string error;
  EXPECT_FALSE(run(error));
  EXPECT_NE(error.find("config.json: not valid JSON"), std::string::npos) << error;

  json cfg = tinyConfig();
  cfg.erase("hidden_size");
  std::ofstream(root / "config.json") << cfg.dump();
  EXPECT_FALSE(run(error));
  EXPECT_NE(error.find("config.json: missing field 'hidden_size'"), std::string::npos) << error;

  fs::remove(root / "config.json");
  EXPECT_FALSE(run(error));
  EXPECT_NE(error.find("config.json: cannot open"), std::string::npos) << error;
}

TEST_F(MambaImport, MissingSafetensorsFile) {
  std::ofstream(root / "config.json") << tinyConfig().dump();
  std::string error;
  EXPECT_FALSE(run(error));
  EXPECT_NE(error.find("model.safetensors"), std::string::npos) << error;
}

TEST_F(MambaImport, RefusesANonEmptyDirectoryWithoutForce) {
  writeCheckpoint(smallConfig());
  fs::create_directories(root / "out");
  std::ofstream(root / "out" / "keep.txt") << "x";
  std::string error;
  EXPECT_FALSE(run(error));
  EXPECT_NE(error.find("not empty"), std::string::npos) << error;
  EXPECT_TRUE(run(error, /*force=*/true)) << error;
  EXPECT_TRUE(fs::exists(root / "out" / "model.mlir"));
  // An existing empty directory is fine without --force.
  fs::remove_all(root / "out");
  fs::create_directories(root / "out");
  EXPECT_TRUE(run(error)) << error;
}

TEST_F(MambaImport, TinyCheckpointFromSharedData) {
  // ../shared beside the checkout (test/unit/ -> the repository -> its parent),
  // or $SSM_SHARED_DIR.
  fs::path shared = std::getenv("SSM_SHARED_DIR")
                        ? fs::path(std::getenv("SSM_SHARED_DIR"))
                        : fs::path(__FILE__).parent_path().parent_path().parent_path().parent_path() /
                              "shared";
  fs::path dir = shared / "models" / "mamba" / "tiny-mamba-seed5";
  // ctest sets SSM_SHARED_DIR (test/unit/CMakeLists.txt): there the data
  // must be present; a hand-run binary without it skips.
  if (!fs::exists(dir / "model.safetensors")) {
    if (std::getenv("SSM_SHARED_DIR"))
      FAIL() << "the shared Mamba checkpoint is missing: " << dir;
    GTEST_SKIP() << "no shared data at " << dir;
  }
  std::string error;
  ASSERT_TRUE(importMamba((dir / "model.safetensors").string(), (dir / "config.json").string(),
                          (root / "out").string(), false, 16, error))
      << error;
  json model = json::parse(slurp(root / "out" / "model.json"));
  EXPECT_EQ(model["byte_tokens"], true);
  EXPECT_EQ(model["states"].size(), 4u);
  StFile out;
  ASSERT_TRUE(readSafetensors((root / "out" / "weights.safetensors").string(), out, error));
  EXPECT_EQ(out.tensors.size(), 23u);
}

} // namespace
