//===- tg_random_programs.cpp - Random programs at scale (issue 13) -------===//
//
//   tg_random_programs --count N --first-seed S --jobs J --device cpu|cuda
//                      [--features all|none|LIST] [--json FILE] [--verbose] [--timeout SEC]
//                      [--legacy] [--nvrtc all|fused|none] [--recycle N] [--cuda-on-cpu]
//                      [--deadline SEC]
//
// Builds the richer random program of every seed in [S, S + N) (tests/common/RandomGraph.h),
// checks it on the device (ProgramCheck.h: fused, unfused and the interpreter against the
// modelled tolerance on cuda; the pipeline, the interpreter and NVRTC on cpu) in J forked
// workers (WorkerPool.h: a crash or hang is charged to its seed), and prints
//
//   random programs: N run, ok A, mismatch B, compile error C, crash D (seeds S..E, J jobs, T s)
//
// then one line per failure with its seed, kind, message and the command that reproduces it
// (`--first-seed SEED --count 1 --verbose` prints the program, its IR and each comparison's
// worst element with its tolerance). An "invalid program" (the frontend rejected what the
// generator made: a generator bug) is counted after the crashes when there is one. The exit
// status is 0 only when every program is ok. --json writes the counts, failures, feature
// statistics and every program's outcome and time. LIST: comma-separated step kinds of
// RandomProgramOptions (reductions, composites, matmuls, attention, layouts, casts, constants, breaks,
// checks); --legacy checks randomProgram(seed) (elementwise programs) instead. --nvrtc (cpu
// mode): compile the kernels of both plans (all, the default), of the fused plan only, or none
// (every plan is still generated). --cuda-on-cpu runs the cuda mode with CPU tensors (the
// interpreter stands in for the GPU): its comparisons and plumbing, checked without a GPU.
// --deadline SEC hands out no seed after SEC seconds (the programs running then finish): the
// line above counts the seeds that ran (always the first ones) and says how many did not; the
// exit status is then 3 when everything that ran was ok.
//
//===----------------------------------------------------------------------===//
#include "ProgramCheck.h"
#include "WorkerPool.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace tgrandom;

struct Args {
  uint64_t count = 100;
  uint64_t firstSeed = 1;
  int jobs = 1;
  tg::Device device = tg::Device::CPU;
  std::string features = "all";
  std::string json;
  bool verbose = false;
  double timeout = 120;
  bool legacy = false;
  CheckOptions::Nvrtc nvrtc = CheckOptions::Nvrtc::All;
  int recycle = 250;
  bool cudaOnCpu = false;
  double deadline = 0;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "tg_random_programs: %s\n"
               "usage: tg_random_programs [--count N] [--first-seed S] [--jobs J] [--device cpu|cuda]\n"
               "                          [--features all|none|reductions,composites,matmuls,attention,layouts,casts,\n"
               "                           constants,breaks,checks] [--json FILE] [--verbose]\n"
               "                          [--timeout SEC] [--legacy] [--nvrtc all|fused|none] [--recycle N]\n"
               "                          [--cuda-on-cpu] [--deadline SEC]\n",
               why.c_str());
  std::exit(2);
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(s + " needs a value");
      return argv[++i];
    };
    if (s == "--count") a.count = std::stoull(value());
    else if (s == "--first-seed") a.firstSeed = std::stoull(value());
    else if (s == "--jobs") a.jobs = std::max(1, std::stoi(value()));
    else if (s == "--device") {
      std::string d = value();
      if (d == "cpu") a.device = tg::Device::CPU;
      else if (d == "cuda") a.device = tg::Device::CUDA;
      else usage("unknown device " + d);
    } else if (s == "--features") a.features = value();
    else if (s == "--json") a.json = value();
    else if (s == "--verbose") a.verbose = true;
    else if (s == "--timeout") a.timeout = std::stod(value());
    else if (s == "--legacy") a.legacy = true;
    else if (s == "--nvrtc") {
      std::string n = value();
      if (n == "all") a.nvrtc = CheckOptions::Nvrtc::All;
      else if (n == "fused") a.nvrtc = CheckOptions::Nvrtc::Fused;
      else if (n == "none") a.nvrtc = CheckOptions::Nvrtc::None;
      else usage("unknown --nvrtc " + n);
    }
    else if (s == "--recycle") a.recycle = std::max(1, std::stoi(value()));
    else if (s == "--cuda-on-cpu") a.cudaOnCpu = true;
    else if (s == "--deadline") a.deadline = std::stod(value());
    else usage("unknown argument " + s);
  }
  return a;
}

