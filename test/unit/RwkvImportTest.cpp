// Unit tests for the rwkv.cpp file reader, the architecture detection and
// tensor checks, model.json, and the graph text (import/Rwkv*.h,
// import/ModelBuilder.h). Synthetic files are written with the format's own
// writer; the real tiny models are checked end to end by the lit tests.
#include "import/ModelBuilder.h"
#include "import/RwkvFile.h"
#include "import/RwkvModel.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <random>
#include <string>

using namespace ssm::importer;

namespace {

/// A small seeded model: "rwkv4", "rwkv5.1" (per-head decay), "rwkv5.2",
/// "rwkv6" (mix rank 3, decay rank 5), "rwkv7" (adapter ranks 4, 6, 3, 5;
/// no v0/v1/v2 in layer 0), with the tensor shapes rwkv.cpp files have.
RwkvFile makeModel(const std::string &arch, uint32_t type = 0, int64_t C = 8,
                   int64_t layers = 2, int64_t V = 16, int64_t H = 2) {
  RwkvFile f;
  f.version = arch == "rwkv4" ? 100 : 101;
  f.nVocab = V;
  f.nEmbed = C;
  f.nLayer = layers;
  f.dataType = type;
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> dist(-0.5f, 0.5f);
  auto add = [&](const std::string &name, std::vector<int64_t> shape, bool f32 = false) {
    RwkvTensor t;
    t.name = name;
    t.type = f32 ? 0 : type;
    t.sizes.assign(shape.rbegin(), shape.rend());
    t.data.resize(t.numel());
    for (float &x : t.data)
      x = dist(gen);
    f.index[name] = f.tensors.size();
    f.tensors.push_back(t);
  };
  int64_t F = 4 * C, S = C / H;
  add("emb.weight", {V, C});
  for (int64_t l = 0; l < layers; ++l) {
    std::string p = "blocks." + std::to_string(l) + ".";
    for (const char *n : {"ln1.weight", "ln1.bias", "ln2.weight", "ln2.bias"})
      add(p + n, {C}, true);
    if (arch == "rwkv6" || arch == "rwkv7") {
      if (arch == "rwkv6") {
        for (const char *n : {"x", "w", "k", "v", "r", "g"})
          add(p + "att.time_maa_" + n, {C}, true);
        add(p + "att.time_maa_w1", {5 * 3, C}, true);
        add(p + "att.time_maa_w2", {5, C, 3}, true);
        add(p + "att.time_decay", {H, S, 1}, true);
        add(p + "att.time_decay_w1", {5, C}, true);
        add(p + "att.time_decay_w2", {C, 5}, true);
        add(p + "att.time_faaaa", {H, S, 1}, true);
        add(p + "att.gate.weight", {C, C});
      } else {
        add(p + "att.x_rwkvag", {6, 1, C});
        std::vector<std::pair<std::string, int64_t>> lora = {{"w", 4}, {"a", 6}, {"g", 5}};
        if (l > 0)
          lora.push_back({"v", 3});
        for (auto [n, rank] : lora) {
          if (n != "g")
            add(p + "att." + n + "0", {1, 1, C});
          add(p + "att." + n + "1", {rank, C});
          add(p + "att." + n + "2", {C, rank});
        }
        add(p + "att.k_k", {1, 1, C});
        add(p + "att.k_a", {1, 1, C});
        add(p + "att.r_k", {H, S});
      }
      for (const char *n : {"att.key.weight", "att.value.weight", "att.receptance.weight",
                            "att.output.weight"})
        add(p + n, {C, C});
      add(p + "att.ln_x.weight", {C}, true);
      add(p + "att.ln_x.bias", {C}, true);
      if (arch == "rwkv6") {
        add(p + "ffn.time_maa_k", {C}, true);
        add(p + "ffn.time_maa_r", {C}, true);
        add(p + "ffn.receptance.weight", {C, C});
      } else {
        add(p + "ffn.x_k", {1, 1, C});
      }
      add(p + "ffn.key.weight", {F, C});
      add(p + "ffn.value.weight", {C, F});
      if (l == 0) {
        add(p + "ln0.weight", {C}, true);
        add(p + "ln0.bias", {C}, true);
      }
      continue;
    }
    for (const char *n : {"att.time_mix_k", "att.time_mix_v", "att.time_mix_r"})
      add(p + n, {C}, true);
    if (arch == "rwkv4") {
      add(p + "att.time_decay", {C}, true);
      add(p + "att.time_first", {C}, true);
    } else if (arch == "rwkv5.1") {
      add(p + "att.time_decay", {H, 1, 1}, true);
      add(p + "att.time_first", {H, 1, 1}, true);
    } else {
      add(p + "att.time_mix_g", {C}, true);
      add(p + "att.time_decay", {H, S, 1}, true);
      add(p + "att.time_faaaa", {H, S, 1}, true);
      add(p + "att.gate.weight", {C, C});
    }
    for (const char *n : {"att.key.weight", "att.value.weight", "att.receptance.weight",
                          "att.output.weight"})
      add(p + n, {C, C});
    if (arch != "rwkv4") {
      add(p + "att.ln_x.weight", {C}, true);
      add(p + "att.ln_x.bias", {C}, true);
    }
    add(p + "ffn.time_mix_k", {C}, true);
    add(p + "ffn.time_mix_r", {C}, true);
    add(p + "ffn.key.weight", {F, C});
    add(p + "ffn.receptance.weight", {C, C});
    add(p + "ffn.value.weight", {C, F});
    if (l == 0) { // as in rwkv.cpp files: ln0 after block 0's other tensors
      add(p + "ln0.weight", {C}, true);
      add(p + "ln0.bias", {C}, true);
    }
  }
  add("ln_out.weight", {C}, true);
  add("ln_out.bias", {C}, true);
  add("head.weight", {V, C});
  return f;
}

std::vector<uint8_t> bytesOf(const RwkvFile &f) {
  std::vector<uint8_t> out;
  std::string err;
  EXPECT_TRUE(serializeRwkvFile(f, out, err)) << err;
  return out;
}

::testing::AssertionResult parseFails(const std::vector<uint8_t> &b, const std::string &part) {
  RwkvFile f;
  std::string err;
  if (parseRwkvFile(b.data(), b.size(), f, err, "m.bin"))
    return ::testing::AssertionFailure() << "parsed; expected '" << part << "'";
  if (err.find(part) == std::string::npos || err.rfind("m.bin: ", 0) != 0)
    return ::testing::AssertionFailure() << "error '" << err << "' lacks '" << part << "'";
  return ::testing::AssertionSuccess();
}

void putU32(std::vector<uint8_t> &b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    b[at + i] = uint8_t(v >> (8 * i));
}

RwkvConfig analysed(const RwkvFile &f) {
  std::vector<uint8_t> b = bytesOf(f);
  RwkvFile g;
  std::string err;
  EXPECT_TRUE(parseRwkvFile(b.data(), b.size(), g, err)) << err;
  RwkvConfig c;
  EXPECT_TRUE(analyseRwkv(g, c, err)) << err;
  return c;
}

std::string analyseError(const RwkvFile &f) {
  std::vector<uint8_t> b = bytesOf(f);
  RwkvFile g;
  std::string err;
  EXPECT_TRUE(parseRwkvFile(b.data(), b.size(), g, err)) << err;
  RwkvConfig c;
  EXPECT_FALSE(analyseRwkv(g, c, err));
  return err;
}

} // namespace

