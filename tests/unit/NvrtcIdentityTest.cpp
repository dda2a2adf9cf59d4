//===- NvrtcIdentityTest.cpp - NVRTC's version remembered in the cache dir -===//
//
// A warm start must not load NVRTC just to read its version (NvrtcIdentity.cpp): the version
// is remembered per library file. These tests check the remembering, what invalidates it (a
// different file identity, a damaged file), and that the value agrees with NVRTC itself.
//
//===----------------------------------------------------------------------===//
#include "tg/Runtime/Nvrtc.h"

#include "BoundedChild.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

class NvrtcIdentityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (fs::temp_directory_path() / ("tg-nvrtc-id-" + std::to_string(::getpid()))).string();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_;
};

TEST_F(NvrtcIdentityTest, RemembersPerLibraryIdentity) {
  EXPECT_FALSE(tg::rt::readRememberedNvrtcVersion(dir_, "lib A 1 2").has_value());
  tg::rt::rememberNvrtcVersion(dir_, "lib A 1 2", 13000);
  EXPECT_EQ(tg::rt::readRememberedNvrtcVersion(dir_, "lib A 1 2"), 13000);
  // Another file (a new toolkit, the same file rewritten) is not answered from memory.
  EXPECT_FALSE(tg::rt::readRememberedNvrtcVersion(dir_, "lib A 1 3").has_value());
  EXPECT_FALSE(tg::rt::readRememberedNvrtcVersion(dir_, "").has_value());
  tg::rt::rememberNvrtcVersion(dir_, "lib B 5 6", 13010);
  EXPECT_EQ(tg::rt::readRememberedNvrtcVersion(dir_, "lib B 5 6"), 13010);
  EXPECT_FALSE(tg::rt::readRememberedNvrtcVersion(dir_, "lib A 1 2").has_value());
  for (const auto& e : fs::directory_iterator(dir_))  // no temporary file left behind
    EXPECT_EQ(e.path().filename(), "nvrtc-version");
}

TEST_F(NvrtcIdentityTest, DamagedFileIsIgnored) {
  for (const char* text : {"", "no tab here\n", "lib A 1 2\tnot-a-number\n", "lib A 1 2\t-5\n",
                           "lib A 1 2\t13000junk\n"}) {
    std::ofstream(dir_ + "/nvrtc-version", std::ios::trunc) << text;
    EXPECT_FALSE(tg::rt::readRememberedNvrtcVersion(dir_, "lib A 1 2").has_value()) << text;
  }
  EXPECT_FALSE(tg::rt::readRememberedNvrtcVersion(dir_ + "/missing", "lib A 1 2").has_value());
}

TEST_F(NvrtcIdentityTest, AgreesWithNvrtcAndIsRememberedForTheNextProcess) {
  if (!tg::rt::nvrtcAvailable()) GTEST_SKIP() << "NVRTC is not available";
  const std::string identity = tg::rt::nvrtcLibraryIdentity();
  if (identity.empty()) GTEST_SKIP() << "NVRTC is found only through the loader's own search";
  EXPECT_NE(identity.find("libnvrtc.so"), std::string::npos) << identity;
  const int version = tg::rt::nvrtcVersionRemembered(dir_);
  EXPECT_EQ(version, tg::rt::nvrtcVersion());
  EXPECT_EQ(tg::rt::readRememberedNvrtcVersion(dir_, identity), version);
  EXPECT_EQ(tg::rt::nvrtcVersionRemembered(dir_), version);  // now answered from the file
}

TEST_F(NvrtcIdentityTest, UnwritableDirectoryStillAnswers) {
  if (!tg::rt::nvrtcAvailable()) GTEST_SKIP() << "NVRTC is not available";
  EXPECT_EQ(tg::rt::nvrtcVersionRemembered(dir_ + "/does/not/exist"), tg::rt::nvrtcVersion());
}

TEST_F(NvrtcIdentityTest, OddFilesAreNeverReadAndGetReplaced) {
  // A FIFO or a link to /dev/zero at the file's name: reading it must not hang or read until
  // memory runs out (the child is bounded so that a regression fails instead); remembering
  // replaces it with a regular file.
  const std::string file = dir_ + "/nvrtc-version";
  for (const char* kind : {"fifo", "link to /dev/zero"}) {
    fs::remove(file);
    if (kind[0] == 'f')
      ASSERT_EQ(::mkfifo(file.c_str(), 0600), 0);
    else
      fs::create_symlink("/dev/zero", file);
    std::string how = tg::test::runInBoundedChild(
        [&] {
          if (tg::rt::readRememberedNvrtcVersion(dir_, "lib A 1 2")) return 1;
          tg::rt::rememberNvrtcVersion(dir_, "lib A 1 2", 13000);
          return tg::rt::readRememberedNvrtcVersion(dir_, "lib A 1 2") == 13000 ? 0 : 2;
        },
        {.seconds = 20, .extraAddressSpace = 512ull << 20});
    EXPECT_EQ(how, "") << kind;
    EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(file))) << kind;
  }
}

TEST_F(NvrtcIdentityTest, AFileSizeLimitOnlyCostsTheRemembering) {
  std::string how = tg::test::runInBoundedChild(
      [&] {
        tg::rt::rememberNvrtcVersion(dir_, "lib A 1 2", 13000);  // a line longer than the limit
        return tg::rt::readRememberedNvrtcVersion(dir_, "lib A 1 2") ? 1 : 0;
      },
      {.fileSizeLimit = 8});
  EXPECT_EQ(how, "");
  EXPECT_TRUE(fs::is_empty(dir_)) << "a temporary file was left behind";
}

}  // namespace
