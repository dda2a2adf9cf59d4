//===- FileIOTest.cpp - tg::writeFileAtomically: targets, failures, SIGXFSZ ===//
//
// The helper behind `tgc run --output`, the dump files and the kernel cache's entries
// (tg/Support/FileIO.h). writeNpy's and the cache's own tests cover their callers; these
// cover what only the helper decides: each TargetPolicy on each kind of file, and that a
// file-size limit leaves neither a temporary file nor a pending signal behind.
//
//===----------------------------------------------------------------------===//
#include "tg/Support/FileIO.h"

#include "BoundedChild.h"
#include "ScratchDir.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using tg::TargetPolicy;
using tg::writeFileAtomically;

class FileIO : public tg::test::ScratchDirTest {};

TEST_F(FileIO, PiecesAreConcatenatedAndAFileReplaced) {
  std::string p = path("f");
  std::ofstream(p) << "old";
  EXPECT_FALSE(writeFileAtomically(p, {"ab", "", "cd"}, TargetPolicy::UserPath));
  EXPECT_EQ(slurp(p), "abcd");
  EXPECT_FALSE(writeFileAtomically(p, {"e"}, TargetPolicy::OwnedName));
  EXPECT_EQ(slurp(p), "e");
  EXPECT_EQ(listing(), std::vector<std::string>{"f"});
}

TEST_F(FileIO, AnOwnedNameReplacesALinkOrAFifoWithoutFollowingIt) {
  std::string target = path("target"), link = path("link"), fifo = path("fifo");
  std::ofstream(target) << "keep";
  fs::create_symlink(target, link);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(writeFileAtomically(link, {"new"}, TargetPolicy::OwnedName));
  EXPECT_FALSE(writeFileAtomically(fifo, {"new"}, TargetPolicy::OwnedName));  // never opened
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(link)));
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(fifo)));
  EXPECT_EQ(slurp(link), "new");
  EXPECT_EQ(slurp(target), "keep");
}

TEST_F(FileIO, ADirectoryIsRefusedUnderBothPolicies) {
  fs::create_directory(path("d"));
  for (TargetPolicy policy : {TargetPolicy::UserPath, TargetPolicy::OwnedName}) {
    tg::WriteFailure failed = writeFileAtomically(path("d"), {"x"}, policy);
    ASSERT_TRUE(failed);
    EXPECT_EQ(failed.message, path("d") + ": is a directory");
    EXPECT_TRUE(failed.atTarget);
    EXPECT_EQ(failed.error, EISDIR);
  }
  EXPECT_EQ(listing(), std::vector<std::string>{"d"});
}

TEST_F(FileIO, AUserPathFollowsAChainOfLinks) {
  fs::create_directory(path("sub"));
  std::string real = path("sub/real");
  std::ofstream(real) << "old";
  fs::create_symlink("sub/real", path("a"));
  fs::create_symlink("a", path("b"));
  EXPECT_FALSE(writeFileAtomically(path("b"), {"new"}, TargetPolicy::UserPath));
  EXPECT_TRUE(fs::is_symlink(path("a")));
  EXPECT_TRUE(fs::is_symlink(path("b")));
  EXPECT_EQ(slurp(real), "new");
  // A link to a directory is refused like the directory.
  fs::create_symlink("sub", path("todir"));
  tg::WriteFailure failed = writeFileAtomically(path("todir"), {"x"}, TargetPolicy::UserPath);
  EXPECT_EQ(failed.message, path("todir") + ": is a directory");
  EXPECT_EQ(listing(), (std::vector<std::string>{"a", "b", "sub", "todir"}));
}

TEST_F(FileIO, ASocketIsRefused) {
  std::string p = path("sock");
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(p.size(), sizeof addr.sun_path);
  std::copy(p.begin(), p.end(), addr.sun_path);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  tg::WriteFailure failed = writeFileAtomically(p, {"x"}, TargetPolicy::UserPath);
  ::close(fd);
  EXPECT_EQ(failed.message,
            p + ": is a socket; tg writes regular files, FIFOs and character devices only");
  EXPECT_TRUE(fs::is_socket(p));
}

TEST_F(FileIO, AFileSizeLimitLeavesNoSignalPendingAndTheMaskAsItWas) {
  std::string p = path("big");
  std::string how = tg::test::runInBoundedChild(
      [&] {
        tg::WriteFailure failed =
            writeFileAtomically(p, {std::string(8192, 'x')}, TargetPolicy::UserPath);
        if (!failed || failed.error != EFBIG) return 1;
        sigset_t pending, mask;
        sigemptyset(&pending);
        sigpending(&pending);
        if (sigismember(&pending, SIGXFSZ)) return 2;  // it would kill us once unblocked
        pthread_sigmask(SIG_SETMASK, nullptr, &mask);
        if (sigismember(&mask, SIGXFSZ)) return 3;  // the mask must be restored
        return 0;
      },
      {.fileSizeLimit = 4096});
  EXPECT_EQ(how, "");
  EXPECT_TRUE(listing().empty()) << listing()[0];
}

}  // namespace
