//===- ProgramCheck.cpp - Run one random program every way and compare ----===//
#include "ProgramCheck.h"

#include "FusedReference.h"

#include "tg/Compiler/Context.h"
#include "tg/Compiler/Driver.h"
#include "tg/Frontend/TraceImporter.h"
#include "tg/Frontend/Tracer.h"
#include "tg/Reference/Interpreter.h"
#include "tg/Runtime/KernelCache.h"
#include "tg/Runtime/Nvrtc.h"
#include "tg/Support/Half.h"
#include "tg/Transforms/Pipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <mutex>
#include <regex>
#include <sstream>
#include <unordered_set>

namespace tgrandom {

using tg::DType;
using tg::Tensor;
using tg::ref::HostTensor;

const char* outcomeName(OutcomeKind kind) {
  switch (kind) {
    case OutcomeKind::Ok: return "ok";
    case OutcomeKind::Mismatch: return "mismatch";
    case OutcomeKind::CompileError: return "compile error";
    case OutcomeKind::Crash: return "crash";
    case OutcomeKind::Invalid: return "invalid program";
  }
  return "?";
}

const char* mutationName(int kind) {
  static const char* names[Outcome::kMutations] = {"neighbour", "scale", "one element"};
  return names[kind];
}

namespace {

/// A failed check, thrown to the top of checkProgram.
struct Failure {
  OutcomeKind kind;
  std::string message;
};

[[noreturn]] void fail(OutcomeKind kind, const std::string& message) { throw Failure{kind, message}; }

/// Whether a tg::Error says compilation (the pipeline, code generation or NVRTC) failed.
bool isCompileError(const std::string& what) {
  return what.find("compil") != std::string::npos || what.find("does not verify") != std::string::npos ||
         what.find("NVRTC") != std::string::npos;
}

/// Runs `fn`; an exception becomes a Failure of `kind` (compile errors recognised by their
/// message when `classify`), prefixed with `what`.
template <typename Fn>
auto guarded(const std::string& what, OutcomeKind kind, bool classify, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const Failure&) {
    throw;
  } catch (const std::exception& e) {
    std::string m = e.what();
    OutcomeKind k = kind;
    if (classify) {
      if (m.find("random program: a value exceeds its bound") != std::string::npos)
        k = OutcomeKind::Mismatch;  // a tg::check of the program failed
      else if (isCompileError(m))
        k = OutcomeKind::CompileError;
    }
    fail(k, what + ": " + m);
  }
}

//===----------------------------------------------------------------------===//
// Comparisons
//===----------------------------------------------------------------------===//

int mantissaBits(DType d) { return d == DType::F32 ? 24 : d == DType::F16 ? 11 : 8; }

/// One unit in the last place of `d` at magnitude `v` (subnormals included).
double ulpOf(DType d, double v) {
  const int minExp = d == DType::F16 ? -14 : -126;
  const int e = v == 0 || !std::isfinite(v) ? minExp : std::max(std::ilogb(v), minExp);
  return std::ldexp(1.0, e - (mantissaBits(d) - 1));
}

std::string typeText(const Tensor& t) {
  return std::string(tg::dtype_name(t.dtype())) + tg::format_shape(t.shape());
}

/// Bitwise equality; "" or where they differ. With `anyZero`, +0 and -0 are equal: the GPU
/// compared with the reference, where the sign of a zero that reduce_max picks among equal
/// elements is unspecified (the reference keeps the first, a tree of lanes any of them).
std::string bitsDiff(const Tensor& got, const Tensor& want, bool anyZero = false) {
  if (got.dtype() != want.dtype() || got.shape() != want.shape())
    return "type " + typeText(got) + " vs " + typeText(want);
  std::vector<float> g = got.to_vector<float>(), w = want.to_vector<float>();
  for (size_t i = 0; i < g.size(); ++i)
    if (std::memcmp(&g[i], &w[i], 4) != 0 && !(std::isnan(g[i]) && std::isnan(w[i])) &&
        !(anyZero && g[i] == 0 && w[i] == 0)) {
      std::ostringstream os;
      os.precision(9);
      os << "element " << i << " of " << g.size() << ": " << g[i] << " vs " << w[i];
      return os.str();
    }
  return "";
}

/// The program's sensitivity, computed once and only when some comparison needs it.
class Sensitivity {
 public:
  Sensitivity(const tgtest::RandomProgram& p, const std::vector<Tensor>& in) : p_(p), in_(in) {}
  const std::vector<std::vector<double>>& get() {
    if (!done_) {
      values_ = guarded("the sensitivity analysis", OutcomeKind::Invalid, false,
                        [&] { return p_.sensitivity(in_); });
      done_ = true;
    }
    return values_;
  }

