//===- tgc.cpp - tg's command-line compiler: dump stages, run graphs ------===//
//
//   tgc dump FILE.mlir|EXAMPLE [--stage=S,...] [--arch=sm_90a] [--no-fuse] [--no-fuse-reductions] [--out-dir=DIR]
//            [--sizes=NAME=N,...]
//   tgc run FILE.mlir --input a.npy ... --output out.npy ... [--device cpu|cuda] [--no-fuse] [--bench=N]
//   tgc examples
//   tgc cache stats|list|clear [--dir=DIR]
//
// `dump` prints, per stage, what tg makes of a graph: the traced IR, the IR after each pipeline
// step, the fusion remarks, the kernel plan, each kernel's CUDA C++ and its PTX. It needs no
// GPU. `run` executes a graph on .npy inputs (as iree-run-module does), on the CPU reference
// interpreter or the GPU, so any graph can be checked against numpy or PyTorch from outside C++.
//
//===----------------------------------------------------------------------===//
#include "tgc/Examples.h"
#include "tgc/Npy.h"

#include "tg/Compiler/Context.h"
#include "tg/Compiler/Driver.h"
#include "tg/Compiler/ParseModule.h"
#include "tg/Dialect/OpDescription.h"
#include "tg/Frontend/GpuProgram.h"
#include "tg/Frontend/InterpretedProgram.h"
#include "tg/Frontend/TensorImpl.h"
#include "tg/Runtime/DiskCache.h"
#include "tg/Support/Error.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>

using namespace mlir;

