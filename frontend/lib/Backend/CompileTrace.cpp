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
  rt::Gpu* gpu = device == Device::CUDA ? rt::Gpu::get() : nullptr;
  if (device == Device::CUDA && !gpu)
    throw Error("jit: '" + name + "' runs on cuda but no CUDA device is available (" + rt::Gpu::unavailableReason() +
                ")");
  compiler::ArtifactSink sink;
  if (const char* dir = std::getenv("TG_DUMP"); dir && *dir) sink = compiler::directorySink(dir, name + ".sizes");
  compiler::PipelineOptions pipeline =
      compiler::pipelineOptionsFor(gpu ? &gpu->info() : nullptr, options.fuse, options.precision);
  pipeline.fuseReductions = options.fuse_reductions;
  pipeline.fuseAttention = options.fuse_attention;
  pipeline.decodeAttention = options.decode_attention;
  if (device == Device::CUDA) {
    rt::Plan plan = compiler::compile(*module, pipeline, compiler::Target::Cuda, sink, /*wantPtx=*/static_cast<bool>(sink));
    times.insert(times.end(), plan.compileStagesMs.begin(), plan.compileStagesMs.end());
    msSince(mark);
    const char* profileEnv = std::getenv("TG_PROFILE");
    const bool profile = options.profile || (profileEnv && std::string_view(profileEnv) == "1");
    std::unique_ptr<Program> program = makeGpuProgram(std::move(plan), *gpu, std::move(imported), options.cuda_graphs, profile);
    times.emplace_back("kernels", msSince(mark));
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
  rt::Gpu* gpu = device == Device::CUDA ? rt::Gpu::get() : nullptr;
  if (device == Device::CUDA && !gpu)
    throw Error("jit: '" + name + "' runs on cuda but no CUDA device is available (" +
                rt::Gpu::unavailableReason() + ")");

  compiler::ArtifactSink sink;
  if (const char* dir = std::getenv("TG_DUMP"); dir && *dir)
    sink = compiler::directorySink(dir, name);

  // JitOptions -> PipelineOptions: the only translation (the target comes from the device).
  compiler::PipelineOptions pipeline =
      compiler::pipelineOptionsFor(gpu ? &gpu->info() : nullptr, options.fuse, options.precision);
  pipeline.fuseReductions = options.fuse_reductions;
  pipeline.fuseAttention = options.fuse_attention;
  pipeline.decodeAttention = options.decode_attention;
  if (device == Device::CUDA || sink) {
    // A CPU function under TG_DUMP: its kernels are dumped as the GPU would compile them.
    OwningOpRef<ModuleOp> copy = module->clone();
    rt::Plan plan = compiler::compile(*copy, pipeline, compiler::Target::Cuda, sink,
                                      /*wantPtx=*/static_cast<bool>(sink));
    if (device == Device::CUDA) {
      times.insert(times.end(), plan.compileStagesMs.begin(), plan.compileStagesMs.end());
      msSince(mark);
      const char* profileEnv = std::getenv("TG_PROFILE");
      const bool profile = options.profile || (profileEnv && std::string_view(profileEnv) == "1");
      std::unique_ptr<Program> program =
          makeGpuProgram(std::move(plan), *gpu, std::move(traced), options.cuda_graphs, profile);
      times.emplace_back("kernels", msSince(mark));
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