 private:
  const tgtest::RandomProgram& p_;
  const std::vector<Tensor>& in_;
  bool done_ = false;
  std::vector<std::vector<double>> values_;
};

struct Compared {
  bool ok = true;
  std::string detail;  // the worst element and its tolerance
};

/// `got` against `want` element by element: |got - want| <= 3 s_i + 1 ulp(want_i) where the
/// program is inexact (s: the sensitivity), bit-exact where it is not. NaN never passes.
Compared compareWithin(const Tensor& got, const Tensor& want, const std::vector<double>* s,
                       bool inexact) {
  Compared c;
  if (got.dtype() != want.dtype() || got.shape() != want.shape()) {
    c.ok = false;
    c.detail = "type " + typeText(got) + " vs the reference's " + typeText(want);
    return c;
  }
  if (!inexact) {
    const std::string d = bitsDiff(got, want, /*anyZero=*/true);
    c.ok = d.empty();
    c.detail = d.empty() ? "bit-exact (no inexact step)" : "not bit-exact (no inexact step): " + d;
    return c;
  }
  std::vector<float> g = got.to_vector<float>(), w = want.to_vector<float>();
  int64_t bad = 0, worst = -1;
  double worstRatio = -1, maxErr = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    const double gi = g[i], wi = w[i];
    const double tol = 3 * (*s)[i] + ulpOf(want.dtype(), std::fabs(wi));
    const double err = std::isnan(gi) || std::isnan(wi) || std::isinf(gi) || std::isinf(wi)
                           ? (gi == wi ? 0 : INFINITY)
                           : std::fabs(gi - wi);
    const double ratio = tol > 0 ? err / tol : (err > 0 ? INFINITY : 0);
    if (std::isnan(gi) || err > tol) ++bad;
    maxErr = std::max(maxErr, err);
    if (ratio > worstRatio || std::isnan(gi)) {
      worstRatio = std::isnan(gi) ? INFINITY : ratio;
      worst = static_cast<int64_t>(i);
    }
  }
  c.ok = bad == 0;
  std::ostringstream os;
  os.precision(9);
  if (worst >= 0) {
    const double wi = w[worst];
    os << (c.ok ? "within tolerance" : std::to_string(bad) + " of " + std::to_string(g.size()) +
                                           " elements outside the tolerance")
       << "; worst element " << worst << ": got " << g[worst] << ", want " << wi << ", |diff| "
       << std::fabs(static_cast<double>(g[worst]) - wi) << " vs tolerance "
       << 3 * (*s)[worst] + ulpOf(want.dtype(), std::fabs(wi)) << " = 3 x sensitivity "
       << (*s)[worst] << " + 1 ulp " << ulpOf(want.dtype(), std::fabs(wi)) << " (" << worstRatio
       << " of it); largest |diff| " << maxErr;
  }
  c.detail = os.str();
  return c;
}

