//===- GraphCache.cpp - The graphs one jit function compiled --------------===//
#include "tg/Frontend/GraphCache.h"

#include "tg/Frontend/SymbolicTrace.h"

#include <chrono>

namespace tg::detail {

CompiledGraph& GraphCache::get(const Trace& trace, Device device) {
  return find(std::string(device_name(device)) + "|" + structuralKey(trace), trace, [&](const std::string& graphName, CompiledGraph& graph) {
    return compileTrace(trace, options_, device, graphName, &graph.info.compileStagesMs);
  });
}

CompiledGraph& GraphCache::getSymbolic(const SymbolicTrace& symbolic, Device device, const std::string& variant) {
  const std::string key = std::string(device_name(device)) + "|sizes " + variant + "|" + structuralKey(symbolic.trace);
  return find(key, symbolic.trace, [&](const std::string& graphName, CompiledGraph& graph) {
    return compileSymbolicTrace(symbolic, options_, device, graphName, &graph.info.compileStagesMs);
  });
}

CompiledGraph& GraphCache::find(const std::string& key, const Trace& trace,
                                const std::function<std::unique_ptr<Program>(const std::string&, CompiledGraph&)>& compile) {
  auto found = graphs_.find(key);
  if (found != graphs_.end()) {
    ++hits_;
    return *found->second;
  }
  auto graph = std::make_unique<CompiledGraph>();
  const int index = static_cast<int>(graphs_.size());
  const std::string graphName = index == 0 ? name_ : name_ + "_g" + std::to_string(index);
  const auto t0 = std::chrono::steady_clock::now();
  graph->program = compile(graphName, *graph);  // may throw
  graph->info.compileMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  graph->info.index = index;
  for (const TraceNode& n : trace.nodes)
    if (n.kind != graph::OpKind::Input) ++graph->info.ops;
  graph->info.kernels = graph->program->kernels();
  ++misses_;
  return *graphs_.emplace(key, std::move(graph)).first->second;
}

}  // namespace tg::detail
