//===- RandomProgramsTest.cpp - The richer random program generator (CPU) ===//
//
// randomProgram(seed, RandomProgramOptions) (tests/common/RandomGraph.h): the same seed gives
// the same program; over 300 seeds every step kind appears; options switch kinds off; a few
// programs run eagerly with every value finite and a sensitivity of the right shape that is
// zero exactly where the program is exact. The driver tests/random/tg_random_programs runs
// them through the compiler (ctest: random_programs_cpu).
//
//===----------------------------------------------------------------------===//
#include "RandomGraph.h"
#include "RandomGraphImpl.h"
#include "tg/tg.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>

namespace {

TEST(RandomPrograms, SameSeedSameProgram) {
  tgtest::RandomProgramOptions o;
  EXPECT_EQ(tgtest::randomProgram(42, o).description, tgtest::randomProgram(42, o).description);
  EXPECT_NE(tgtest::randomProgram(42, o).description, tgtest::randomProgram(43, o).description);
  // The richer generator does not change randomProgram(seed).
  EXPECT_NE(tgtest::randomProgram(42, o).description, tgtest::randomProgram(42).description);
}

TEST(RandomPrograms, EveryStepKindAppears) {
  std::map<std::string, int> seen;
  std::set<size_t> outputs, inputs;
  std::set<std::string> dtypes;
  int breaks = 0, composites = 0, matmuls = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    tgtest::RandomProgram p = tgtest::randomProgram(seed, tgtest::RandomProgramOptions{});
    for (const std::string& f : p.features) ++seen[f];
    outputs.insert(p.numOutputs);
    inputs.insert(p.inputs.size());
    dtypes.insert(tg::dtype_name(p.dtype));
    breaks += p.graphBreaks;
    composites += p.composites;
    matmuls += p.matmuls;
    for (const tg::TensorSpec& s : p.inputs) EXPECT_LE(tg::shape_numel(s.shape), 50000) << p.description;
  }
  for (const char* f : {"sum", "mean", "max", "keepdims", "broadcast_back", "softmax", "layer_norm",
                        "layer_norm_affine", "matmul_weight", "matmul_gram", "matmul_values", "matmul_window",
                        "matmul_constant", "matmul_batched", "matmul_ta", "matmul_tb",
                        "epilogue_bias", "epilogue_activation", "epilogue_residual", "epilogue_cast",
                        "permute", "reshape", "broadcast_to", "layout_round_trip", "cast",
                        "splat_constant", "dense_constant", "reduced_constant", "item", "to_vector", "bool", "check",
                        "attention", "attention_causal", "attention_softcap", "attention_alibi", "attention_bias"})
    EXPECT_GE(seen[f], 3) << f;
  EXPECT_EQ(outputs, (std::set<size_t>{1, 2, 3}));
  EXPECT_GE(inputs.size(), 5u);
  EXPECT_EQ(dtypes.size(), 3u);
  EXPECT_GT(breaks, 30);
  EXPECT_LT(breaks, 200);  // most programs stay one graph
  EXPECT_GT(composites, 30);
  EXPECT_GT(matmuls, 60);
}

TEST(RandomPrograms, OptionsSwitchStepKindsOff) {
  tgtest::RandomProgramOptions o;
  o.reductions = o.composites = o.matmuls = o.attention = o.layouts = o.casts = o.constants = o.breaks = o.checks = false;
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    tgtest::RandomProgram p = tgtest::randomProgram(seed, o);
    EXPECT_TRUE(p.features.empty()) << p.description;
    EXPECT_FALSE(p.graphBreaks || p.composites || p.matmuls || p.checks);
  }
}

TEST(RandomPrograms, RunEagerlyFiniteWithSensitivity) {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    tgtest::RandomProgram p = tgtest::randomProgram(seed, tgtest::RandomProgramOptions{});
    SCOPED_TRACE(p.description);
    std::vector<tg::Tensor> in = tgtest::randomInputs(p, seed, tg::Device::CPU);
    std::vector<tg::Tensor> out = p.fn(in);
    ASSERT_EQ(out.size(), p.numOutputs);
    std::vector<std::vector<double>> s = p.sensitivity(in);
    ASSERT_EQ(s.size(), out.size());
    for (size_t o = 0; o < out.size(); ++o) {
      std::vector<float> v = out[o].to_vector<float>();
      ASSERT_EQ(s[o].size(), v.size());
      for (size_t i = 0; i < v.size(); ++i) {
        EXPECT_TRUE(std::isfinite(v[i])) << "result " << o << " element " << i;
        EXPECT_TRUE(std::isfinite(s[o][i]) && s[o][i] >= 0);
        if (!p.inexact) {
          EXPECT_EQ(s[o][i], 0.0);
        }
      }
    }
  }
}

// Found by the GPU fuzz run (seed 6316: bf16(sigmoid(f16 matmul)) * 0.5). A 16-bit result
// that the reference rounds to 0 (sigmoid(-20) = 2e-9, below f16's smallest subnormal) is not
// exact: a fused kernel keeps the f32 value, and the cast after it keeps it too. The bound of
// such an element is at least one subnormal step, as for every other element of the step.
TEST(RandomPrograms, A16BitResultThatUnderflowsToZeroStillMovesByASubnormalStep) {
  using tgtest::detail::Step;
  std::vector<Step> steps(2);
  steps[0].input = 0;
  steps[1].fn = [](const std::vector<tg::Tensor>& v) { return tg::sigmoid(v[0]); };
  steps[1].noise = tgtest::detail::opNoise("sigmoid", tg::DType::F16, 20);
  steps[1].operands = {0};
  const std::vector<tg::Tensor> in = {
      tg::cast(tg::from_vector(std::vector<float>{-20.0f, 0.0f, 3.0f}, {3}), tg::DType::F16)};
  const std::vector<std::vector<double>> e = tgtest::detail::errorBoundsOf(steps, {1}, in);
  ASSERT_EQ(e.size(), 1u);
  ASSERT_EQ(e[0].size(), 3u);
  EXPECT_EQ(tg::sigmoid(in[0]).to_vector<float>()[0], 0.0f);  // the reference underflows
  for (size_t i = 0; i < 3; ++i) EXPECT_GE(e[0][i], 0x1p-24) << "element " << i;
}

}  // namespace