/// The tolerance's self-check: simulated miscompiles of `got` (which passed against `want`)
/// must fail the same comparison. Counts into `outcome`.
void checkMutations(const std::vector<Tensor>& got, const std::vector<Tensor>& want,
                    Sensitivity& sens, bool inexact, Outcome& outcome, bool verbose) {
  for (size_t o = 0; o < got.size(); ++o) {
    if (!tg::is_floating(got[o].dtype()) || got[o].numel() == 0) continue;
    const std::vector<double>* s = inexact ? &sens.get()[o] : nullptr;
    const std::vector<float> g = got[o].to_vector<float>();
    double largest = 0;
    for (float x : g) largest = std::max(largest, static_cast<double>(std::fabs(x)));
    for (int kind = 0; kind < Outcome::kMutations; ++kind) {
      std::vector<float> m = g;
      if (kind == 0) {
        for (size_t i = 0; i < m.size(); ++i) m[i] = g[(i + 1) % g.size()];
      } else if (kind == 1) {
        for (float& x : m) x = static_cast<float>(x * (1 + 0x1p-5));
      } else {
        m[m.size() / 2] = static_cast<float>(m[m.size() / 2] + 0.1 * largest);
      }
      // Rounded to the result's dtype, the mutation must still change something.
      Tensor mutated = tg::from_vector(m, got[o].shape(), got[o].dtype(), tg::Device::CPU);
      if (bitsDiff(mutated, got[o], /*anyZero=*/true).empty()) continue;
      ++outcome.mutationsTried[kind];
      const Compared c = compareWithin(mutated, want[o], s, inexact);
      if (!c.ok) ++outcome.mutationsCaught[kind];
      if (verbose)
        std::printf("  simulated miscompile '%s' of result %zu: %s\n", mutationName(kind), o,
                    c.ok ? ("NOT caught: " + c.detail).c_str() : "caught");
    }
  }
}

/// Checks every result; throws a mismatch naming `what` on the first failure.
void expectWithin(const std::string& what, const std::vector<Tensor>& got,
                  const std::vector<Tensor>& want, Sensitivity& sens, bool inexact, bool verbose) {
  if (got.size() != want.size())
    fail(OutcomeKind::Mismatch, what + ": " + std::to_string(got.size()) + " results, want " +
                                    std::to_string(want.size()));
  for (size_t o = 0; o < got.size(); ++o) {
    const std::vector<double>* s = inexact ? &sens.get()[o] : nullptr;
    Compared c = compareWithin(got[o], want[o], s, inexact);
    if (verbose) std::printf("  %s, result %zu: %s\n", what.c_str(), o, c.detail.c_str());
    if (!c.ok) fail(OutcomeKind::Mismatch, what + ", result " + std::to_string(o) + ": " + c.detail);
  }
}

void expectBits(const std::string& what, const std::vector<Tensor>& got,
                const std::vector<Tensor>& want, bool verbose) {
  if (got.size() != want.size())
    fail(OutcomeKind::Mismatch, what + ": " + std::to_string(got.size()) + " results, want " +
                                    std::to_string(want.size()));
  for (size_t o = 0; o < got.size(); ++o) {
    const std::string d = bitsDiff(got[o], want[o]);
    if (verbose) std::printf("  %s, result %zu: %s\n", what.c_str(), o, d.empty() ? "bit-identical" : d.c_str());
    if (!d.empty()) fail(OutcomeKind::Mismatch, what + ", result " + std::to_string(o) + ": " + d);
  }
}

//===----------------------------------------------------------------------===//
// Modules: trace, pipeline, interpreter, code generation, NVRTC
//===----------------------------------------------------------------------===//

std::vector<HostTensor> hostArgs(const std::vector<Tensor>& ts) {
  std::vector<HostTensor> out;
  for (const Tensor& t : ts) out.push_back(HostTensor::fromFloats(t.dtype(), t.shape(), t.to_vector<float>()));
  return out;
}

std::vector<Tensor> tensorsOf(const std::vector<HostTensor>& hs) {
  std::vector<Tensor> out;
  for (const HostTensor& h : hs) out.push_back(tg::from_vector(h.toFloats(), h.shape(), h.dtype(), tg::Device::CPU));
  return out;
}

