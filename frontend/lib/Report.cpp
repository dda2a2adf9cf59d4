//===- Report.cpp - Printing JitReport --------------------------------------===//
#include "tg/tg.h"

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <sstream>

namespace tg {

/// "512 B", "4.0 KiB", "1.5 MiB", "2.0 GiB" (and the exact count beyond bytes).
static std::string formatBytes(size_t bytes) {
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double v = static_cast<double>(bytes);
  int u = -1;
  while (v >= 1024 && u < 3) {
    v /= 1024;
    ++u;
  }
  char text[64];
  std::snprintf(text, sizeof(text), "%.1f %s (%zu bytes)", v, units[u], bytes);
  return text;
}

static void printEvents(std::ostringstream& os, const std::vector<JitReport::Event>& events,
                        const char* title) {
  os << "  " << title << ": " << events.size() << "\n";
  for (const JitReport::Event& e : events) {
    os << "    " << e.loc.str();
    if (!e.loc.function.empty()) os << " (in " << e.loc.readableFunction() << ")";
    os << ": " << e.what;
    if (e.count > 1) os << " x" << e.count;
    if (e.segment >= 0) os << (e.count > 1 ? ", first ending segment " : ", ending segment ") << e.segment;
    os << "\n      why:  " << e.reason << "\n      hint: " << e.hint << "\n";
    if (e.approximateLocation)
      os << "      (C++ gives operator bool no source location: this is the line of the op that "
            "computed the value)\n";
  }
}

std::string JitReport::str() const {
  std::ostringstream os;
  os << "jit '" << name << "' (defined at " << definedAt.str() << ")\n";
  os << "  calls: " << calls << ", replayed without running the lambda: " << replays
     << "; graph cache: " << cacheHits << " hit(s), " << cacheMisses << " miss(es)\n";
  os << "  graphs: " << graphs.size();
  if (!breaks.empty()) os << " (segments between graph breaks)";
  os << "\n";
  for (const Graph& g : graphs) {
    os << "    graph " << g.index << ": " << g.ops << " op(s), ";
    if (g.kernels)
      os << g.kernels << " kernel(s)";
    else
      os << "CPU reference interpreter";
    char compiled[48];
    std::snprintf(compiled, sizeof(compiled), "%.1f ms", g.compileMs);
    os << ", compiled in " << compiled << ", run " << g.runs << " time(s)\n";
    if (!g.compileStagesMs.empty()) {
      os << "      compile:";
      for (const auto& [what, ms] : g.compileStagesMs) {
        std::snprintf(compiled, sizeof(compiled), " %.1f", ms);
        os << " " << what << compiled;
      }
      os << " ms\n";
    }
    for (size_t i = 0; i < g.captures.size(); ++i) {
      const Capture& c = g.captures[i];
      os << "      capture " << i << ": " << c.type << ", read at "
         << (c.loc.known() ? c.loc.str() : std::string("the lambda's return"))
         << (c.byValue ? " (a copy held by the lambda: captured by value)"
                       : " (through a variable: every call reads its current tensor)")
         << "\n";
    }
    if (!g.symbols.empty())
      os << "      compiled for sizes: " << g.symbols << "; sizes changed " << g.sizeChanges
         << " time(s) between runs" << (g.lastSizes.empty() ? "" : ", last at " + g.lastSizes) << "\n";
    for (const std::string& v : g.sizeVariants) os << "      guarded variant: " << v << "\n";
    if (!g.notReplayedBecause.empty() && (!g.kernels || g.cudaGraph))
      os << "      not replayed: " << g.notReplayedBecause << "\n";
    if (!g.kernels) continue;
    if (g.cudaGraph)
      os << "      launched as one CUDA graph (" << g.cudaGraphLaunches << " time(s), "
         << g.cudaGraphParameterUpdates << " kernel parameter update(s))\n";
    else
      os << "      launched kernel by kernel"
         << (g.noCudaGraphReason.empty() ? "" : ": " + g.noCudaGraphReason)
         << (g.cudaGraphLaunches ? " (after " + std::to_string(g.cudaGraphLaunches) +
                                       " CUDA graph launch(es))"
                                 : "")
         << "\n";
    if (g.distinctKernels) {
      char nvrtc[48];
      std::snprintf(nvrtc, sizeof(nvrtc), "%.1f ms", g.nvrtcMs);
      os << "      kernels: " << g.distinctKernels << " distinct for " << g.kernels << " launch(es); "
         << g.kernelsCompiled << " compiled by NVRTC (" << nvrtc << " summed over the threads), "
         << g.kernelsFromDisk << " read from the disk cache, " << g.kernelsInMemory << " already loaded\n";
    }
    if (!g.profile.empty()) {
      double total = 0;
      for (const Graph::KernelTime& t : g.profile) total += t.usPerRun;
      char line[64];
      std::snprintf(line, sizeof(line), "%.1f us", total);
      os << "      profile (device events around each launch, over " << g.profiledRuns
         << " run(s) after the first): " << line << " per run\n";
      const size_t shown = std::min<size_t>(g.profile.size(), 16);
      for (size_t i = 0; i < shown; ++i) {
        const Graph::KernelTime& t = g.profile[i];
        std::snprintf(line, sizeof(line), "%9.1f us %5.1f%%  %3zu x ", t.usPerRun,
                      total > 0 ? 100.0 * t.usPerRun / total : 0.0, t.launches);
        os << "        " << line << t.kernel << (t.what.empty() ? "" : ": " + t.what) << "\n";
      }
      if (shown < g.profile.size()) {
        double rest = 0;
        for (size_t i = shown; i < g.profile.size(); ++i) rest += g.profile[i].usPerRun;
        std::snprintf(line, sizeof(line), "%.1f us", rest);
        os << "        ... " << g.profile.size() - shown << " more kernel(s): " << line << "\n";
      }
    }
    os << "      peak device memory per run: " << formatBytes(g.peakDeviceBytes)
       << " (arena + constants + results; inputs not counted)\n";
    for (const std::string& u : g.updates) os << "      " << u << "\n";
  }
  printEvents(os, breaks, "graph breaks");
  printEvents(os, syncs, "sync points");
  if (captureRebinds || captureRetraces)
    os << "  captured variables rebound: " << captureRebinds
       << " call(s) replayed on the new tensor, " << captureRetraces
       << " call(s) ran the lambda again (new type, or the variable is gone)\n";
  os << "  recompiles: " << recompiles.size() << " (limit " << recompileLimit << ")\n";
  for (const std::string& r : recompiles) os << "    " << r << "\n";
  if (recompileLimitExceeded)
    os << "  warning: more signatures than the recompile limit: pass tensors of fixed shapes\n";
  if (!dynamicDims.empty()) {
    os << "  dynamic dims: " << dynamicDims << "\n";
    for (const std::string& s : symbolicSizes) {
      std::string indented = "    ";
      for (char c : s) {
        indented += c;
        if (c == '\n') indented += "      ";
      }
      while (!indented.empty() && (indented.back() == ' ' || indented.back() == '\n')) indented.pop_back();
      os << indented << "\n";
    }
  }
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const JitReport& report) { return os << report.str(); }

}  // namespace tg