namespace {

constexpr const char* kUsage = R"(usage:
  tgc dump FILE.mlir|EXAMPLE [--stage=STAGE[,STAGE...]] [--arch=ARCH] [--no-fuse]
           [--no-fuse-reductions] [--no-fuse-attention] [--decode-attention]
           [--precision=auto|accurate|fast]
           [--sm-count=N] [--out-dir=DIR] [--sizes=NAME=N[,NAME=N...]]
      Prints each compilation stage. STAGE is one of: all (default), traced, canonicalize,
      decompose, fuse, select-matmul, assign-buffers, remarks, plan, cuda, ptx, cubin (binary,
      only when named), timing (each step's wall time, in ms). ARCH is an NVRTC
      target (default: this machine's GPU, or sm_90a without one). --out-dir also writes
      every stage (cubins included) as files into DIR. Needs no GPU. Reductions over trailing
      dims form row kernels with their producers and consumers; --no-fuse-reductions keeps
      each a kernel of its own (--fuse-reductions, the default, is accepted).
      softmax(modify(q @ k^T)) @ v with many query rows is one flash-attention kernel on
      sm_90a, with at most 16 query rows a head the split-key (flash-decoding) kernels where
      they take it; --no-fuse-attention keeps its kernels apart (--fuse-attention, the
      default, is accepted). --decode-attention makes the decode-sized attention they do not
      take one cluster kernel (off by default). A function with dynamic dims (tg.symbols,
      #tg.sizes types, as TG_DUMP writes NAME.symbolic.mlir) is compiled for its symbols'
      ranges (sizes as polynomials in the plan), or at the --sizes given for them.
  tgc run FILE.mlir --input A.npy [--input B.npy ...] --output OUT.npy [...]
          [--device cpu|cuda] [--no-fuse] [--no-fuse-reductions] [--no-fuse-attention]
          [--decode-attention] [--precision=...] [--bench=N] [--sizes=NAME=N,...]
      Runs the function in FILE.mlir on .npy inputs and writes .npy outputs
      (--no-fuse-reductions, --no-fuse-attention, --decode-attention: see dump).
  tgc examples
      Lists the built-in example graphs that `dump` accepts by name.
  tgc cache stats|list|clear [--dir=DIR]
      The on-disk kernel cache ($TG_CACHE_DIR, default ~/.cache/tg): entry count and size,
      each entry (kernel, arch, size, valid), or remove every entry.
  tgc --help | -h
      Prints this text.
)";

struct Args {
  std::string command, target;
  std::vector<std::string> stages, inputs, outputs;
  std::string arch, device = "auto", outDir, cacheDir;
  bool fuse = true;
  bool fuseReductions = true;
  bool fuseAttention = true;
  bool decodeAttention = false;
  int smCount = 0;
  int bench = 0;  // run: also time this many runs (median device time)
  /// --sizes batch=4,seq=128: a module with dynamic dims is compiled at these sizes.
  std::vector<std::pair<std::string, int64_t>> sizes;
  tg::Precision precision = tg::Precision::Auto;
};

[[noreturn]] void usageError(const std::string& message) {
  throw tg::Error(message + "\n" + kUsage);
}

std::string optionValue(const std::string& arg, const std::string& name, int& i, int argc,
                        char** argv) {
  if (arg.size() > name.size() && arg.compare(0, name.size() + 1, name + "=") == 0)
    return arg.substr(name.size() + 1);
  if (i + 1 >= argc) usageError(name + " needs a value");
  return argv[++i];
}

/// `text` as a decimal integer in [min, max], or a usage error naming `name`.
int parseCount(const std::string& name, const std::string& text, int min, int max) {
  int value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < min || value > max)
    usageError(name + " takes a count from " + std::to_string(min) + " to " +
               std::to_string(max) + ", got '" + text + "'");
  return value;
}

bool isHelp(const std::string& arg) { return arg == "-h" || arg == "--help"; }

Args parseArgs(int argc, char** argv) {
  Args a;
  if (argc < 2) usageError("no command given");
  a.command = argv[1];
  if (isHelp(a.command)) {
    a.command = "help";
    return a;
  }
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    auto is = [&](const char* name) {
      return arg == name || arg.rfind(std::string(name) + "=", 0) == 0;
    };
    if (is("--stage")) {
      std::stringstream ss(optionValue(arg, "--stage", i, argc, argv));
      for (std::string s; std::getline(ss, s, ',');) a.stages.push_back(s);
    } else if (is("--arch")) {
      a.arch = optionValue(arg, "--arch", i, argc, argv);
    } else if (is("--out-dir")) {
      a.outDir = optionValue(arg, "--out-dir", i, argc, argv);
    } else if (is("--dir")) {
      a.cacheDir = optionValue(arg, "--dir", i, argc, argv);
    } else if (is("--input")) {
      a.inputs.push_back(optionValue(arg, "--input", i, argc, argv));
    } else if (is("--output")) {
      a.outputs.push_back(optionValue(arg, "--output", i, argc, argv));
    } else if (is("--device")) {
      a.device = optionValue(arg, "--device", i, argc, argv);
      if (a.device != "cpu" && a.device != "cuda")
        usageError("--device must be cpu or cuda, got '" + a.device + "'");
    } else if (is("--precision")) {
      std::string p = optionValue(arg, "--precision", i, argc, argv);
      if (p == "auto") a.precision = tg::Precision::Auto;
      else if (p == "accurate") a.precision = tg::Precision::Accurate;
      else if (p == "fast") a.precision = tg::Precision::Fast;
      else usageError("--precision must be auto, accurate or fast, got '" + p + "'");
    } else if (is("--sm-count")) {
      a.smCount = parseCount("--sm-count", optionValue(arg, "--sm-count", i, argc, argv), 1, 100000);
    } else if (is("--sizes")) {
      std::stringstream ss(optionValue(arg, "--sizes", i, argc, argv));
      for (std::string item; std::getline(ss, item, ',');) {
        const size_t eq = item.find('=');
        int64_t size = 0;
        const char* end = item.data() + item.size();
        auto [ptr, ec] = eq == std::string::npos ? std::from_chars_result{end, std::errc::invalid_argument}
                                                 : std::from_chars(item.data() + eq + 1, end, size);
        if (eq == 0 || eq == std::string::npos || ec != std::errc() || ptr != end || size < 1)
          usageError("--sizes takes NAME=N[,NAME=N...] with N >= 1, got '" + item + "'");
        a.sizes.push_back({item.substr(0, eq), size});
      }
    } else if (is("--bench")) {
      a.bench = parseCount("--bench", optionValue(arg, "--bench", i, argc, argv), 1, 100000);
    } else if (arg == "--no-fuse") {
      a.fuse = false;
    } else if (arg == "--fuse-reductions") {
      a.fuseReductions = true;
    } else if (arg == "--no-fuse-reductions") {
      a.fuseReductions = false;
    } else if (arg == "--fuse-attention") {
      a.fuseAttention = true;
    } else if (arg == "--no-fuse-attention") {
      a.fuseAttention = false;
    } else if (arg == "--decode-attention") {
      a.fuseAttention = a.decodeAttention = true;
    } else if (isHelp(arg)) {
      a.command = "help";
      return a;
    } else if (!arg.empty() && arg[0] == '-') {
      usageError("unknown option '" + arg + "'");
    } else if (a.target.empty()) {
      a.target = arg;
    } else {
      usageError("unexpected argument '" + arg + "'");
    }
  }
  return a;
}

/// The most bytes of IR tgc reads from one file: a pipe or a device (`tgc dump /dev/zero`)
/// has no size to check first, and MLIR's parser needs the whole text in memory.
constexpr size_t kMaxIrBytes = size_t(1) << 30;

/// Reads `path` whole, up to kMaxIrBytes, growing the text as bytes arrive.
std::string readIrFile(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file)
    throw tg::Error("cannot read '" + path + "': " + std::strerror(errno) +
                    " (and it is not a built-in example: see `tgc examples`)");
  std::string text;
  char chunk[1 << 16];
  while (size_t got = std::fread(chunk, 1, sizeof chunk, file.get())) {
    if (text.size() + got > kMaxIrBytes)
      throw tg::Error("'" + path + "' holds more than 1 GiB of IR; tgc reads at most that");
    text.append(chunk, got);
  }
  if (std::ferror(file.get()))
    throw tg::Error("cannot read '" + path + "': " + std::strerror(errno));
  return text;
}