/// The program traced and imported as JitFunction::trace_ir does, but kept as a module:
/// trace_ir's text elides constants of more than 16 elements, which the interpreter needs.
/// Call with compileMutex() held... only around the import (the tracing runs the lambda).
mlir::OwningOpRef<mlir::ModuleOp> traceModule(const tgtest::RandomProgram& p) {
  using namespace tg::detail;
  auto tracer = std::make_shared<Tracer>(p.inputs.size());
  std::vector<Tensor> symbolic;
  for (size_t i = 0; i < p.inputs.size(); ++i)
    symbolic.push_back(tracer->addArgument(tracer, i, {p.inputs[i].dtype, p.inputs[i].shape}, tg::Device::CPU));
  try {
    Tracer::Scope scope(tracer.get());
    tracer->setOutputs(p.fn(symbolic));
  } catch (...) {
    tracer->finish();
    throw;
  }
  tracer->finish();
  std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
  return importTrace(tracer->trace(), tg::compiler::sharedContext(), "random_program");
}

mlir::func::FuncOp onlyFunc(mlir::ModuleOp module) { return *module.getOps<mlir::func::FuncOp>().begin(); }

using tgtest::runUpToFuse;

/// Compiles `module` (a clone is used) to a plan with fusion on or off for sm_90a and every
/// kernel with NVRTC (each distinct source once per process). Returns the kernel count.
int compileAll(mlir::ModuleOp module, bool fuse, bool nvrtc, const std::string& what, int& compiles,
               bool fuseReductions = false) {
  mlir::OwningOpRef<mlir::ModuleOp> clone = module.clone();
  tg::compiler::PipelineOptions options;
  options.fuse = fuse;
  options.fuseReductions = fuseReductions;
  options.codegen.arch = "sm_90a";
  tg::rt::Plan plan = guarded(what + ": compiler::compile", OutcomeKind::CompileError, false,
                              [&] { return tg::compiler::compile(*clone, options); });
  if (nvrtc) {
    // A kernel's name (its index in the plan) is the only difference between many kernels of
    // the same op and types: compile each source once with the name replaced.
    static std::unordered_set<size_t> done;
    for (const tg::rt::KernelSource& k : plan.kernels) {
      std::string source = k.source;
      for (size_t at = source.find(k.name); at != std::string::npos; at = source.find(k.name, at + 9))
        source.replace(at, k.name.size(), "tg_kernel");
      if (!done.insert(std::hash<std::string>{}(source)).second) continue;
      ++compiles;
      tg::rt::NvrtcResult r = guarded(what + ": NVRTC, kernel " + k.name + " (" + k.summary + ")",
                                      OutcomeKind::CompileError, false, [&] {
                                        return tg::rt::compileCuda(source, "tg_kernel.cu", "sm_90a",
                                                                   tg::rt::defaultNvrtcOptions());
                                      });
      if (r.cubin.empty()) fail(OutcomeKind::CompileError, what + ": NVRTC gave an empty cubin for " + k.name);
    }
  }
  return static_cast<int>(plan.kernels.size());
}

