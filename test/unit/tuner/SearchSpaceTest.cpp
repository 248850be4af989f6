// The register-file cap of the tuner's search space (tuner/SearchSpace.h):
// register tiles whose accumulators exceed the target's vector registers are
// legal but skipped; the heuristic's tiles are never skipped.
//
// The accumulator count is recomputed here from the rendered attribute text
// (not from SearchSpace's own arithmetic): tiled, tile_rows x tile_cols /
// vector_width vectors; dot, tile_rows x tile_cols partial-sum vectors; each
// taking vector_width / native lanes registers (at least 1).
#include "passes/InitAll.h"
#include "passes/Pipelines.h"
#include "passes/TargetInfo.h"
#include "tuner/KernelKey.h"
#include "tuner/Search.h"
#include "tuner/SearchSpace.h"

#include "dialect/SsmDialect.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <map>

using namespace mlir;

namespace {

// mamba-130m's in_proj at M = 512 (nn.Linear: the weight is (N, K)).
const char *kInProj = R"mlir(
func.func @kernel(%a: tensor<512x768xf32>, %w: tensor<3072x768xf32>) -> tensor<512x3072xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x3072xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<512x3072xf32>) -> tensor<512x3072xf32>
  %m = linalg.matmul_transpose_b ins(%a, %w : tensor<512x768xf32>, tensor<3072x768xf32>)
         outs(%f : tensor<512x3072xf32>) -> tensor<512x3072xf32>
  return %m : tensor<512x3072xf32>
}
)mlir";

// The same at M = 1 (decode).
const char *kInProjStep = R"mlir(
func.func @kernel(%a: tensor<1x768xf32>, %w: tensor<3072x768xf32>) -> tensor<1x3072xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3072xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x3072xf32>) -> tensor<1x3072xf32>
  %m = linalg.matmul_transpose_b ins(%a, %w : tensor<1x768xf32>, tensor<3072x768xf32>)
         outs(%f : tensor<1x3072xf32>) -> tensor<1x3072xf32>
  return %m : tensor<1x3072xf32>
}
)mlir";

// A plain matmul (B given as (K, N)): the tiled form only.
const char *kPlain = R"mlir(
func.func @kernel(%a: tensor<64x96xf32>, %b: tensor<96x80xf32>) -> tensor<64x80xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x80xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x80xf32>) -> tensor<64x80xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x80xf32>)
         outs(%f : tensor<64x80xf32>) -> tensor<64x80xf32>
  return %m : tensor<64x80xf32>
}
)mlir";

struct TunerSearchSpace : ::testing::Test {
  TunerSearchSpace() : ctx(registry()) { ctx.loadAllAvailableDialects(); }
  static DialectRegistry registry() {
    DialectRegistry r;
    ssm::registerAllDialects(r);
    return r;
  }
  OwningOpRef<ModuleOp> parse(const char *text) {
    auto m = parseSourceString<ModuleOp>(text, &ctx);
    EXPECT_TRUE(m) << "the test's kernel does not parse";
    return m;
  }
  /// What ssm-assign-schedules writes for the kernel's op on `target`.
  Attribute heuristic(ModuleOp m, const std::string &target) {
    OwningOpRef<ModuleOp> copy(cast<ModuleOp>(m->clone()));
    PassManager pm(&ctx);
    ssm::CpuPipelineOptions po;
    po.target = target;
    ssm::buildCpuPipeline(pm, po);
    if (failed(pm.run(*copy)))
      return {};
    Operation *op = ssm::tune::kernelOp(*copy);
    return op ? op->getAttr(ssm::kScheduleAttrName) : Attribute();
  }
  MLIRContext ctx;
};

std::map<std::string, std::string> fields(llvm::StringRef text) {
  std::map<std::string, std::string> out;
  text = text.drop_until([](char c) { return c == '<'; }).drop_front();
  text = text.drop_back(); // '>'
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, ',');
  for (llvm::StringRef p : parts) {
    auto [k, v] = p.split('=');
    out[k.trim().str()] = v.trim().str();
  }
  return out;
}

int64_t num(const std::map<std::string, std::string> &f, const char *name) {
  auto it = f.find(name);
  int64_t v = 0;
  EXPECT_TRUE(it != f.end() && !llvm::StringRef(it->second).getAsInteger(10, v))
      << "field " << name;
  return v;
}