/// Parses FILE.mlir, or `exampleText` (the traced IR of a built-in example) when given, into
/// the shared context, verifies it and checks that it is one tg function
/// (compiler::parseTgModuleAtSizes: a module with dynamic dims at `sizes`). The caller holds
/// compileMutex().
OwningOpRef<ModuleOp> loadModule(const std::string& target,
                                 const std::optional<std::string>& exampleText,
                                 tg::compiler::DiagnosticCollector& diags,
                                 const std::vector<std::pair<std::string, int64_t>>& sizes) {
  MLIRContext& context = tg::compiler::sharedContext();
  if (exampleText) {
    OwningOpRef<ModuleOp> m = tg::compiler::parseTgModule(*exampleText, target, context);
    if (!m) throw tg::Error("internal error: example '" + target + "' does not parse:\n" + diags.text());
    return m;
  }
  OwningOpRef<ModuleOp> m = tg::compiler::parseTgModuleAtSizes(readIrFile(target), target, context, sizes);
  if (!m) throw tg::Error("'" + target + "' is not a valid tg function:\n" + diags.text());
  return m;
}

tg::compiler::PipelineOptions pipelineOptions(const Args& a, tg::rt::Gpu* gpu) {
  tg::compiler::PipelineOptions p =
      tg::compiler::pipelineOptionsFor(gpu ? &gpu->info() : nullptr, a.fuse, a.precision);
  p.fuseReductions = a.fuseReductions;
  p.fuseAttention = a.fuseAttention;
  p.decodeAttention = a.decodeAttention;
  if (!a.arch.empty()) p.codegen.arch = a.arch;
  if (a.smCount > 0) p.codegen.smCount = a.smCount;
  return p;
}

int dump(const Args& a) {
  if (a.target.empty()) usageError("dump needs a FILE.mlir or an example name");
  std::set<std::string> wanted(a.stages.begin(), a.stages.end());
  if (wanted.empty()) wanted.insert("all");
  const auto& known = tg::compiler::artifactStages();
  for (const std::string& s : wanted)
    if (s != "all" && s != "timing" && std::find(known.begin(), known.end(), s) == known.end())
      usageError("unknown stage '" + s + "'");
  bool all = wanted.count("all") > 0;
  std::optional<std::string> example = tg::tools::exampleIr(a.target);  // traces: not locked
  std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
  tg::compiler::DiagnosticCollector diags(tg::compiler::sharedContext());
  OwningOpRef<ModuleOp> module = loadModule(a.target, example, diags, a.sizes);
  tg::rt::Gpu* gpu = a.arch.empty() ? tg::rt::Gpu::get() : nullptr;
  tg::compiler::ArtifactSink files;
  tg::compiler::DumpFailures unwritten;
  if (!a.outDir.empty()) files = tg::compiler::directorySink(a.outDir, "tgc", &unwritten);
  auto sink = [&](const tg::compiler::Artifact& art) {
    if (files) files(art);
    if (!wanted.count(art.stage) && (!all || art.stage == "cubin")) return;  // binary
    std::cout << "// ===== " << art.stage << ": " << art.fileName << " =====\n" << art.text;
    if (!art.text.empty() && art.text.back() != '\n') std::cout << "\n";
  };
  bool wantPtx = all || wanted.count("ptx") || wanted.count("cubin") || !a.outDir.empty();
  const tg::compiler::PipelineOptions options = pipelineOptions(a, gpu);
  // Only stages the fused reference runs: no code generation (what it cannot write yet, such
  // as row kernels, still dumps).
  tg::compiler::Target target = tg::compiler::Target::Cuda;
  std::set<std::string> beforeCodegen = {"traced"};
  for (const tg::compiler::PipelineStage& st :
       tg::compiler::pipelineStages(options, tg::compiler::Target::FusedReference))
    beforeCodegen.insert(st.name);
  if (!all && a.outDir.empty() &&
      std::includes(beforeCodegen.begin(), beforeCodegen.end(), wanted.begin(), wanted.end()))
    target = tg::compiler::Target::FusedReference;
  const tg::rt::Plan plan = tg::compiler::compile(*module, options, target, sink, wantPtx);
  if (all || wanted.count("timing")) {
    // Each step's wall time in this process, as a jit's report gives them (printing the dumps
    // is not counted).
    std::cout << "// ===== timing =====\n";
    double total = 0;
    for (const auto& [step, ms] : plan.compileStagesMs) {
      std::cout << step << " " << std::fixed << std::setprecision(2) << ms << " ms\n";
      total += ms;
    }
    std::cout << "total " << std::fixed << std::setprecision(2) << total << " ms\n";
  }
  if (unwritten.failed)
    throw tg::Error("cannot write " + std::to_string(unwritten.failed) + " of " +
                    std::to_string(unwritten.files) + " dump file(s) to " + a.outDir + ": " +
                    unwritten.first);
  return 0;
}