/// The modules of JitFunction::ir() for a function with graph breaks (one per segment), with
/// every elided constant (printModule elides more than 16 elements) replaced by stand-in
/// values of its type: the generated code reads dense constants from buffers, so their values
/// do not change what is compiled; these modules are compiled, never interpreted.
std::vector<std::string> segmentModules(const std::string& ir) {
  std::vector<std::string> modules;
  size_t start = ir.find("module");
  while (start != std::string::npos) {
    size_t next = ir.find("\nmodule", start + 1);
    modules.push_back(ir.substr(start, next == std::string::npos ? std::string::npos : next + 1 - start));
    start = next == std::string::npos ? next : next + 1;
  }
  static const std::regex elided(R"(dense_resource<__elided__>\s*:\s*tensor<([0-9x]*)(f32|f16|bf16|i32)>)");
  for (std::string& m : modules) {
    std::string out;
    auto it = std::sregex_iterator(m.begin(), m.end(), elided);
    size_t last = 0;
    for (; it != std::sregex_iterator(); ++it) {
      const std::smatch& match = *it;
      int64_t n = 1;
      std::stringstream dims(match[1].str());
      for (std::string d; std::getline(dims, d, 'x');)
        if (!d.empty()) n *= std::stoll(d);
      const std::string type = match[2].str();
      std::string hex = "0x";
      char buf[16];
      for (int64_t i = 0; i < n; ++i) {
        const float v = 1.0f + static_cast<float>(i % 7) * 0.125f;
        uint32_t bits;
        if (type == "f32") std::memcpy(&bits, &v, 4);
        else if (type == "i32") bits = static_cast<uint32_t>(i % 7 + 1);
        else bits = type == "f16" ? tg::float_to_f16(v) : tg::float_to_bf16(v);
        const int bytes = type == "f16" || type == "bf16" ? 2 : 4;
        for (int b = 0; b < bytes; ++b) {
          std::snprintf(buf, sizeof(buf), "%02X", (bits >> (8 * b)) & 0xffu);
          hex += buf;
        }
      }
      out += m.substr(last, static_cast<size_t>(match.position(0)) - last);
      out += "dense<\"" + hex + "\"> : tensor<" + match[1].str() + type + ">";
      last = static_cast<size_t>(match.position(0) + match.length(0));
    }
    out += m.substr(last);
    m = out;
  }
  return modules;
}

std::vector<Tensor> toDevice(const std::vector<Tensor>& ts, tg::Device d) {
  std::vector<Tensor> out;
  for (const Tensor& t : ts) out.push_back(t.to(d));
  return out;
}

std::vector<Tensor> toCpu(const std::vector<Tensor>& ts) { return toDevice(ts, tg::Device::CPU); }

void checkFinite(const std::vector<Tensor>& ref) {
  for (size_t o = 0; o < ref.size(); ++o) {
    std::vector<float> v = ref[o].to_vector<float>();
    for (size_t i = 0; i < v.size(); ++i)
      if (!std::isfinite(v[i]))
        fail(OutcomeKind::Invalid, "the reference's result " + std::to_string(o) + " element " +
                                       std::to_string(i) + " is " + std::to_string(v[i]) +
                                       ": the generator let a value overflow");
  }
}

//===----------------------------------------------------------------------===//
// The two modes
//===----------------------------------------------------------------------===//