/// Accumulator registers of a rendered #ssm.matmul on a target with `lanes`.
int64_t accumulators(const std::string &text, int64_t lanes) {
  auto f = fields(text);
  int64_t vw = num(f, "vector_width"), rows = num(f, "tile_rows"), cols = num(f, "tile_cols");
  int64_t perVector = (vw + lanes - 1) / lanes;
  if (f["algorithm"] == "dot")
    return rows * cols * perVector;
  return rows * ((cols + vw - 1) / vw) * perVector;
}

const char *kAvx512 = "x86-64-linux-avx-avx2-avx512-avx512_skylake-f16c-fma-sse41";
const char *kAvx2 = "x86-64-linux-avx-avx2-f16c-fma-sse41";

TEST_F(TunerSearchSpace, AbsurdTiledTileIsLegalButOverTheRegisterFile) {
  auto m = parse(kInProj);
  Operation *op = ssm::tune::kernelOp(*m);
  ASSERT_TRUE(op);
  ssm::tune::SearchSpace space(op, ssm::parseTarget(kAvx512));
  EXPECT_EQ(space.vectorRegisters(), 32);
  // The candidate that cost a 300 s compile timeout in an in_proj search.
  std::string absurd = "#ssm.matmul<algorithm = tiled, vector_width = 16, tile_rows = 11, "
                       "tile_cols = 256, tile_k = 48, row_tiles = 4, pack_b = true, "
                       "parallel = true>";
  Attribute a = space.legal(absurd);
  ASSERT_TRUE(a) << "the verifier accepts it: the cap is the tuner's, not a legality rule";
  auto p = space.pointOf(a);
  ASSERT_TRUE(p);
  EXPECT_EQ(space.accumulatorVectors(*p), 11 * 16);
  EXPECT_FALSE(space.fitsRegisters(*p));
  // 8 x 2 vectors of 16 fits 32 registers; 8 x 5 does not.
  auto fits = [&](const std::string &t) {
    Attribute b = space.legal(t);
    EXPECT_TRUE(b) << t;
    auto q = b ? space.pointOf(b) : std::nullopt;
    return q && space.fitsRegisters(*q);
  };
  EXPECT_TRUE(fits("#ssm.matmul<algorithm = tiled, vector_width = 16, tile_rows = 8, "
                   "tile_cols = 32, tile_k = 0, row_tiles = 4, pack_b = true, parallel = true>"));
  EXPECT_FALSE(fits("#ssm.matmul<algorithm = tiled, vector_width = 16, tile_rows = 8, "
                    "tile_cols = 80, tile_k = 0, row_tiles = 4, pack_b = true, parallel = true>"));
  // dot: one partial-sum vector per (A row, weight row); 32 lanes take two registers.
  EXPECT_TRUE(fits("#ssm.matmul<algorithm = dot, vector_width = 16, tile_rows = 8, "
                   "tile_cols = 4, row_tiles = 4, col_tiles = 8, parallel = true>"));
  EXPECT_FALSE(fits("#ssm.matmul<algorithm = dot, vector_width = 16, tile_rows = 8, "
                    "tile_cols = 5, row_tiles = 4, col_tiles = 8, parallel = true>"));
  EXPECT_FALSE(fits("#ssm.matmul<algorithm = dot, vector_width = 32, tile_rows = 8, "
                    "tile_cols = 3, row_tiles = 4, col_tiles = 8, parallel = true>"));
}

TEST_F(TunerSearchSpace, Avx2HasSixteenRegisters) {
  auto m = parse(kInProj);
  ssm::tune::SearchSpace space(ssm::tune::kernelOp(*m), ssm::parseTarget(kAvx2));
  EXPECT_EQ(space.vectorRegisters(), 16);
  Attribute a = space.legal("#ssm.matmul<algorithm = dot, vector_width = 8, tile_rows = 8, "
                            "tile_cols = 3, row_tiles = 4, col_tiles = 8, parallel = true>");
  ASSERT_TRUE(a);
  EXPECT_FALSE(space.fitsRegisters(*space.pointOf(a))); // 24 > 16, fine with AVX-512
  ssm::tune::SearchSpace wide(ssm::tune::kernelOp(*m), ssm::parseTarget(kAvx512));
  EXPECT_TRUE(wide.fitsRegisters(*wide.pointOf(a)));
}

TEST_F(TunerSearchSpace, NoTargetNoCap) {
  auto m = parse(kInProj);
  ssm::tune::SearchSpace space(ssm::tune::kernelOp(*m));
  EXPECT_EQ(space.vectorRegisters(), 0);
  Attribute a = space.legal("#ssm.matmul<algorithm = tiled, vector_width = 16, tile_rows = 11, "
                            "tile_cols = 256, tile_k = 48, row_tiles = 4, pack_b = true, "
                            "parallel = true>");
  ASSERT_TRUE(a);
  EXPECT_TRUE(space.fitsRegisters(*space.pointOf(a)));
}