/// Prints the median device time of `count` runs queued back to back, each between its own
/// events (after 3 warm-up runs), as the benchmarks time them.
void benchmark(tg::detail::Program& program, const std::vector<tg::Tensor>& in, int count,
               tg::rt::Gpu& gpu) {
  for (int i = 0; i < 3; ++i) program.run(in);
  std::vector<void*> start(count), end(count);
  for (int i = 0; i < count; ++i) start[i] = gpu.createEvent(), end[i] = gpu.createEvent();
  for (int i = 0; i < count; ++i) {
    gpu.recordEvent(start[i]);
    program.run(in);
    gpu.recordEvent(end[i]);
  }
  std::vector<double> us;
  for (int i = 0; i < count; ++i) {
    us.push_back(1000.0 * gpu.elapsedMs(start[i], end[i]));
    gpu.destroyEvent(start[i]);
    gpu.destroyEvent(end[i]);
  }
  std::sort(us.begin(), us.end());
  std::fprintf(stderr, "tgc: %d runs: median %.2f us, min %.2f us\n", count, us[us.size() / 2], us[0]);
}

int run(const Args& a) {
  if (a.target.empty()) usageError("run needs a FILE.mlir");
  if (a.outputs.empty()) usageError("run needs at least one --output");
  std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
  tg::compiler::DiagnosticCollector diags(tg::compiler::sharedContext());
  OwningOpRef<ModuleOp> module = loadModule(a.target, std::nullopt, diags, a.sizes);
  func::FuncOp func = *module->getOps<func::FuncOp>().begin();

  // Inputs: count and types must match the function's signature.
  FunctionType type = func.getFunctionType();
  if (a.inputs.size() != type.getNumInputs())
    throw tg::Error("@" + func.getSymName().str() + " takes " + std::to_string(type.getNumInputs()) +
                    " input(s), got " + std::to_string(a.inputs.size()) + " --input file(s)");
  if (a.outputs.size() != type.getNumResults())
    throw tg::Error("@" + func.getSymName().str() + " returns " + std::to_string(type.getNumResults()) +
                    " result(s), got " + std::to_string(a.outputs.size()) + " --output file(s)");
  std::vector<tg::ref::HostTensor> inputs;
  for (size_t i = 0; i < a.inputs.size(); ++i) {
    tg::ref::HostTensor t = tg::tools::readNpy(a.inputs[i]);
    std::optional<tg::graph::TensorType> expected = tg::ir::typeOf(type.getInput(i));
    tg::graph::TensorType got{t.dtype(), t.shape()};
    if (!expected || *expected != got)
      throw tg::Error("input " + std::to_string(i) + " (" + a.inputs[i] + ") must be " +
                      (expected ? expected->str() : std::string("a tg tensor")) + ", got " +
                      got.str());
    inputs.push_back(std::move(t));
  }

  tg::rt::Gpu* gpu = tg::rt::Gpu::get();
  bool onGpu = a.device == "cuda" || (a.device == "auto" && gpu);
  if (onGpu && !gpu)
    throw tg::Error("--device cuda: no CUDA device is available (" +
                    tg::rt::Gpu::unavailableReason() + ")");
  if (a.bench > 0 && !onGpu)
    usageError("--bench times the kernels on the GPU; it needs --device cuda (or a GPU)");
  // The programs the jit runs (frontend/lib/Backend): on the cpu, the reference interpreter
  // on the fused IR (tg.fusion regions and all); on cuda, the plan.
  const std::string name = func.getSymName().str();
  std::unique_ptr<tg::detail::Program> program;
  if (!onGpu) {
    tg::compiler::compile(*module, pipelineOptions(a, nullptr), tg::compiler::Target::FusedReference);
    program = tg::detail::makeInterpretedProgram(std::move(module), "");
  } else {
    program = tg::detail::makeGpuProgram(tg::compiler::compile(*module, pipelineOptions(a, gpu)),
                                         *gpu, "", /*cudaGraphs=*/false);
  }
  std::vector<tg::Tensor> args;
  for (tg::ref::HostTensor& t : inputs) {
    tg::Tensor x = tg::detail::wrapHost(std::move(t));
    args.push_back(onGpu ? x.to(tg::Device::CUDA) : x);
  }
  const std::vector<tg::Tensor> out = program->run(args);
  if (a.bench > 0) benchmark(*program, args, a.bench, *gpu);
  std::vector<tg::ref::HostTensor> results;
  for (const tg::Tensor& t : out) results.push_back(tg::detail::hostOf(t.to(tg::Device::CPU)));
  for (size_t i = 0; i < results.size(); ++i) tg::tools::writeNpy(a.outputs[i], results[i]);
  std::fprintf(stderr, "tgc: ran @%s on %s: %zu input(s), %zu output(s)\n",
               name.c_str(), onGpu ? "cuda" : "the cpu reference", args.size(), results.size());
  return 0;
}