void checkOnCpu(const tgtest::RandomProgram& p, const std::vector<Tensor>& in,
                const std::vector<Tensor>& ref, Sensitivity& sens, const CheckOptions& options,
                Outcome& outcome) {
  const bool verbose = options.verbose;
  if (p.graphBreaks) {
    // tg::jit on CPU tensors runs each segment on the interpreter; compile every segment's
    // module for the GPU as the cuda mode would.
    tgtest::JitProgram jit(p.fn, p.inputs.size(), p.numOutputs, tg::JitOptions{});
    std::vector<Tensor> got = guarded("tg::jit on the cpu", OutcomeKind::Crash, true, [&] { return jit(in); });
    expectBits("tg::jit on the cpu vs eager", got, ref, verbose);
    std::vector<std::string> segments = segmentModules(jit.ir());
    if (verbose) std::printf("  %zu graph segments\n", segments.size());
    for (size_t s = 0; s < segments.size(); ++s) {
      std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
      mlir::OwningOpRef<mlir::ModuleOp> module =
          mlir::parseSourceString<mlir::ModuleOp>(segments[s], &tg::compiler::sharedContext());
      if (!module) fail(OutcomeKind::Crash, "segment " + std::to_string(s) + "'s IR does not parse:\n" + segments[s]);
      const std::string what = "segment " + std::to_string(s);
      outcome.kernelsFused += compileAll(*module, true, options.nvrtc != CheckOptions::Nvrtc::None,
                                         what + " fused", outcome.nvrtcCompiles);
      outcome.kernelsUnfused += compileAll(*module, false, options.nvrtc == CheckOptions::Nvrtc::All,
                                           what + " unfused", outcome.nvrtcCompiles);
    }
    return;
  }
  std::vector<Tensor> jitCpu = guarded("tg::jit on the cpu", OutcomeKind::Crash, true,
                                       [&] { return tgtest::runJit(p, tg::JitOptions{}, in); });
  expectBits("tg::jit on the cpu vs eager", jitCpu, ref, verbose);

  mlir::OwningOpRef<mlir::ModuleOp> original =
      guarded("tracing", OutcomeKind::Crash, false, [&] { return traceModule(p); });
  std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
  if (verbose) std::printf("traced IR:\n%s", tg::compiler::printModule(*original).c_str());
  mlir::OwningOpRef<mlir::ModuleOp> fused = original->clone(), unfused = original->clone();
  if (std::string e = runUpToFuse(*fused, true); !e.empty()) fail(OutcomeKind::CompileError, "fuse=true: " + e);
  if (std::string e = runUpToFuse(*unfused, false); !e.empty()) fail(OutcomeKind::CompileError, "fuse=false: " + e);
  const std::vector<HostTensor> args = hostArgs(in);
  auto interpret = [&](mlir::ModuleOp m, bool f32Inside, const std::string& what) {
    tg::ref::InterpretOptions io;
    io.f32InsideFusions = f32Inside;
    return guarded("interpreting the " + what + " module", OutcomeKind::Crash, false,
                   [&] { return tensorsOf(tg::ref::interpret(onlyFunc(m), args, io)); });
  };
  const std::vector<Tensor> orig = interpret(*original, false, "traced");
  const std::vector<Tensor> f = interpret(*fused, false, "fused");
  const std::vector<Tensor> u = interpret(*unfused, false, "unfused");
  const std::vector<Tensor> f32 = interpret(*fused, true, "fused (f32 inside fusions)");
  expectBits("interpreted traced module vs eager", orig, ref, verbose);
  expectBits("interpreted fused module vs unfused", f, u, verbose);
  // Decomposing softmax/layer_norm changes how they are computed (f32 steps), within the
  // model; otherwise the pipeline up to fusion changes nothing.
  if (p.composites)
    expectWithin("interpreted fused module (decomposed composites) vs traced", f, orig, sens, p.inexact, verbose);
  else
    expectBits("interpreted fused module vs traced", f, orig, verbose);
  const bool f32Exact = !p.inexact || (p.lowestPrecision == DType::F32 && !p.composites);
  if (f32Exact)
    expectBits("fused module with f32 inside fusions vs traced", f32, orig, verbose);
  else
    expectWithin("fused module with f32 inside fusions vs traced", f32, orig, sens, p.inexact, verbose);
  checkMutations(f32, orig, sens, p.inexact, outcome, verbose);
  // Row kernels (tg-fuse{fuse-reductions=true}, the jit's default): interpreted op by op they
  // change no bits; with f32 inside, like the others.
  mlir::OwningOpRef<mlir::ModuleOp> rows = original->clone();
  if (std::string e = runUpToFuse(*rows, true, /*fuseReductions=*/true); !e.empty())
    fail(OutcomeKind::CompileError, "fuse-reductions=true: " + e);
  expectBits("interpreted row-fused module vs unfused", interpret(*rows, false, "row-fused"), u, verbose);
  const std::vector<Tensor> rows32 = interpret(*rows, true, "row-fused (f32 inside kernels)");
  if (f32Exact)
    expectBits("row-fused module with f32 inside kernels vs traced", rows32, orig, verbose);
  else
    expectWithin("row-fused module with f32 inside kernels vs traced", rows32, orig, sens, p.inexact, verbose);
  // Attention fusions (tg-fuse-attention, decode-sized ones too), interpreted as their kernels
  // compute: f32 inside, the probabilities unnormalised until the end.
  if (std::find(p.features.begin(), p.features.end(), "attention") != p.features.end()) {
    mlir::OwningOpRef<mlir::ModuleOp> attention = original->clone();
    if (std::string e = runUpToFuse(*attention, true, /*fuseReductions=*/true, /*fuseAttention=*/true); !e.empty())
      fail(OutcomeKind::CompileError, "fuse-attention: " + e);
    expectWithin("attention-fused module with f32 inside kernels vs traced",
                 interpret(*attention, true, "attention-fused (f32 inside kernels)"), orig, sens, p.inexact, verbose);
  }
  outcome.kernelsFused = compileAll(*original, true, options.nvrtc != CheckOptions::Nvrtc::None, "fused",
                                    outcome.nvrtcCompiles);
  compileAll(*original, true, options.nvrtc != CheckOptions::Nvrtc::None, "row-fused", outcome.nvrtcCompiles,
             /*fuseReductions=*/true);
  outcome.kernelsUnfused = compileAll(*original, false, options.nvrtc == CheckOptions::Nvrtc::All, "unfused",
                                      outcome.nvrtcCompiles);
}

