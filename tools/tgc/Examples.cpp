//===- Examples.cpp - Built-in graphs, traced from examples/graphs.h ------===//
#include "tgc/Examples.h"

#include "graphs.h"

namespace tg::tools {

namespace {

using tg::DType;
using tg::TensorSpec;

struct Example {
  const char* name;
  const char* description;
};

const Example kExamples[] = {
    {"chain8", "the README's elementwise chain, f32[1048576] x 2 -> 1"},
    {"chain8_bf16", "the same chain in bf16"},
    {"gelu", "gelu (tanh), f32[1048576]"},
    {"bias_gelu", "gelu(x + bias), x f32[1024, 4096], bias f32[4096]"},
    {"chain32", "32 elementwise ops on f32[1024]"},
    {"softmax", "row softmax of f32[512, 1024]"},
    {"mlp", "gelu(X @ W^T + b), bf16 X[256, 512], W[1024, 512], b[1024]"},
};

}  // namespace

std::vector<std::string> exampleNames() {
  std::vector<std::string> names;
  for (const Example& e : kExamples) names.push_back(std::string(e.name) + "\t" + e.description);
  return names;
}

std::optional<std::string> exampleIr(const std::string& name) {
  const int64_t n = 1 << 20;
  if (name == "chain8" || name == "chain8_bf16") {
    DType dt = name == "chain8" ? DType::F32 : DType::BF16;
    return tg::jit(tg_graphs::chain8, {.name = name}).trace_ir(TensorSpec{{n}, dt}, TensorSpec{{n}, dt});
  }
  if (name == "gelu") return tg::jit(tg_graphs::gelu, {.name = name}).trace_ir(TensorSpec{{n}});
  if (name == "bias_gelu")
    return tg::jit(tg_graphs::bias_gelu, {.name = name})
        .trace_ir(TensorSpec{{1024, 4096}}, TensorSpec{{4096}});
  if (name == "chain32") return tg::jit(tg_graphs::chain32, {.name = name}).trace_ir(TensorSpec{{1024}});
  if (name == "softmax")
    return tg::jit(tg_graphs::softmax_rows, {.name = name}).trace_ir(TensorSpec{{512, 1024}});
  if (name == "mlp")
    return tg::jit(tg_graphs::mlp, {.name = name})
        .trace_ir(TensorSpec{{256, 512}, DType::BF16}, TensorSpec{{1024, 512}, DType::BF16},
                  TensorSpec{{1024}, DType::BF16});
  return std::nullopt;
}

}  // namespace tg::tools
