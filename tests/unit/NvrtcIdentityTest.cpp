//===- NvrtcIdentityTest.cpp - NVRTC's version remembered in the cache dir -===//
//
// A warm start must not load NVRTC just to read its version (NvrtcIdentity.cpp): the version
// is remembered per library file. These tests check the remembering, what invalidates it (a
// different file identity, a damaged file), and that the value agrees with NVRTC itself.
//
//===----------------------------------------------------------------------===//
#include "tg/Runtime/Nvrtc.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
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

}  // namespace
