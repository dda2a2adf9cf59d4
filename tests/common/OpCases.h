//===- OpCases.h - One small graph per (op kind, dtype) of the tg dialect -===//
//
// The table that CodegenCompileTest (compile every kernel with NVRTC) and the GPU tests (run
// every op on the GPU, compare with the CPU) share: every elementwise op with every dtype it
// accepts (unary, binary, tensor-scalar, broadcasting binary, compare with every predicate,
// select, cast between every pair of dtypes), broadcast / transpose / reshape of every dtype,
// reduce_sum / reduce_max / reduce_mean over several axis sets (and a long reduction that
// takes the block-per-output path), softmax over two axes, layer_norm with and without
// weight and bias, and matmul (plain, transposed operands, batched, a shared rank-2 operand,
// broadcast batch dims, a size that takes 64x64 tiles).
//
// Each input names the domain its values are drawn from (log/sqrt/rsqrt/pow bases are
// positive, divisors are away from zero, integers are never zero and include the extremes).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <tg/tg.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tgtest {

enum class Domain {
  Normal,        ///< randn
  Half,          ///< randn * 0.5 (pow exponents)
  Positive,      ///< abs(randn) + 0.5
  AwayFromZero,  ///< randn pushed 0.5 away from zero (divisors)
  Wide,          ///< randn * 1000 with fractions (float -> i32 casts, sin/cos range reduction)
  Angles,        ///< randn * 100 (sin, cos: range reduction over the angles rotary embeddings take)
  Halves,        ///< multiples of 0.5 around zero, -0 and 0 included (round, floor, sign)
  NearOne,       ///< +-(1 + randn / 10) (products)
  Int,           ///< non-zero i32 in [-100000, 100000], with INT_MIN, INT_MAX, 2^24 + 1 mixed in
  SmallInt,      ///< non-zero i32 in [-1000, 1000] (for sums that must not overflow)
  Bool,          ///< random true / false
  Index,         ///< i32 in [0, 30]: indices and starts valid for every extent above 30
};

/// How a result may differ from the CPU reference on the GPU (GpuTest maps these to numbers).
enum class Accuracy {
  Exact,           ///< bit for bit: layout, casts, neg/abs/relu/max/min, compare, select, ...
  Elementwise,     ///< a float elementwise op whose GPU formula may differ (exp, tanh, div, ...)
  Reduction,       ///< sum / mean: f32 accumulation in another order
  Composite,       ///< softmax, layer_norm
  Matmul,          ///< f32 accumulation over K
};

struct OpCase {
  std::string name;   ///< "exp/bf16", "cast/f32->i32", ...
  std::string op;     ///< the op: "exp", "gelu_tanh", "reduce_sum", ...
  tg::DType dtype;    ///< the dtype of the data operands
  std::vector<tg::TensorSpec> inputs;
  std::vector<Domain> domains;  ///< one per input
  std::function<tg::Tensor(const std::vector<tg::Tensor>&)> fn;
  Accuracy accuracy = Accuracy::Exact;
  int64_t reduced = 0;  ///< elements summed into each result (Reduction, Matmul: K)
};

/// Every case, in a fixed order.
const std::vector<OpCase>& opCases();

/// Seeded inputs for `c` on `device` (the same values on every device).
std::vector<tg::Tensor> caseInputs(const OpCase& c, uint64_t seed, tg::Device device);

/// Inputs of `specs` drawn from `domains`, created on the CPU and moved to `device`.
std::vector<tg::Tensor> domainInputs(const std::vector<tg::TensorSpec>& specs,
                                     const std::vector<Domain>& domains, uint64_t seed,
                                     tg::Device device);

}  // namespace tgtest