TEST(RwkvFile, RoundTripFp32AndFp16) {
  for (uint32_t type : {0u, 1u}) {
    RwkvFile f = makeModel("rwkv5.2", type);
    std::vector<uint8_t> b = bytesOf(f);
    RwkvFile g;
    std::string err;
    ASSERT_TRUE(parseRwkvFile(b.data(), b.size(), g, err)) << err;
    EXPECT_EQ(g.version, 101u);
    EXPECT_EQ(g.nVocab, 16u);
    EXPECT_EQ(g.nEmbed, 8u);
    EXPECT_EQ(g.nLayer, 2u);
    EXPECT_EQ(g.dataType, type);
    ASSERT_EQ(g.tensors.size(), f.tensors.size());
    const RwkvTensor *e = g.find("emb.weight");
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->sizes, (std::vector<int64_t>{8, 16})); // ggml order
    EXPECT_EQ(e->shape(), (std::vector<int64_t>{16, 8}));
    EXPECT_EQ(e->type, type);
    for (size_t i = 0; i < e->data.size(); ++i)
      EXPECT_NEAR(e->data[i], f.find("emb.weight")->data[i], type ? 2e-4 : 0.0);
    EXPECT_EQ(g.find("blocks.0.ln1.weight")->type, 0u); // vectors stay FP32
    EXPECT_EQ(g.find("blocks.1.att.time_decay")->shape(), (std::vector<int64_t>{2, 4, 1}));
    EXPECT_EQ(g.tensors[0].offset, 24u);
  }
}

