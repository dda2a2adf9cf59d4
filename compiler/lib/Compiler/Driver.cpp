//===- Driver.cpp - Pipeline + diagnostics + artifacts --------------------===//
#include "tg/Compiler/Driver.h"

#include "tg/Compiler/Context.h"
#include "tg/Dialect/EntryFunction.h"
#include "tg/Runtime/KernelCache.h"
#include "tg/Runtime/Nvrtc.h"
#include "tg/Support/Error.h"
#include "tg/Support/FileIO.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <set>

using namespace mlir;

namespace tg::compiler {

const std::vector<std::string>& artifactStages() {
  // The traced module, the pipeline's stages (its table names them), then what code
  // generation makes.
  static const std::vector<std::string> stages = [] {
    std::vector<std::string> s = {"traced"};
    for (const PipelineStage& stage : pipelineStages(PipelineOptions{})) s.push_back(stage.name);
    for (const char* after : {"remarks", "plan", "cuda", "ptx", "cubin"}) s.push_back(after);
    return s;
  }();
  return stages;
}

std::string printModule(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  flags.elideLargeElementsAttrs(16);
  module.print(os, flags);
  return text;
}

rt::Plan compile(ModuleOp module, const PipelineOptions& options, Target target,
                 const ArtifactSink& sink, bool wantPtx) {
  MLIRContext* context = module.getContext();
  // Collect diagnostics (errors for the exception, remarks for the dump).
  std::string errors, remarks;
  SourceLoc firstError;
  ScopedDiagnosticHandler handler(context, [&](Diagnostic& diag) {
    std::string line;
    SourceLoc where = ir::sourceLocOf(diag.getLocation());
    if (where.known()) line = where.str() + ": ";
    line += diag.str() + "\n";
    if (diag.getSeverity() == DiagnosticSeverity::Remark) {
      remarks += "remark: " + line;
    } else {
      if (diag.getSeverity() == DiagnosticSeverity::Error && !firstError.known())
        firstError = where;
      errors += line;
    }
    return success();
  });

  std::vector<std::pair<std::string, double>> times;  // since the previous mark
  auto mark = std::chrono::steady_clock::now();
  auto timed = [&](const std::string& what) {
    const auto now = std::chrono::steady_clock::now();
    times.emplace_back(what, std::chrono::duration<double, std::milli>(now - mark).count());
    mark = now;
  };
  if (failed(verify(module)))
    throw Error("the graph does not verify:\n" + errors, firstError);
  if (failed(ir::entryFunction(module)))
    throw Error("the module is not one tg function:\n" + errors, firstError);
  timed("verify");
  int step = 0;
  if (sink) sink({"traced", std::to_string(step++) + "-traced.mlir", printModule(module)});
  FailureOr<rt::Plan> plan = compileToPlan(module, options, target, [&](const std::string& stage, ModuleOp m) {
    timed(stage);
    if (sink) sink({stage, std::to_string(step++) + "-" + stage + ".mlir", printModule(m)});
    mark = std::chrono::steady_clock::now();  // (dumps are not the stage's time)
  });
  if (failed(plan)) throw Error("compilation failed:\n" + errors, firstError);
  if (target == Target::Cuda) timed("codegen");
  plan->compileStagesMs = std::move(times);
  if (sink && target == Target::Cuda) {
    sink({"remarks", "remarks.txt", remarks.empty() ? "(every edge was fused)\n" : remarks});
    sink({"plan", "plan.txt", plan->str()});
    for (const rt::KernelSource& k : plan->kernels) sink({"cuda", k.name + ".cu", k.source});
    if (wantPtx)
      for (const rt::KernelSource& k : plan->kernels) {
        // The options of the kernels that run (KernelCache), so the PTX shown is theirs.
        rt::NvrtcResult r = rt::compileCuda(k.source, k.name + ".cu", options.codegen.arch,
                                            rt::defaultNvrtcOptions());
        sink({"ptx", k.name + ".ptx", r.ptx});
        if (!r.cubin.empty()) sink({"cubin", k.name + ".cubin", r.cubin});
      }
  }
  return std::move(*plan);
}

namespace {

/// Reports that dump files cannot be written to `dir`: once per directory and process, so
/// that a program under TG_DUMP gets one line, not one per file or per compiled function.
void reportDumpFailureOnce(const std::string& dir, const std::string& failure) {
  static std::mutex mutex;
  static std::set<std::string> reported;
  std::lock_guard<std::mutex> lock(mutex);
  if (!reported.insert(dir).second) return;
  std::fprintf(stderr, "tg: cannot write dump files to %s: %s (further failures there are not "
                       "reported)\n",
               dir.c_str(), failure.c_str());
}

}  // namespace

ArtifactSink directorySink(const std::string& dir, const std::string& prefix,
                           DumpFailures* failures) {
  return [dir, prefix, failures](const Artifact& a) {
    std::string failure;
    try {
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      std::string path = (std::filesystem::path(dir) / (prefix + "." + a.fileName)).string();
      if (ec)
        failure = "cannot create the directory " + dir + ": " + ec.message();
      else if (WriteFailure failed = writeFileAtomically(path, {a.text}, TargetPolicy::OwnedName))
        failure = failed.message;
    } catch (const std::exception& e) {  // std::bad_alloc: a dump must not end the program
      failure = e.what();
    }
    if (failures) {
      ++failures->files;
      if (!failure.empty() && failures->failed++ == 0) failures->first = failure;
    } else if (!failure.empty()) {
      reportDumpFailureOnce(dir, failure);
    }
  };
}

}  // namespace tg::compiler
