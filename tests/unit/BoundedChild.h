//===- BoundedChild.h - Run a test body in a forked, bounded process -------===//
//
// For the file-failure tests: a body that may hang (a FIFO), eat memory (/dev/zero) or die of a
// signal (SIGXFSZ under a file-size limit) runs in a child process with an alarm and an address
// space bound, so that a regression fails the test instead of the machine.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <string>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace tg::test {

struct ChildLimits {
  unsigned seconds = 30;              ///< SIGALRM after this long (a hang)
  size_t extraAddressSpace = 1ull << 30;  ///< bytes of address space beyond what the parent maps
  long fileSizeLimit = -1;            ///< RLIMIT_FSIZE in bytes (-1: unchanged)
};

/// Runs `body` in a forked child under `limits`; returns "" when it exited with 0, else how it
/// ended ("exit 3", "killed by signal 25 (File size limit exceeded)"). `body` returns the
/// child's exit status; an exception in it is exit 99. Use EXPECT_* in the parent only.
inline std::string runInBoundedChild(const std::function<int()>& body, ChildLimits limits = {}) {
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) return "fork failed";
  if (pid == 0) {
    ::alarm(limits.seconds);
    long pages = 0;
    if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
      std::fclose(f);
    }
    rlimit as{};
    as.rlim_cur = as.rlim_max =
        static_cast<rlim_t>(pages) * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE)) +
        limits.extraAddressSpace;
    ::setrlimit(RLIMIT_AS, &as);
    if (limits.fileSizeLimit >= 0) {
      rlimit fs{};
      fs.rlim_cur = fs.rlim_max = static_cast<rlim_t>(limits.fileSizeLimit);
      ::setrlimit(RLIMIT_FSIZE, &fs);
    }
    int status = 99;
    try {
      status = body();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child: exception: %s\n", e.what());
    } catch (...) {
    }
    std::fflush(nullptr);
    ::_exit(status);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status))
    return WEXITSTATUS(status) == 0 ? "" : "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           ::strsignal(WTERMSIG(status)) + ")";
  return "status " + std::to_string(status);
}

}  // namespace tg::test