TEST(RwkvFile, MalformedFilesNameTheOffsetOrTensor) {
  std::vector<uint8_t> good = bytesOf(makeModel("rwkv4"));
  EXPECT_TRUE(parseFails({1, 2, 3}, "truncated: 3 bytes"));
  std::vector<uint8_t> b = good;
  putU32(b, 0, 0x12345678);
  EXPECT_TRUE(parseFails(b, "wrong magic 0x12345678 at byte offset 0"));
  b = good;
  putU32(b, 4, 99);
  EXPECT_TRUE(parseFails(b, "unsupported file version 99"));
  b = good;
  putU32(b, 20, 2);
  EXPECT_TRUE(parseFails(b, "Q4_0"));
  EXPECT_TRUE(parseFails(b, "quantised"));
  // The first tensor's type word (offset 24 + 8).
  b = good;
  putU32(b, 32, 9);
  EXPECT_TRUE(parseFails(b, "tensor 'emb.weight' at byte offset 24 has data type Q8_0"));
  b = good;
  putU32(b, 24, 4);
  EXPECT_TRUE(parseFails(b, "dim_count 4 is not 1..3"));
  // Three sizes of 2^30: their product (2^90) overflowed int64 to 0 and the
  // tensor was accepted with no data (fuzz-rwkv, UBSan).
  b = good;
  putU32(b, 24, 3);
  putU32(b, 36, 1u << 30);
  putU32(b, 40, 1u << 30);
  putU32(b, 44, 1u << 30);
  EXPECT_TRUE(parseFails(b, "bad tensor header at byte offset 24: sizes of more than 2^40 elements"));
  // Cut inside the last tensor's data: names it.
  b.assign(good.begin(), good.end() - 5);
  EXPECT_TRUE(parseFails(b, "truncated: tensor 'head.weight' at byte offset"));
  // Cut inside a tensor header.
  b.assign(good.begin(), good.begin() + 24 + 6);
  EXPECT_TRUE(parseFails(b, "truncated tensor header at byte offset 24"));
  b.assign(good.begin(), good.begin() + 24);
  EXPECT_TRUE(parseFails(b, "no tensors"));
}

