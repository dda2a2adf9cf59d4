//===- FileIO.cpp - Temp file, checked writes, rename; bounded regular reads ===//
//
// See FileIO.h for the policy. Every system call's result is checked; the first failure of a
// write removes the temporary file and is returned with its errno text.
//
//===----------------------------------------------------------------------===//
#include "tg/Support/FileIO.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tg {

namespace {

/// "<path>: <what>: <strerror(err)>".
WriteFailure failure(const std::string& path, const std::string& what, int err,
                     bool atTarget = false) {
  return {path + ": " + what + ": " + std::strerror(err), err, atTarget};
}

/// A refusal because of what is at the path: "<path>: <what>" (the errno would only repeat it).
WriteFailure refusal(const std::string& path, const std::string& what, int err) {
  return {path + ": " + what, err, /*atTarget=*/true};
}

/// Blocks SIGXFSZ in this thread while alive, so that a write(2) past RLIMIT_FSIZE fails with
/// EFBIG instead of killing the process; consumes the SIGXFSZ such a write left pending (unless
/// one was pending already, which is not ours to take).
class FileSizeSignalBlocked {
 public:
  FileSizeSignalBlocked() {
    sigemptyset(&xfsz_);
    sigaddset(&xfsz_, SIGXFSZ);
    pthread_sigmask(SIG_BLOCK, &xfsz_, &old_);
    pendingBefore_ = pending();
  }
  ~FileSizeSignalBlocked() {
    if (!pendingBefore_ && pending()) {
      const int saved = errno;
      timespec now{0, 0};
      while (sigtimedwait(&xfsz_, nullptr, &now) < 0 && errno == EINTR) {
      }
      errno = saved;
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  FileSizeSignalBlocked(const FileSizeSignalBlocked&) = delete;
  FileSizeSignalBlocked& operator=(const FileSizeSignalBlocked&) = delete;

 private:
  static bool pending() {
    sigset_t set;
    sigemptyset(&set);
    return sigpending(&set) == 0 && sigismember(&set, SIGXFSZ) == 1;
  }
  sigset_t xfsz_, old_;
  bool pendingBefore_ = false;
};

/// Writes every byte of `pieces` to `fd` (short writes continued, EINTR retried), with SIGXFSZ
/// blocked; returns 0 or the errno of the failed write.
int writeAll(int fd, std::initializer_list<std::string_view> pieces) {
  FileSizeSignalBlocked blocked;
  for (std::string_view piece : pieces) {
    const char* p = piece.data();
    size_t n = piece.size();
    while (n > 0) {
      ssize_t w = ::write(fd, p, std::min<size_t>(n, size_t{1} << 30));
      if (w < 0) {
        if (errno == EINTR) continue;
        return errno;
      }
      if (w == 0) return EIO;  // write(2) of a non-zero count never returns 0 for files
      p += w;
      n -= static_cast<size_t>(w);
    }
  }
  return 0;
}

/// "<target>.tmp.<pid>.<hex>": the pid keeps processes apart, the counter and the clock keep
/// threads and reused pids apart; O_EXCL settles the rest.
std::string temporaryNameFor(const std::string& target) {
  static std::atomic<uint64_t> counter{0};
  const uint64_t clock = static_cast<uint64_t>(
      std::chrono::steady_clock::now().time_since_epoch().count());
  char suffix[24];
  std::snprintf(suffix, sizeof suffix, "%08llx",
                static_cast<unsigned long long>((clock ^ (counter++ << 40)) & 0xffffffffffull));
  return target + ".tmp." + std::to_string(::getpid()) + "." + suffix;
}

/// Writes a temporary file next to `target` and renames it over `target`, fsync'ed first when
/// `durable`. `existing`, when given, is the regular file being replaced (its permission bits
/// are kept). Messages name `path`, the name the caller gave.
WriteFailure replaceAtomically(const std::string& path, const std::string& target,
                               std::initializer_list<std::string_view> pieces,
                               const struct stat* existing, bool durable) {
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
    tmp = temporaryNameFor(target);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) return failure(path, "cannot create the temporary file " + tmp, errno);
  auto discard = [&](const std::string& what, int err) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    return failure(path, what, err);
  };
  if (int err = writeAll(fd, pieces)) return discard("write error", err);
  if (existing && ::fchmod(fd, existing->st_mode & 0777) != 0)
    return discard("cannot set the permissions of " + tmp, errno);
  // EINVAL: the file system cannot sync this file (it still holds the data).
  if (durable && ::fsync(fd) != 0 && errno != EINVAL)
    return discard("write error (fsync)", errno);
  const int closing = fd;
  fd = -1;
  if (::close(closing) != 0) return discard("write error (close)", errno);
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return failure(path, target == path ? "cannot replace the file" : "cannot replace " + target,
                   err, err == EISDIR || err == ENOTEMPTY || err == EEXIST);
  }
  return {};
}