/// What the fused GPU kernels compute, on the CPU: the fused module interpreted with
/// bf16/f16 values kept in f32 inside each elementwise kernel.
std::vector<Tensor> interpretFused(const tgtest::RandomProgram& p, const std::vector<Tensor>& in) {
  mlir::OwningOpRef<mlir::ModuleOp> module = traceModule(p);
  std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
  if (std::string e = runUpToFuse(*module, true); !e.empty()) fail(OutcomeKind::CompileError, "fuse=true: " + e);
  tg::ref::InterpretOptions io;
  io.f32InsideFusions = true;
  return tensorsOf(tg::ref::interpret(onlyFunc(*module), hostArgs(in), io));
}

/// Whether the jit's pipeline (reductions fused, its default) makes a row kernel of `p`.
bool hasRowKernels(const tgtest::RandomProgram& p) {
  mlir::OwningOpRef<mlir::ModuleOp> module = traceModule(p);
  std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
  if (std::string e = runUpToFuse(*module, true, /*fuseReductions=*/true); !e.empty())
    fail(OutcomeKind::CompileError, "fuse-reductions=true: " + e);
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return os.str().find("tg.fusion row") != std::string::npos;
}

void checkOnCuda(const tgtest::RandomProgram& p, const std::vector<Tensor>& in,
                 const std::vector<Tensor>& ref, Sensitivity& sens, const CheckOptions& options,
                 Outcome& outcome) {
  const bool verbose = options.verbose;
  std::vector<Tensor> jitCpu = guarded("tg::jit on the cpu", OutcomeKind::Crash, true,
                                       [&] { return tgtest::runJit(p, tg::JitOptions{}, in); });
  expectBits("tg::jit on the cpu vs eager", jitCpu, ref, verbose);
  const std::vector<Tensor> gpuIn = guarded("copying the inputs to the GPU", OutcomeKind::Crash, false,
                                            [&] { return toDevice(in, options.jitDevice); });
  tg::JitOptions fuse, noFuse;
  noFuse.fuse = false;
  tgtest::JitProgram fusedJit(p.fn, p.inputs.size(), p.numOutputs, fuse);
  tgtest::JitProgram unfusedJit(p.fn, p.inputs.size(), p.numOutputs, noFuse);
  const std::vector<Tensor> fused = guarded("tg::jit fused on cuda", OutcomeKind::Crash, true,
                                            [&] { return toCpu(fusedJit(gpuIn)); });
  const std::vector<Tensor> unfused = guarded("tg::jit unfused on cuda", OutcomeKind::Crash, true,
                                              [&] { return toCpu(unfusedJit(gpuIn)); });
  outcome.kernelsFused = static_cast<int>(fusedJit.kernels());
  outcome.kernelsUnfused = static_cast<int>(unfusedJit.kernels());
  if (verbose) std::printf("fused IR:\n%s", fusedJit.ir().c_str());
  // The fused kernels keep 16-bit values in f32: compare with the interpreter doing the same
  // (a program with graph breaks has no single module: the op-by-op reference, whose
  // difference the model covers, since every rounding 16-bit step carries one ulp of noise).
  const std::vector<Tensor> wantFused =
      p.graphBreaks ? ref
                    : guarded("interpreting the fused module", OutcomeKind::Crash, false,
                              [&] { return interpretFused(p, in); });
  expectWithin("fused on cuda vs the fused module's reference", fused, wantFused, sens, p.inexact, verbose);
  expectWithin("unfused on cuda vs the reference", unfused, ref, sens, p.inexact, verbose);
  // Kernels keep intermediates in f32 and round only what they store: with every value in
  // f32, fusing elementwise ops changes nothing (a matmul may take another path or tile when
  // fused). A row kernel may change the bits: it sums in another order than a reduction
  // kernel and divides by a row value as one reciprocal, inside the tolerance checked above.
  // Where the bits differ, they are checked with row kernels off (a program without one gives
  // the same bits again, so a fusion bug still shows; a program with graph breaks has row
  // kernels in segments that hasRowKernels, which reads one module, cannot see).
  if (p.lowestPrecision == DType::F32 && !p.matmuls) {
    bool same = fused.size() == unfused.size();
    for (size_t o = 0; same && o < fused.size(); ++o) same = bitsDiff(fused[o], unfused[o]).empty();
    if (verbose && !p.graphBreaks)
      std::printf("  the jit makes %s row kernel of it\n", hasRowKernels(p) ? "a" : "no");
    if (same) {
      expectBits("fused vs unfused on cuda", fused, unfused, verbose);
    } else {
      tg::JitOptions noRows;
      noRows.fuse_reductions = false;
      tgtest::JitProgram noRowsJit(p.fn, p.inputs.size(), p.numOutputs, noRows);
      const std::vector<Tensor> elementwise = guarded("tg::jit fused without row kernels on cuda", OutcomeKind::Crash,
                                                      true, [&] { return toCpu(noRowsJit(gpuIn)); });
      expectBits("fused without row kernels vs unfused on cuda", elementwise, unfused, verbose);
    }
  }
  checkMutations(fused, wantFused, sens, p.inexact, outcome, verbose);
}

}  // namespace