TEST(RwkvModel, DetectsArchitectures) {
  RwkvConfig c4 = analysed(makeModel("rwkv4"));
  EXPECT_EQ(c4.architecture, "rwkv4");
  EXPECT_EQ(c4.ffnDim, 32);
  EXPECT_EQ(c4.heads, 0);
  RwkvConfig c51 = analysed(makeModel("rwkv5.1"));
  EXPECT_EQ(c51.architecture, "rwkv5.1");
  EXPECT_EQ(c51.heads, 2);
  EXPECT_EQ(c51.headSize, 4);
  RwkvConfig c52 = analysed(makeModel("rwkv5.2"));
  EXPECT_EQ(c52.architecture, "rwkv5.2");
  EXPECT_EQ(c52.heads, 2);
  EXPECT_EQ(c52.headSize, 4);
  // Parameters in argument order: embedding, ln0, blocks, ln_out, head.
  EXPECT_EQ(c52.params.front().name, "emb.weight");
  EXPECT_EQ(c52.params[1].name, "blocks.0.ln0.weight");
  EXPECT_EQ(c52.params.back().name, "head.weight");
  RwkvConfig c6 = analysed(makeModel("rwkv6"));
  EXPECT_EQ(c6.architecture, "rwkv6");
  EXPECT_EQ(c6.heads, 2);
  EXPECT_EQ(c6.headSize, 4);
  EXPECT_DOUBLE_EQ(c6.groupNormEps, 64e-5);
  RwkvConfig c7 = analysed(makeModel("rwkv7", 0, 16, 3, 16, 4));
  EXPECT_EQ(c7.architecture, "rwkv7");
  EXPECT_EQ(c7.heads, 4); // from r_k (heads, head_size)
  EXPECT_EQ(c7.headSize, 4);
  EXPECT_EQ(c7.ffnDim, 64);
  EXPECT_DOUBLE_EQ(c7.groupNormEps, 64e-5);
  // The marker decides: k_k alone makes an RWKV-7 file, which then lacks its tensors.
  RwkvFile v7 = makeModel("rwkv5.2");
  RwkvTensor kk = v7.tensors[v7.index.at("blocks.0.ln1.weight")];
  kk.name = "blocks.0.att.k_k";
  v7.index[kk.name] = v7.tensors.size();
  v7.tensors.push_back(kk);
  EXPECT_NE(analyseError(v7).find("(rwkv7 needs"), std::string::npos) << analyseError(v7);
}

namespace {
RwkvFile without(RwkvFile f, const std::string &name) {
  f.tensors.erase(f.tensors.begin() + f.index.at(name));
  f.index.clear();
  for (size_t i = 0; i < f.tensors.size(); ++i)
    f.index[f.tensors[i].name] = i;
  return f;
}
void resize(RwkvFile &f, const std::string &name, std::vector<int64_t> shape) {
  RwkvTensor &t = f.tensors[f.index.at(name)];
  t.sizes.assign(shape.rbegin(), shape.rend());
  t.data.assign(t.numel(), 0.25f);
}
} // namespace

TEST(RwkvModel, Rwkv6And7TensorErrorsAreNamed) {
  EXPECT_NE(analyseError(without(makeModel("rwkv6"), "blocks.1.att.time_maa_w2"))
                .find("missing tensor 'blocks.1.att.time_maa_w2' (rwkv6 needs shape (5, 8, 3))"),
            std::string::npos);
  RwkvFile f = makeModel("rwkv6");
  resize(f, "blocks.1.att.time_decay_w1", {4, 8}); // rank 4, layer 0 has 5
  std::string err = analyseError(f);
  EXPECT_NE(err.find("tensor 'blocks.1.att.time_decay_w1'"), std::string::npos) << err;
  EXPECT_NE(err.find("needs shape (5, 8)"), std::string::npos) << err;
  RwkvFile g = makeModel("rwkv6");
  resize(g, "blocks.0.att.time_maa_w1", {7, 8});
  EXPECT_NE(analyseError(g).find("5 mixes"), std::string::npos) << analyseError(g);

  EXPECT_NE(analyseError(without(makeModel("rwkv7"), "blocks.1.att.v2")).find("missing tensor 'blocks.1.att.v2'"),
            std::string::npos);
  RwkvFile h = makeModel("rwkv7");
  resize(h, "blocks.0.att.x_rwkvag", {5, 1, 8});
  EXPECT_NE(analyseError(h).find("the mixes of r, w, k, v, a, g"), std::string::npos);
  RwkvFile r = makeModel("rwkv7");
  resize(r, "blocks.0.att.r_k", {3, 3});
  EXPECT_NE(analyseError(r).find("cannot tell the head count"), std::string::npos)
      << analyseError(r);
  // Layer 0's v is v_first: a v0 there is a mislabelled file.
  RwkvFile v = makeModel("rwkv7");
  RwkvTensor extra = v.tensors[v.index.at("blocks.1.att.v0")];
  extra.name = "blocks.0.att.v0";
  v.index[extra.name] = v.tensors.size();
  v.tensors.push_back(extra);
  EXPECT_NE(analyseError(v).find("v_first"), std::string::npos) << analyseError(v);
}

