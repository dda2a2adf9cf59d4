//===- WorkerPool.cpp - Seeds checked in forked worker processes ----------===//
#include "WorkerPool.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <stdexcept>
#include <string>

namespace tgrandom {

namespace {

using Clock = std::chrono::steady_clock;

// Frames from a worker: 'S' seed (started), or 'R' header message features (a result).
// Integers in host order (both ends are the same binary).
struct ResultHeader {
  uint64_t seed;
  int32_t kind;
  int32_t counts[3 + 2 * Outcome::kMutations];  // kernels fused, unfused, NVRTC, mutations
  double seconds;
  uint32_t messageLength;
  uint32_t featuresLength;
};

void packCounts(const Outcome& o, int32_t* c) {
  c[0] = o.kernelsFused;
  c[1] = o.kernelsUnfused;
  c[2] = o.nvrtcCompiles;
  for (int k = 0; k < Outcome::kMutations; ++k) {
    c[3 + k] = o.mutationsTried[k];
    c[3 + Outcome::kMutations + k] = o.mutationsCaught[k];
  }
}

void unpackCounts(const int32_t* c, Outcome& o) {
  o.kernelsFused = c[0];
  o.kernelsUnfused = c[1];
  o.nvrtcCompiles = c[2];
  for (int k = 0; k < Outcome::kMutations; ++k) {
    o.mutationsTried[k] = c[3 + k];
    o.mutationsCaught[k] = c[3 + Outcome::kMutations + k];
  }
}

bool writeAll(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool readAll(int fd, void* data, size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

std::string joinFeatures(const std::vector<std::string>& f) {
  std::string s;
  for (const std::string& x : f) s += (s.empty() ? "" : ",") + x;
  return s;
}

std::vector<std::string> splitFeatures(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

/// The worker's loop: read a seed, announce it, check it, send the outcome.
[[noreturn]] void workerMain(int commands, int results, const std::function<Outcome(uint64_t)>& work,
                             int recycleAfter) {
  for (int done = 0; done < recycleAfter; ++done) {
    uint64_t seed;
    if (!readAll(commands, &seed, sizeof seed)) break;
    char start = 'S';
    if (!writeAll(results, &start, 1) || !writeAll(results, &seed, sizeof seed)) break;
    const Clock::time_point t0 = Clock::now();
    Outcome o = work(seed);
    const std::string features = joinFeatures(o.features);
    ResultHeader h{};
    h.seed = seed;
    h.kind = static_cast<int32_t>(o.kind);
    packCounts(o, h.counts);
    h.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    h.messageLength = static_cast<uint32_t>(o.message.size());
    h.featuresLength = static_cast<uint32_t>(features.size());
    char result = 'R';
    if (!writeAll(results, &result, 1) || !writeAll(results, &h, sizeof h) ||
        !writeAll(results, o.message.data(), o.message.size()) ||
        !writeAll(results, features.data(), features.size()))
      break;
    // After a failure a fresh process takes over: a CUDA error can leave the context unusable
    // and a failed tg::check or a cache state should not reach the next program.
    if (o.kind != OutcomeKind::Ok) break;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  ::_exit(0);  // no static destructors: the parent owns the terminal and the summary
}

struct Worker {
  pid_t pid = -1;
  int commands = -1;  // parent writes seeds
  int results = -1;   // parent reads frames
  bool busy = false;
  uint64_t seed = 0;
  Clock::time_point started;
  int assigned = 0;
};

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

std::string describeExit(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return "killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "stopped";
}

}  // namespace

std::vector<SeedResult> runPool(const std::vector<uint64_t>& seeds, const PoolOptions& options,
                                const std::function<Outcome(uint64_t)>& work,
                                const std::function<void(const SeedResult&)>& onResult) {
  ::signal(SIGPIPE, SIG_IGN);  // a dead worker's command pipe must not kill the parent
  std::deque<uint64_t> queue(seeds.begin(), seeds.end());
  std::map<uint64_t, SeedResult> results;
  std::vector<Worker> workers(static_cast<size_t>(std::max(1, options.jobs)));

  auto closeWorker = [](Worker& w) {
    if (w.commands >= 0) ::close(w.commands);
    if (w.results >= 0) ::close(w.results);
    w = Worker{};
  };
  auto spawn = [&](Worker& w) {
    int cmd[2], res[2];
    if (::pipe(cmd) != 0 || ::pipe(res) != 0) throw std::runtime_error("pipe failed");
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      ::close(cmd[1]);
      ::close(res[0]);
      for (Worker& other : workers)  // other workers' pipes: their EOFs must reach the parent
        if (&other != &w) {
          if (other.commands >= 0) ::close(other.commands);
          if (other.results >= 0) ::close(other.results);
        }
      ::signal(SIGPIPE, SIG_DFL);
      workerMain(cmd[0], res[1], work, options.recycleAfter);
    }
    ::close(cmd[0]);
    ::close(res[1]);
    w.pid = pid;
    w.commands = cmd[1];
    w.results = res[0];
    w.busy = false;
    w.assigned = 0;
  };
  auto record = [&](SeedResult r) {
    onResult(r);
    results[r.seed] = std::move(r);
  };
  // A worker that died or hung: its seed (if it had one) is a crash; reap it.
  auto bury = [&](Worker& w, const std::string& why, bool kill) {
    if (kill) ::kill(w.pid, SIGKILL);
    int status = 0;
    ::waitpid(w.pid, &status, 0);
    if (w.busy) {
      SeedResult r;
      r.seed = w.seed;
      r.outcome.kind = OutcomeKind::Crash;
      r.outcome.message = why.empty() ? "the worker " + describeExit(status) + " while running it" : why;
      r.seconds = std::chrono::duration<double>(Clock::now() - w.started).count();
      record(std::move(r));
    }
    closeWorker(w);
  };
  auto assign = [&](Worker& w) {
    if (queue.empty() || w.busy) return;
    if (w.pid < 0 || w.assigned >= options.recycleAfter) {
      if (w.pid >= 0) {  // recycle: it exits after its last program
        ::close(w.commands);
        w.commands = -1;
        int status = 0;
        ::waitpid(w.pid, &status, 0);
        closeWorker(w);
      }
      spawn(w);
    }
    const uint64_t seed = queue.front();
    if (!writeAll(w.commands, &seed, sizeof seed)) {
      bury(w, "", false);
      return;  // the seed stays queued; the next round respawns
    }
    queue.pop_front();
    w.busy = true;
    w.seed = seed;
    w.started = Clock::now();
    ++w.assigned;
  };

  const Clock::time_point begin = Clock::now();
  auto running = [&] {
    for (const Worker& w : workers)
      if (w.pid >= 0 && w.busy) return true;
    return false;
  };
  while (!queue.empty() || running()) {
    if (options.deadlineSeconds > 0 &&
        std::chrono::duration<double>(Clock::now() - begin).count() > options.deadlineSeconds)
      queue.clear();  // past the deadline: what runs now finishes, nothing new starts
    for (Worker& w : workers) assign(w);
    std::vector<pollfd> fds;
    std::vector<Worker*> owners;
    int timeoutMs = 1000;
    const Clock::time_point now = Clock::now();
    for (Worker& w : workers) {
      if (w.pid < 0) continue;
      fds.push_back({w.results, POLLIN, 0});
      owners.push_back(&w);
      if (w.busy) {
        const double left = options.timeoutSeconds - std::chrono::duration<double>(now - w.started).count();
        timeoutMs = std::min(timeoutMs, std::max(0, static_cast<int>(left * 1000) + 1));
      }
    }
    if (fds.empty()) continue;
    int ready = ::poll(fds.data(), fds.size(), timeoutMs);
    if (ready < 0 && errno != EINTR) throw std::runtime_error("poll failed");
    for (size_t i = 0; i < fds.size(); ++i) {
      Worker& w = *owners[i];
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char type;
      if (!readAll(w.results, &type, 1)) {
        bury(w, "", false);
        continue;
      }
      if (type == 'S') {
        uint64_t seed;
        if (!readAll(w.results, &seed, sizeof seed)) {
          bury(w, "", false);
          continue;
        }
        w.seed = seed;
        w.started = Clock::now();
        continue;
      }
      ResultHeader h;
      std::string message, features;
      if (!readAll(w.results, &h, sizeof h)) {
        bury(w, "", false);
        continue;
      }
      message.resize(h.messageLength);
      features.resize(h.featuresLength);
      if (!readAll(w.results, message.data(), message.size()) ||
          !readAll(w.results, features.data(), features.size())) {
        bury(w, "", false);
        continue;
      }
      SeedResult r;
      r.seed = h.seed;
      r.outcome.kind = static_cast<OutcomeKind>(h.kind);
      unpackCounts(h.counts, r.outcome);
      r.outcome.message = std::move(message);
      r.outcome.features = splitFeatures(features);
      r.seconds = h.seconds;
      w.busy = false;
      // A worker exits after a failure (workerMain): it must not be handed the next seed, which
      // it would never read (and whose EOF would then look like a crash of that seed).
      if (r.outcome.kind != OutcomeKind::Ok) w.assigned = options.recycleAfter;
      record(std::move(r));
    }
    // Hangs: a program past the time limit.
    const Clock::time_point later = Clock::now();
    for (Worker& w : workers)
      if (w.pid >= 0 && w.busy &&
          std::chrono::duration<double>(later - w.started).count() > options.timeoutSeconds)
        bury(w, "timed out after " + seconds(options.timeoutSeconds) + " s (a hang?)", true);
  }
  for (Worker& w : workers)
    if (w.pid >= 0) {
      ::close(w.commands);
      w.commands = -1;
      int status = 0;
      ::waitpid(w.pid, &status, 0);
      closeWorker(w);
    }
  std::vector<SeedResult> out;
  for (auto& [seed, r] : results) out.push_back(std::move(r));
  return out;
}

}  // namespace tgrandom