Outcome checkProgram(uint64_t seed, const CheckOptions& options) {
  Outcome outcome;
  try {
    const tgtest::RandomProgram p = guarded("the generator", OutcomeKind::Invalid, false, [&] {
      return options.legacy ? tgtest::randomProgram(seed) : tgtest::randomProgram(seed, options.program);
    });
    outcome.features = p.features;
    if (options.verbose) std::printf("%s", p.description.c_str());
    const std::vector<Tensor> in = tgtest::randomInputs(p, seed, tg::Device::CPU);
    // The reference: the program run eagerly on CPU tensors (the reference kernels). An error
    // here is the frontend rejecting what the generator made.
    const std::vector<Tensor> ref =
        guarded("eager execution on the cpu", OutcomeKind::Invalid, false, [&] { return p.fn(in); });
    guarded("eager execution on the cpu", OutcomeKind::Invalid, false, [&] {
      tg::synchronize();  // raises a failed tg::check
      return 0;
    });
    checkFinite(ref);
    Sensitivity sens(p, in);
    if (options.device == tg::Device::CUDA)
      checkOnCuda(p, in, ref, sens, options, outcome);
    else
      checkOnCpu(p, in, ref, sens, options, outcome);
  } catch (const Failure& f) {
    outcome.kind = f.kind;
    outcome.message = f.message;
  } catch (const std::exception& e) {
    outcome.kind = OutcomeKind::Crash;
    outcome.message = std::string("unexpected exception: ") + e.what();
  }
  return outcome;
}

}  // namespace tgrandom