TEST(RwkvModel, MissingAndMisshapenTensorsAreNamed) {
  RwkvFile f = makeModel("rwkv4");
  f.tensors.erase(f.tensors.begin() + f.index.at("blocks.1.att.output.weight"));
  f.index.clear();
  for (size_t i = 0; i < f.tensors.size(); ++i)
    f.index[f.tensors[i].name] = i;
  EXPECT_NE(analyseError(f).find("missing tensor 'blocks.1.att.output.weight'"),
            std::string::npos);

  RwkvFile g = makeModel("rwkv5.2");
  RwkvTensor &t = g.tensors[g.index.at("blocks.0.att.key.weight")];
  t.sizes = {4, 8};
  t.data.resize(32);
  std::string err = analyseError(g);
  EXPECT_NE(err.find("tensor 'blocks.0.att.key.weight' (record at byte offset"), std::string::npos)
      << err;
  EXPECT_NE(err.find("misshapen"), std::string::npos) << err;

  RwkvFile h = makeModel("rwkv4");
  RwkvTensor extra = h.tensors[h.index.at("blocks.1.ln1.weight")];
  extra.name = "blocks.2.ln1.weight";
  h.index[extra.name] = h.tensors.size();
  h.tensors.push_back(extra);
  EXPECT_NE(analyseError(h).find("belongs to layer 2 but the header says n_layer = 2"),
            std::string::npos);
}

TEST(RwkvModel, ModelJsonRoundTrips) {
  for (const char *arch : {"rwkv4", "rwkv5.1", "rwkv5.2", "rwkv6", "rwkv7"}) {
    RwkvConfig c = analysed(makeModel(arch));
    std::string json = rwkvModelJson(c, "m.bin");
    EXPECT_NE(json.find("\"format\": \"ssm-opt-model\""), std::string::npos);
    EXPECT_NE(json.find("\"byte_tokens\": true"), std::string::npos);
    RwkvConfig d;
    std::string err;
    ASSERT_TRUE(rwkvConfigFromJson(json, d, err)) << err;
    EXPECT_EQ(d.architecture, c.architecture);
    EXPECT_EQ(d.nEmbed, c.nEmbed);
    EXPECT_EQ(d.heads, c.heads);
    EXPECT_EQ(d.ffnDim, c.ffnDim);
    EXPECT_DOUBLE_EQ(d.groupNormEps, c.groupNormEps);
    ASSERT_EQ(d.params.size(), c.params.size());
    for (size_t i = 0; i < c.params.size(); ++i) {
      EXPECT_EQ(d.params[i].name, c.params[i].name);
      EXPECT_EQ(d.params[i].shape, c.params[i].shape);
    }
    std::vector<RwkvState> st = rwkvStates(c);
    ASSERT_FALSE(st.empty());
    EXPECT_EQ(st[0].name, "blocks.0.ffn_xx");
    EXPECT_EQ(st[1].name, "blocks.0.att_xx");
    if (c.isV5()) {
      EXPECT_EQ(st.size(), 6u);
      EXPECT_EQ(st[2].shape, (std::vector<int64_t>{2, 4, 4}));
    } else {
      EXPECT_EQ(st.size(), 10u);
      EXPECT_EQ(st[4].name, "blocks.0.pp");
      EXPECT_EQ(st[4].init, -1e30);
    }
  }
}