int cache(const Args& a) {
  std::string dir = a.cacheDir.empty() ? tg::rt::DiskCache::defaultDir() : a.cacheDir;
  if (dir.empty()) throw tg::Error("no cache directory: set TG_CACHE_DIR or HOME, or pass --dir");
  tg::rt::DiskCache disk(dir);
  std::vector<tg::rt::DiskEntryInfo> entries = disk.list();
  if (a.target == "stats") {
    size_t valid = 0;
    uint64_t bytes = 0;
    for (const auto& e : entries) {
      valid += e.valid;
      bytes += e.bytes;
    }
    std::printf("kernel cache %s: %zu entries (%zu valid, %zu corrupt or foreign), %llu bytes\n",
                dir.c_str(), entries.size(), valid, entries.size() - valid,
                static_cast<unsigned long long>(bytes));
  } else if (a.target == "list") {
    for (const auto& e : entries)
      std::printf("%s  %-8s %10llu bytes  %s  %s%s\n", e.valid ? "ok     " : "INVALID",
                  e.arch.c_str(), static_cast<unsigned long long>(e.bytes),
                  e.kernelName.c_str(), e.file.c_str(),
                  e.valid ? "" : (" (" + e.problem + ")").c_str());
  } else if (a.target == "clear") {
    std::printf("removed %zu file(s) from %s\n", disk.clear(), dir.c_str());
    // What could not be removed was reported on stderr, one line each.
    if (size_t left = disk.problems().size())
      throw tg::Error(std::to_string(left) + " file(s) in " + dir + " could not be removed");
  } else {
    usageError("cache needs one of: stats, list, clear");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Every failure ends here as one message and exit status 1: tgc never aborts on bad input.
  try {
    Args a = parseArgs(argc, argv);
    if (a.command == "help") {
      std::cout << kUsage;
      return 0;
    }
    if (a.command == "dump") return dump(a);
    if (a.command == "run") return run(a);
    if (a.command == "cache") return cache(a);
    if (a.command == "examples") {
      for (const std::string& name : tg::tools::exampleNames()) std::cout << name << "\n";
      return 0;
    }
    usageError("unknown command '" + a.command + "'");
  } catch (const tg::Error& e) {
    std::cerr << "tgc: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "tgc: error: out of host memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "tgc: error: " << e.what() << "\n";
    return 1;
  } catch (...) {
    std::cerr << "tgc: error: unknown exception\n";
    return 1;
  }
}