/// Writes `pieces` into the FIFO or character device at `path` (opened, never replaced).
WriteFailure writeInto(const std::string& path, std::initializer_list<std::string_view> pieces) {
  int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return failure(path, "cannot open for writing", errno);
  struct stat st;
  if (::fstat(fd, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
    ::close(fd);
    return refusal(path, "changed while it was opened (it is no longer a FIFO or a device)", 0);
  }
  if (int err = writeAll(fd, pieces)) {
    ::close(fd);
    return failure(path, "write error", err);
  }
  if (::close(fd) != 0) return failure(path, "write error (close)", errno);
  return {};
}

}  // namespace

WriteFailure writeFileAtomically(const std::string& path,
                                 std::initializer_list<std::string_view> pieces,
                                 TargetPolicy policy) {
  const bool durable = policy == TargetPolicy::UserPath;
  struct stat st;
  // Nothing there (or no way to look): write a new file; creating it names the reason.
  if (::lstat(path.c_str(), &st) != 0)
    return replaceAtomically(path, path, pieces, nullptr, durable);

  if (S_ISLNK(st.st_mode) && policy == TargetPolicy::UserPath) {
    struct stat target;
    if (::stat(path.c_str(), &target) != 0) {
      if (errno != ENOENT) return failure(path, "cannot follow the symbolic link", errno, true);
      char to[4096];
      ssize_t n = ::readlink(path.c_str(), to, sizeof to - 1);
      std::string where = n > 0 ? " (to " + std::string(to, static_cast<size_t>(n)) + ")" : "";
      return refusal(path, "a dangling symbolic link" + where + "; not writing through it",
                     ENOENT);
    }
    if (S_ISREG(target.st_mode)) {
      char* real = ::realpath(path.c_str(), nullptr);
      if (!real) return failure(path, "cannot resolve the symbolic link", errno, true);
      std::string resolved = real;
      std::free(real);
      return replaceAtomically(path, resolved, pieces, &target, durable);
    }
    st = target;  // a FIFO, a device or a directory behind the link: as if named directly
  }

  if (S_ISDIR(st.st_mode)) return refusal(path, "is a directory", EISDIR);
  if (policy == TargetPolicy::UserPath && !S_ISREG(st.st_mode)) {
    if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) return writeInto(path, pieces);
    return refusal(path,
                   std::string("is ") + fileKindOf(st.st_mode) +
                       "; tg writes regular files, FIFOs and character devices only",
                   EINVAL);
  }
  return replaceAtomically(path, path, pieces, S_ISREG(st.st_mode) ? &st : nullptr, durable);
}

RegularFileRead readRegularFile(const std::string& path, uint64_t maxBytes) {
  RegularFileRead out;
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno != ENOENT && errno != ENOTDIR)
      out.problem = std::string("cannot be read: ") + std::strerror(errno);
    return out;
  }
  if (!S_ISREG(st.st_mode)) {
    out.notRegular = fileKindOf(st.st_mode);
    return out;
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ELOOP) out.notRegular = fileKindOf(S_IFLNK);  // replaced by a link meanwhile
    else if (errno != ENOENT) out.problem = std::string("cannot be read: ") + std::strerror(errno);
    return out;
  }
  if (::fstat(fd, &st) != 0) {
    out.problem = std::string("cannot be read: ") + std::strerror(errno);
  } else if (!S_ISREG(st.st_mode)) {
    out.notRegular = fileKindOf(st.st_mode);
  } else if (out.size = static_cast<uint64_t>(st.st_size); out.size > maxBytes) {
    out.problem = std::to_string(out.size) + " bytes, larger than the limit of " +
                  std::to_string(maxBytes);
  } else {
    std::string bytes(static_cast<size_t>(out.size), '\0');
    size_t got = 0;
    while (got < bytes.size()) {
      ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        out.problem = std::string("read error: ") + std::strerror(errno);
        break;
      }
      if (n == 0) break;  // shorter than fstat said: the caller's format check sees it
      got += static_cast<size_t>(n);
    }
    bytes.resize(got);
    if (out.problem.empty()) out.bytes = std::move(bytes);
  }
  ::close(fd);
  return out;
}

const char* fileKindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "a special file";
}

}  // namespace tg