TEST(RwkvModel, ModelJsonParamsMustFitTheConfig) {
  // A model.json whose params do not fit its config built a graph that did not
  // verify (fuzz-model-json): it is refused, naming the param.
  RwkvConfig c = analysed(makeModel("rwkv4"));
  std::string json = rwkvModelJson(c, "m.bin");
  nlohmann::json j = nlohmann::json::parse(json);
  for (auto &p : j["params"])
    if (p["name"] == "blocks.0.att.receptance.weight")
      p["shape"] = {5, c.nEmbed};
  RwkvConfig d;
  std::string err;
  EXPECT_FALSE(rwkvConfigFromJson(j.dump(), d, err));
  EXPECT_NE(err.find("params do not fit rwkv4"), std::string::npos) << err;
  EXPECT_NE(err.find("blocks.0.att.receptance.weight"), std::string::npos) << err;
  std::string mlir;
  EXPECT_FALSE(buildModelMLIR(j.dump(), 2, mlir, err));

  nlohmann::json k = nlohmann::json::parse(json);
  k["params"].push_back(k["params"][0]);
  EXPECT_FALSE(rwkvConfigFromJson(k.dump(), d, err));
  EXPECT_NE(err.find("'emb.weight' is listed twice"), std::string::npos) << err;

  nlohmann::json m = nlohmann::json::parse(json);
  m["config"]["ffn_dim"] = c.ffnDim + 1;
  EXPECT_FALSE(rwkvConfigFromJson(m.dump(), d, err));
  EXPECT_NE(err.find("but its config says rwkv4 with ffn_dim"), std::string::npos) << err;

  // A param that is not an object was refused with no message (fuzz-model-json).
  nlohmann::json n = nlohmann::json::parse(json);
  n["params"][2] = 17;
  err.clear();
  EXPECT_FALSE(rwkvConfigFromJson(n.dump(), d, err));
  EXPECT_NE(err.find("an entry of \"params\" is not an object (17)"), std::string::npos) << err;
  err.clear();
  EXPECT_FALSE(buildModelMLIR(n.dump(), 2, mlir, err));
  EXPECT_FALSE(err.empty());
}

TEST(RwkvModel, GraphTextIsDeterministicAndComplete) {
  for (const char *arch : {"rwkv4", "rwkv5.1", "rwkv5.2", "rwkv6", "rwkv7"}) {
    RwkvConfig c = analysed(makeModel(arch));
    std::string json = rwkvModelJson(c, "m.bin"), a, b, err;
    ASSERT_TRUE(buildModelMLIR(json, 5, a, err)) << err;
    ASSERT_TRUE(buildModelMLIR(json, 5, b, err)) << err;
    EXPECT_EQ(a, b);
    EXPECT_NE(a.find("func.func @forward_sequence(%tokens: tensor<5xi32> {ssm.name = \"tokens\"}"),
              std::string::npos);
    EXPECT_NE(a.find("func.func @forward_step(%tokens: tensor<1xi32> {ssm.name = \"tokens\"}"),
              std::string::npos);
    // The last position's logits by default, every position's on request.
    EXPECT_NE(a.find("-> (tensor<1x16xf32> {ssm.name = \"logits\"}"), std::string::npos);
    ASSERT_TRUE(buildModelMLIR(json, 5, b, err, LogitsRows::All)) << err;
    EXPECT_NE(b.find("-> (tensor<5x16xf32> {ssm.name = \"logits\"}"), std::string::npos);
    EXPECT_NE(a.find("{ssm.param = \"head.weight\"}"), std::string::npos);
    EXPECT_NE(a.find("{ssm.state = \"blocks.1.att_xx\"}"), std::string::npos);
    EXPECT_NE(a.find("tensor.extract"), std::string::npos);
    EXPECT_NE(a.find("linalg.matmul_transpose_b"), std::string::npos);
    bool v4 = std::string(arch) == "rwkv4";
    EXPECT_EQ(a.find("ssm.wkv4") != std::string::npos, v4);
    bool v7 = std::string(arch) == "rwkv7";
    EXPECT_EQ(a.find("ssm.ssd_scan") != std::string::npos, !v4 && !v7);
    EXPECT_EQ(a.find("ssm.wkv7") != std::string::npos, v7);
    // RWKV-7: a first block (it makes v_first) and one for the others.
    EXPECT_EQ(a.find("func.func private @block0_sequence(") != std::string::npos, v7);
    EXPECT_EQ(a.find("func.func private @block0_step(") != std::string::npos, v7);
    EXPECT_NE(a.find("func.func private @block_step("), std::string::npos);
    std::string one;
    ASSERT_TRUE(buildModelMLIR(json, 1, one, err)) << err;
    EXPECT_EQ(one.find("tensor.concat"), std::string::npos); // no shift rows at L = 1
  }
}

