//===- GraphCache.cpp - The graphs one jit function compiled --------------===//
#include "tg/Frontend/GraphCache.h"

#include <chrono>

namespace tg::detail {

CompiledGraph& GraphCache::get(const Trace& trace, Device device) {
  const std::string key = std::string(device_name(device)) + "|" + structuralKey(trace);
  auto found = graphs_.find(key);
  if (found != graphs_.end()) {
    ++hits_;
    return *found->second;
  }
  auto graph = std::make_unique<CompiledGraph>();
  const int index = static_cast<int>(graphs_.size());
  const std::string graphName = index == 0 ? name_ : name_ + "_g" + std::to_string(index);
  const auto t0 = std::chrono::steady_clock::now();
  graph->program = compileTrace(trace, options_, device, graphName, &graph->info.compileStagesMs);  // may throw
  graph->info.compileMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  graph->info.index = index;
  for (const TraceNode& n : trace.nodes)
    if (n.kind != graph::OpKind::Input) ++graph->info.ops;
  graph->info.kernels = graph->program->kernels();
  ++misses_;
  return *graphs_.emplace(key, std::move(graph)).first->second;
}

}  // namespace tg::detail