tgtest::RandomProgramOptions programOptions(const std::string& features) {
  tgtest::RandomProgramOptions o;
  if (features == "all") return o;
  o.reductions = o.composites = o.matmuls = o.attention = o.layouts = o.casts = o.constants = o.breaks = o.checks = false;
  if (features == "none") return o;
  std::stringstream ss(features);
  for (std::string f; std::getline(ss, f, ',');) {
    if (f == "reductions") o.reductions = true;
    else if (f == "composites") o.composites = true;
    else if (f == "matmuls") o.matmuls = true;
    else if (f == "attention") o.attention = true;
    else if (f == "layouts") o.layouts = true;
    else if (f == "casts") o.casts = true;
    else if (f == "constants") o.constants = true;
    else if (f == "breaks") o.breaks = true;
    else if (f == "checks") o.checks = true;
    else usage("unknown feature " + f);
  }
  return o;
}

/// Whether a CUDA device is usable, asked in a child process: the parent must not create a
/// CUDA context before it forks the workers.
bool cudaUsable() {
  std::fflush(stdout);
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(tg::cuda_available() ? 0 : 1);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::string firstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += static_cast<char>(c);
    else if (c == '\n') out += "\\n";
    else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else out += static_cast<char>(c);
  }
  return out + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  CheckOptions check;
  check.device = args.device;
  check.program = programOptions(args.features);
  check.legacy = args.legacy;
  check.verbose = args.verbose;
  check.nvrtc = args.nvrtc;
  if (args.cudaOnCpu) {
    check.device = tg::Device::CUDA;
    check.jitDevice = tg::Device::CPU;
  }
  if (args.device == tg::Device::CUDA && !args.cudaOnCpu && !cudaUsable()) {
    std::fprintf(stderr, "tg_random_programs: --device cuda, but no CUDA device is usable\n");
    return 2;
  }
  std::vector<uint64_t> seeds;
  for (uint64_t i = 0; i < args.count; ++i) seeds.push_back(args.firstSeed + i);

  const auto t0 = std::chrono::steady_clock::now();
  PoolOptions pool;
  pool.jobs = args.jobs;
  pool.timeoutSeconds = args.timeout;
  pool.recycleAfter = args.recycle;
  pool.deadlineSeconds = args.deadline;
  std::vector<SeedResult> results = runPool(
      seeds, pool, [&](uint64_t seed) { return checkProgram(seed, check); },
      [&](const SeedResult& r) {
        if (r.outcome.kind != OutcomeKind::Ok)
          std::fprintf(stderr, "seed %llu: %s: %s\n", static_cast<unsigned long long>(r.seed),
                       outcomeName(r.outcome.kind), firstLine(r.outcome.message).c_str());
      });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::map<OutcomeKind, uint64_t> counts;
  std::map<std::string, uint64_t> featureCounts;
  uint64_t kernelsFused = 0, kernelsUnfused = 0, nvrtc = 0;
  uint64_t tried[Outcome::kMutations] = {}, caught[Outcome::kMutations] = {};
  double busy = 0, slowest = 0;
  uint64_t slowestSeed = 0;
  for (const SeedResult& r : results) {
    ++counts[r.outcome.kind];
    for (const std::string& f : r.outcome.features) ++featureCounts[f];
    kernelsFused += static_cast<uint64_t>(r.outcome.kernelsFused);
    kernelsUnfused += static_cast<uint64_t>(r.outcome.kernelsUnfused);
    nvrtc += static_cast<uint64_t>(r.outcome.nvrtcCompiles);
    for (int k = 0; k < Outcome::kMutations; ++k) {
      tried[k] += static_cast<uint64_t>(r.outcome.mutationsTried[k]);
      caught[k] += static_cast<uint64_t>(r.outcome.mutationsCaught[k]);
    }
    busy += r.seconds;
    if (r.seconds > slowest) slowest = r.seconds, slowestSeed = r.seed;
  }
  const uint64_t failures = results.size() - counts[OutcomeKind::Ok];
  std::string reproduce = std::string("tg_random_programs --device ") +
                          (check.device == tg::Device::CUDA ? "cuda" : "cpu") +
                          (args.cudaOnCpu ? " --cuda-on-cpu" : "") +
                          (args.legacy ? " --legacy" : "") +
                          (args.features != "all" ? " --features " + args.features : "");
  std::printf("random programs: %zu run, ok %llu, mismatch %llu, compile error %llu, crash %llu",
              results.size(), static_cast<unsigned long long>(counts[OutcomeKind::Ok]),
              static_cast<unsigned long long>(counts[OutcomeKind::Mismatch]),
              static_cast<unsigned long long>(counts[OutcomeKind::CompileError]),
              static_cast<unsigned long long>(counts[OutcomeKind::Crash]));
  if (counts[OutcomeKind::Invalid])
    std::printf(", invalid program %llu", static_cast<unsigned long long>(counts[OutcomeKind::Invalid]));
  // The seeds that ran: the first results.size() ones (the pool hands them out in order).
  std::printf(" (seeds %llu..%llu, %d jobs, %.1f s", static_cast<unsigned long long>(args.firstSeed),
              static_cast<unsigned long long>(args.firstSeed + results.size() - 1), args.jobs, seconds);
  const uint64_t notRun = args.count - results.size();
  if (notRun)
    std::printf("; stopped at the %g s deadline: %llu of %llu seeds not run", args.deadline,
                static_cast<unsigned long long>(notRun), static_cast<unsigned long long>(args.count));
  std::printf(")\n");
  for (const SeedResult& r : results)
    if (r.outcome.kind != OutcomeKind::Ok)
      std::printf("  seed %llu: %s: %s | reproduce: %s --first-seed %llu --count 1 --verbose\n",
                  static_cast<unsigned long long>(r.seed), outcomeName(r.outcome.kind),
                  firstLine(r.outcome.message).c_str(), reproduce.c_str(),
                  static_cast<unsigned long long>(r.seed));
  std::printf("  %.1f ms per program in a worker (slowest: seed %llu, %.2f s); kernels: %llu fused, %llu unfused",
              results.empty() ? 0.0 : 1000 * busy / static_cast<double>(results.size()),
              static_cast<unsigned long long>(slowestSeed), slowest,
              static_cast<unsigned long long>(kernelsFused), static_cast<unsigned long long>(kernelsUnfused));
  if (args.device == tg::Device::CPU) std::printf(", %llu NVRTC compilations", static_cast<unsigned long long>(nvrtc));
  std::printf("\n  simulated miscompiles caught by the tolerance:");
  for (int k = 0; k < Outcome::kMutations; ++k)
    std::printf("%s %s %llu of %llu", k ? "," : "", mutationName(k), static_cast<unsigned long long>(caught[k]),
                static_cast<unsigned long long>(tried[k]));
  std::printf("\n");
  std::printf("  programs with:");
  for (const auto& [f, n] : featureCounts) std::printf(" %s %llu", f.c_str(), static_cast<unsigned long long>(n));
  std::printf("\n");
  if (args.verbose)
    for (const SeedResult& r : results)
      if (r.outcome.kind != OutcomeKind::Ok) std::printf("seed %llu: %s\n", static_cast<unsigned long long>(r.seed), r.outcome.message.c_str());

  if (!args.json.empty()) {
    std::ofstream out(args.json);
    out << "{\n  \"device\": " << jsonString(args.device == tg::Device::CUDA ? "cuda" : "cpu")
        << ",\n  \"first_seed\": " << args.firstSeed << ",\n  \"count\": " << args.count
        << ",\n  \"run\": " << results.size()
        << ",\n  \"jobs\": " << args.jobs << ",\n  \"features\": " << jsonString(args.features)
        << ",\n  \"legacy\": " << (args.legacy ? "true" : "false") << ",\n  \"seconds\": " << seconds
        << ",\n  \"counts\": {";
    const OutcomeKind kinds[] = {OutcomeKind::Ok, OutcomeKind::Mismatch, OutcomeKind::CompileError,
                                 OutcomeKind::Crash, OutcomeKind::Invalid};
    for (size_t i = 0; i < 5; ++i)
      out << (i ? ", " : "") << jsonString(outcomeName(kinds[i])) << ": " << counts[kinds[i]];
    out << "},\n  \"kernels\": {\"fused\": " << kernelsFused << ", \"unfused\": " << kernelsUnfused
        << ", \"nvrtc_compilations\": " << nvrtc << "},\n  \"mutations\": {";
    for (int k = 0; k < Outcome::kMutations; ++k)
      out << (k ? ", " : "") << jsonString(mutationName(k)) << ": {\"tried\": " << tried[k]
          << ", \"caught\": " << caught[k] << "}";
    out << "},\n  \"programs_with\": {";
    bool first = true;
    for (const auto& [f, n] : featureCounts) {
      out << (first ? "" : ", ") << jsonString(f) << ": " << n;
      first = false;
    }
    out << "},\n  \"failures\": [";
    first = true;
    for (const SeedResult& r : results)
      if (r.outcome.kind != OutcomeKind::Ok) {
        out << (first ? "\n" : ",\n") << "    {\"seed\": " << r.seed << ", \"kind\": "
            << jsonString(outcomeName(r.outcome.kind)) << ", \"message\": " << jsonString(r.outcome.message)
            << ", \"reproduce\": "
            << jsonString(reproduce + " --first-seed " + std::to_string(r.seed) + " --count 1 --verbose") << "}";
        first = false;
      }
    out << "\n  ],\n  \"programs\": [";
    for (size_t i = 0; i < results.size(); ++i) {
      const SeedResult& r = results[i];
      std::string features;
      for (const std::string& f : r.outcome.features) features += (features.empty() ? "" : ",") + f;
      out << (i ? ",\n" : "\n") << "    {\"seed\": " << r.seed << ", \"kind\": " << jsonString(outcomeName(r.outcome.kind))
          << ", \"seconds\": " << r.seconds << ", \"kernels_fused\": " << r.outcome.kernelsFused
          << ", \"kernels_unfused\": " << r.outcome.kernelsUnfused << ", \"features\": " << jsonString(features) << "}";
    }
    out << "\n  ]\n}\n";
  }
  return failures != 0 ? 1 : notRun != 0 ? 3 : 0;
}