TEST(RwkvModel, BatchedStepFunctionTakesEveryStateWithABatchDim) {
  // --batch 3: @forward_step_batched takes 3 tokens, every state of
  // rwkvStates with a leading 3, and returns logits (3, vocab); its shapes
  // are read from rwkvStates here, the graph's numerics are checked in
  // test/lit/Import/rwkv-batched.mlir against @forward_step.
  for (const char *arch : {"rwkv4", "rwkv5.1", "rwkv5.2", "rwkv6", "rwkv7"}) {
    SCOPED_TRACE(arch);
    RwkvConfig c = analysed(makeModel(arch));
    std::string json = rwkvModelJson(c, "m.bin", 3), mlir, err;
    EXPECT_NE(json.find("\"step_batched\""), std::string::npos);
    ASSERT_TRUE(buildModelMLIR(json, 2, mlir, err)) << err;
    size_t fn = mlir.find("func.func @forward_step_batched(%tokens: tensor<3xi32> {ssm.name = \"tokens\"}");
    ASSERT_NE(fn, std::string::npos);
    size_t body = mlir.find(") {", fn);
    std::string sig = mlir.substr(fn, body - fn);
    EXPECT_NE(sig.find("-> (tensor<3x16xf32> {ssm.name = \"logits\"}"), std::string::npos) << sig;
    for (const RwkvState &st : rwkvStates(c)) {
      std::string type = "tensor<3x";
      for (int64_t d : st.shape)
        type += std::to_string(d) + "x";
      type += "f32> {ssm.state = \"" + st.name + "\"}";
      // once as an argument, once as a result
      size_t first = sig.find(type);
      ASSERT_NE(first, std::string::npos) << type;
      EXPECT_NE(sig.find(type, first + 1), std::string::npos) << type;
    }
    // Without a batch in model.json, no batched function.
    ASSERT_TRUE(buildModelMLIR(rwkvModelJson(c, "m.bin"), 2, mlir, err)) << err;
    EXPECT_EQ(mlir.find("forward_step_batched"), std::string::npos);
  }
}

TEST(ModelBuilder, RejectsBadInput) {
  std::string mlir, err;
  EXPECT_FALSE(buildModelMLIR("not json", 4, mlir, err));
  EXPECT_NE(err.find("not a JSON object"), std::string::npos);
  EXPECT_FALSE(buildModelMLIR(R"({"architecture": "rwkv9"})", 4, mlir, err));
  EXPECT_NE(err.find("unknown architecture 'rwkv9'"), std::string::npos);
  RwkvConfig c = analysed(makeModel("rwkv4"));
  EXPECT_FALSE(buildModelMLIR(rwkvModelJson(c, "m.bin"), 0, mlir, err));
  EXPECT_NE(err.find("at least 1"), std::string::npos);
  EXPECT_FALSE(buildModelMLIR(R"({"architecture": "rwkv4", "config": {}})", 4, mlir, err));
  EXPECT_NE(err.find("n_vocab"), std::string::npos) << err;
}