// The search's own points: the cap agrees with the count recomputed from the
// rendered text, and rejects some points (the ladders reach far past it).
TEST_F(TunerSearchSpace, CapAgreesWithRenderedTilesOnSearchPoints) {
  for (const char *kernel : {kInProj, kInProjStep, kPlain})
    for (const char *target : {kAvx512, kAvx2}) {
      auto m = parse(kernel);
      ssm::tune::SearchSpace space(ssm::tune::kernelOp(*m), ssm::parseTarget(target));
      int64_t lanes = ssm::parseTarget(target)->vectorWidth;
      std::vector<size_t> sizes;
      std::vector<bool> ordered;
      for (const ssm::tune::Dim &d : space.dims()) {
        sizes.push_back(d.values.size());
        ordered.push_back(d.field->kind == ssm::FieldKind::Int);
      }
      ssm::tune::Search search(sizes, ordered, 7);
      int over = 0, under = 0;
      for (int i = 0; i < 400; ++i) {
        ssm::tune::Point p = search.next(std::nullopt);
        std::string text = space.render(p);
        int64_t acc = accumulators(text, lanes);
        EXPECT_EQ(space.accumulatorVectors(p), acc) << text << " on " << target;
        EXPECT_EQ(space.fitsRegisters(p), acc <= space.vectorRegisters()) << text;
        (acc <= space.vectorRegisters() ? under : over)++;
      }
      EXPECT_GT(over, 0) << "no point over the register file: the cap is never exercised";
      EXPECT_GT(under, 0) << "every point over the register file";
    }
}

// The heuristic is always inside the cap (the search starts from it).
TEST_F(TunerSearchSpace, HeuristicFitsEveryTarget) {
  for (const char *kernel : {kInProj, kInProjStep, kPlain})
    for (const char *target : {kAvx512, kAvx2, "arm-64-linux", "x86-64-linux-sse41"}) {
      auto m = parse(kernel);
      Attribute h = heuristic(*m, target);
      ASSERT_TRUE(h) << target;
      ssm::tune::SearchSpace space(ssm::tune::kernelOp(*m), ssm::parseTarget(target));
      auto p = space.pointOf(h);
      ASSERT_TRUE(p);
      std::string text;
      llvm::raw_string_ostream os(text);
      h.print(os);
      EXPECT_TRUE(space.fitsRegisters(*p))
          << text << " on " << target << ": " << space.accumulatorVectors(*p) << " > "
          << space.vectorRegisters();
    }
}

} // namespace

namespace {

// A selective scan kernel (mamba-130m's channels, a short sequence).
const char *kScan = R"mlir(
func.func @kernel(%u: tensor<1x16x1536xf32>, %dt: tensor<1x16x1536xf32>, %A: tensor<1536x16xf32>,
                  %B: tensor<1x16x16xf32>, %C: tensor<1x16x16xf32>) -> (tensor<1x16x1536xf32>, tensor<1x1536x16xf32>) {
  %y, %h = ssm.selective_scan time_major %u, %dt, %A, %B, %C
      : (tensor<1x16x1536xf32>, tensor<1x16x1536xf32>, tensor<1536x16xf32>, tensor<1x16x16xf32>,
         tensor<1x16x16xf32>) -> (tensor<1x16x1536xf32>, tensor<1x1536x16xf32>)
  return %y, %h : tensor<1x16x1536xf32>, tensor<1x1536x16xf32>
}
)mlir";

// CPU targets never get GPU fields as coordinates, nor in rendered candidates.
TEST_F(TunerSearchSpace, NoGpuFieldsForCpuTargets) {
  for (const char *kernel : {kInProj, kInProjStep, kScan})
    for (const char *target : {kAvx512, kAvx2, "arm-64-linux"}) {
      auto m = parse(kernel);
      ssm::tune::SearchSpace space(ssm::tune::kernelOp(*m), ssm::parseTarget(target));
      ASSERT_FALSE(space.dims().empty());
      for (const ssm::tune::Dim &d : space.dims())
        EXPECT_FALSE(d.field->name.starts_with("gpu")) << d.field->name.str() << " on " << target;
      ssm::tune::Point p(space.dims().size(), 0);
      EXPECT_EQ(space.render(p).find("gpu"), std::string::npos) << space.render(p);
    }
}

} // namespace
