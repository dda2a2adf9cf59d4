//===- CompileTrace.cpp - From a Trace to a runnable Program --------------===//
//
// Imports the trace, compiles it for the device's target (compiler::compile) and wraps the
// result in that backend's program: a Plan for the GPU (GpuProgram.h), the canonicalized
// graph for the reference interpreter (InterpretedProgram.h). TG_DUMP=dir writes every stage
// of every compilation there.
//
//===----------------------------------------------------------------------===//
#include "tg/Compiler/Context.h"
#include "tg/Compiler/Driver.h"
#include "tg/Frontend/GpuProgram.h"
#include "tg/Frontend/InterpretedProgram.h"
#include "tg/Frontend/Program.h"
#include "tg/Frontend/SymbolicTrace.h"
#include "tg/Frontend/TraceImporter.h"
#include "tg/Runtime/Gpu.h"

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string_view>

using namespace mlir;

namespace tg::detail {

void describeSymbols(std::span<const std::string> names, std::span<const int64_t> min, std::span<const int64_t> max,
                     std::span<const int64_t> last, JitReport::Graph& info) {
  for (size_t i = 0; i < names.size() && i < min.size() && i < max.size(); ++i) {
    info.symbols += (i ? ", " : "") + names[i] +
                    (min[i] == max[i] ? " = " + std::to_string(min[i])
                                      : " in [" + std::to_string(min[i]) + ", " + std::to_string(max[i]) + "]");
    if (i < last.size()) info.lastSizes += (i ? ", " : "") + names[i] + " = " + std::to_string(last[i]);
  }
}

std::string importedIr(const Trace& trace, const std::string& name) {
  std::lock_guard<std::mutex> lock(compiler::compileMutex());
  MLIRContext& context = compiler::sharedContext();
  OwningOpRef<ModuleOp> module = importTrace(trace, context, name);
  return compiler::printModule(*module);
}

std::string importedSymbolicIr(const SymbolicTrace& trace, const std::string& name, std::string& whyNot) {
  std::lock_guard<std::mutex> lock(compiler::compileMutex());
  MLIRContext& context = compiler::sharedContext();
  OwningOpRef<ModuleOp> module = importSymbolicTrace(trace, context, name, whyNot);
  if (!module) return {};
  std::string text = compiler::printModule(*module);
  if (const char* dir = std::getenv("TG_DUMP"); dir && *dir)  // beside the traced graphs
    compiler::directorySink(dir, name)({"symbolic", "symbolic.mlir", text});
  return text;
}

namespace {

double msSince(std::chrono::steady_clock::time_point& mark) {
  const auto now = std::chrono::steady_clock::now();
  const double ms = std::chrono::duration<double, std::milli>(now - mark).count();
  mark = now;
  return ms;
}

/// The GPU a function on `device` compiles for (null on the CPU); a tg::Error when it runs on
/// cuda and there is none.
rt::Gpu* gpuFor(Device device, const std::string& name) {
  rt::Gpu* gpu = device == Device::CUDA ? rt::Gpu::get() : nullptr;
  if (device == Device::CUDA && !gpu)
    throw Error("jit: '" + name + "' runs on cuda but no CUDA device is available (" + rt::Gpu::unavailableReason() +
                ")");
  return gpu;
}

/// JitOptions -> PipelineOptions: the only translation (the target comes from the device).
compiler::PipelineOptions pipelineFor(const JitOptions& options, const rt::Gpu* gpu) {
  compiler::PipelineOptions pipeline =
      compiler::pipelineOptionsFor(gpu ? &gpu->info() : nullptr, options.fuse, options.precision);
  pipeline.fuseReductions = options.fuse_reductions;
  pipeline.fuseAttention = options.fuse_attention;
  pipeline.decodeAttention = options.decode_attention;
  return pipeline;
}

/// TG_DUMP's sink for the artifacts of `name` (empty without TG_DUMP).
compiler::ArtifactSink dumpSink(const std::string& name) {
  if (const char* dir = std::getenv("TG_DUMP"); dir && *dir) return compiler::directorySink(dir, name);
  return {};
}

/// The GPU program of `plan`, with its compile steps and its kernels' loading timed into
/// `times` (JitOptions::profile or TG_PROFILE=1 time every launch).
std::unique_ptr<Program> gpuProgram(rt::Plan plan, rt::Gpu& gpu, std::string ir, const JitOptions& options,
                                    std::vector<std::pair<std::string, double>>& times,
                                    std::chrono::steady_clock::time_point& mark) {
  times.insert(times.end(), plan.compileStagesMs.begin(), plan.compileStagesMs.end());
  msSince(mark);
  const char* profileEnv = std::getenv("TG_PROFILE");
  const bool profile = options.profile || (profileEnv && std::string_view(profileEnv) == "1");
  std::unique_ptr<Program> program = makeGpuProgram(std::move(plan), gpu, std::move(ir), options.cuda_graphs, profile);
  times.emplace_back("kernels", msSince(mark));
  return program;
}

}  // namespace

std::unique_ptr<Program> compileSymbolicTrace(const SymbolicTrace& trace, const JitOptions& options, Device device,
                                              const std::string& name,
                                              std::vector<std::pair<std::string, double>>* stagesMs) {
  std::lock_guard<std::mutex> lock(compiler::compileMutex());
  auto mark = std::chrono::steady_clock::now();
  std::vector<std::pair<std::string, double>> times;
  MLIRContext& context = compiler::sharedContext();
  std::string whyNot;
  OwningOpRef<ModuleOp> module = importSymbolicTrace(trace, context, name, whyNot);
  if (!module) throw Error(whyNot);
  std::string imported = compiler::printModule(*module);
  times.emplace_back("import", msSince(mark));
  rt::Gpu* gpu = gpuFor(device, name);
  const compiler::ArtifactSink sink = dumpSink(name + ".sizes");
  const compiler::PipelineOptions pipeline = pipelineFor(options, gpu);
  if (gpu) {
    rt::Plan plan = compiler::compile(*module, pipeline, compiler::Target::Cuda, sink, /*wantPtx=*/static_cast<bool>(sink));
    std::unique_ptr<Program> program = gpuProgram(std::move(plan), *gpu, std::move(imported), options, times, mark);
    if (stagesMs) *stagesMs = std::move(times);
    return program;
  }
  // CPU: the reference interpreter runs the canonicalized symbolic IR at each call's sizes.
  rt::Plan none = compiler::compile(*module, pipeline, compiler::Target::Reference, sink);
  times.insert(times.end(), none.compileStagesMs.begin(), none.compileStagesMs.end());
  if (stagesMs) *stagesMs = std::move(times);
  return makeInterpretedProgram(std::move(module), std::move(imported));
}

std::unique_ptr<Program> compileTrace(const Trace& trace, const JitOptions& options,
                                      Device device, const std::string& name,
                                      std::vector<std::pair<std::string, double>>* stagesMs) {
  std::lock_guard<std::mutex> lock(compiler::compileMutex());
  auto mark = std::chrono::steady_clock::now();
  std::vector<std::pair<std::string, double>> times;
  MLIRContext& context = compiler::sharedContext();
  OwningOpRef<ModuleOp> module = importTrace(trace, context, name);
  std::string traced = compiler::printModule(*module);
  times.emplace_back("import", msSince(mark));
  rt::Gpu* gpu = gpuFor(device, name);
  const compiler::ArtifactSink sink = dumpSink(name);
  const compiler::PipelineOptions pipeline = pipelineFor(options, gpu);
  if (device == Device::CUDA || sink) {
    // A CPU function under TG_DUMP: its kernels are dumped as the GPU would compile them.
    OwningOpRef<ModuleOp> copy = module->clone();
    rt::Plan plan = compiler::compile(*copy, pipeline, compiler::Target::Cuda, sink,
                                      /*wantPtx=*/static_cast<bool>(sink));
    if (gpu) {
      std::unique_ptr<Program> program = gpuProgram(std::move(plan), *gpu, std::move(traced), options, times, mark);
      if (stagesMs) *stagesMs = std::move(times);
      return program;
    }
    msSince(mark);  // (a CPU function's dump is not its compile time)
  }
  // CPU: the reference interpreter runs the canonicalized graph.
  rt::Plan none = compiler::compile(*module, pipeline, compiler::Target::Reference);
  times.insert(times.end(), none.compileStagesMs.begin(), none.compileStagesMs.end());
  if (stagesMs) *stagesMs = std::move(times);
  return makeInterpretedProgram(std::move(module), std::move(traced));
}

}  // namespace tg::detail
