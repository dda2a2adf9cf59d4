//===- DiskCacheTest.cpp - The on-disk kernel cache's failure modes (CPU) --===//
//
// The cache stores cubins from NVRTC, so every case runs without a GPU.
//
//===----------------------------------------------------------------------===//
#include "tg/Runtime/DiskCache.h"
#include "tg/Runtime/Nvrtc.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using tg::rt::DiskCache;
using tg::rt::KernelSource;

/// A fresh directory per test, removed afterwards.
class DiskCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tg-cache-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    if (!tg::rt::nvrtcAvailable()) GTEST_SKIP() << "NVRTC is not available";
  }
  void TearDown() override { fs::remove_all(dir_); }

  KernelSource kernel(const std::string& body = "out[0] = 1.0f;") const {
    KernelSource k;
    k.name = "tg_test_kernel";
    k.source = "extern \"C\" __global__ void tg_test_kernel(float* out) {\n  " + body + "\n}\n";
    return k;
  }
  tg::rt::KernelKey key(const KernelSource& k, const std::string& arch = "sm_80") const {
    return tg::rt::kernelKey(k, arch, /*driverVersion=*/13000);
  }
  fs::path onlyEntry() const {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir_ / "kernels")) files.push_back(e.path());
    EXPECT_EQ(files.size(), 1u);
    return files.empty() ? fs::path() : files[0];
  }
  static std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  static void write(const fs::path& p, const std::string& bytes) {
    std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
  }

  fs::path dir_;
};

TEST_F(DiskCacheTest, AFreshProcessLoadsWhatAnotherStored) {
  KernelSource k = kernel();
  bool fromDisk = true;
  double ms = 0;
  {
    DiskCache first(dir_.string());
    std::string cubin = tg::rt::cubinFor(&first, k, key(k), &fromDisk, &ms);
    EXPECT_FALSE(fromDisk);
    EXPECT_GT(ms, 0);
    EXPECT_FALSE(cubin.empty());
  }
  DiskCache second(dir_.string());  // as a new process would
  double ms2 = 0;
  std::string again = tg::rt::cubinFor(&second, k, key(k), &fromDisk, &ms2);
  EXPECT_TRUE(fromDisk);
  EXPECT_EQ(ms2, 0);
  EXPECT_EQ(again, *second.load(key(k), k.name));
  EXPECT_TRUE(second.problems().empty());
}

TEST_F(DiskCacheTest, CorruptEntriesAreReportedOnceAndRecompiled) {
  KernelSource k = kernel();
  DiskCache cache(dir_.string());
  std::string cubin = tg::rt::cubinFor(&cache, k, key(k));
  fs::path entry = onlyEntry();
  std::string bytes = read(entry);
  bytes[bytes.size() / 2] ^= 0x5a;  // a flipped byte in the middle
  write(entry, bytes);

  EXPECT_FALSE(cache.load(key(k), k.name).has_value());
  EXPECT_FALSE(cache.load(key(k), k.name).has_value());
  ASSERT_EQ(cache.problems().size(), 1u);  // reported once
  EXPECT_NE(cache.problems()[0].find("checksum mismatch"), std::string::npos);
  bool fromDisk = true;
  EXPECT_EQ(tg::rt::cubinFor(&cache, k, key(k), &fromDisk), cubin);  // recompiled ...
  EXPECT_FALSE(fromDisk);
  EXPECT_EQ(*cache.load(key(k), k.name), cubin);  // ... and the entry rewritten
}

TEST_F(DiskCacheTest, TruncatedAndForeignEntriesAreNeverTrusted) {
  KernelSource k = kernel();
  DiskCache cache(dir_.string());
  (void)tg::rt::cubinFor(&cache, k, key(k));
  fs::path entry = onlyEntry();
  std::string bytes = read(entry);
  write(entry, bytes.substr(0, bytes.size() - 20));
  EXPECT_FALSE(cache.load(key(k), k.name).has_value());
  write(entry, "this is not a tg cache entry at all");
  EXPECT_FALSE(cache.load(key(k), k.name).has_value());
  std::string other = bytes;
  other[8] = 99;  // another format version
  write(entry, other);
  EXPECT_FALSE(cache.load(key(k), k.name).has_value());
  std::vector<std::string> problems = cache.problems();
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_NE(problems[0].find("truncated"), std::string::npos) << problems[0];
  EXPECT_NE(problems[1].find("bad magic"), std::string::npos) << problems[1];
  EXPECT_NE(problems[2].find("another tg version"), std::string::npos) << problems[2];
}

TEST_F(DiskCacheTest, AnUnwritableDirectoryDegradesToMemoryOnce) {
  fs::create_directories(dir_);
  write(dir_ / "blocker", "a file where the cache directory should be");
  DiskCache cache((dir_ / "blocker" / "cache").string());
  KernelSource k = kernel();
  std::string cubin = tg::rt::cubinFor(&cache, k, key(k));  // still compiles
  EXPECT_FALSE(cubin.empty());
  EXPECT_FALSE(cache.writable());
  (void)tg::rt::cubinFor(&cache, kernel("out[0] = 2.0f;"), key(kernel("out[0] = 2.0f;")));
  ASSERT_EQ(cache.problems().size(), 1u);  // one warning, not one per kernel
  EXPECT_NE(cache.problems()[0].find("memory only"), std::string::npos);
}

TEST_F(DiskCacheTest, ConcurrentWritersAllSucceed) {
  KernelSource k = kernel();
  DiskCache prepare(dir_.string());
  std::string cubin = tg::rt::cubinFor(&prepare, k, key(k));
  std::vector<pid_t> children;
  for (int i = 0; i < 4; ++i) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {  // a separate process storing the same kernel again and again
      DiskCache cache(dir_.string());
      for (int n = 0; n < 50; ++n) {
        cache.store(key(k), k.name, cubin);
        std::optional<std::string> got = cache.load(key(k), k.name);
        if (got && *got != cubin) ::_exit(2);
      }
      ::_exit(cache.writable() && cache.problems().empty() ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  }
  std::vector<tg::rt::DiskEntryInfo> entries = prepare.list();
  ASSERT_EQ(entries.size(), 1u);  // one entry, valid, and no temporary files left behind
  EXPECT_TRUE(entries[0].valid);
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_ / "kernels")) ++files;
  EXPECT_EQ(files, 1u);
}

TEST_F(DiskCacheTest, AMissSaysWhichKeyFieldDiffered) {
  KernelSource k = kernel();
  DiskCache cache(dir_.string());
  (void)tg::rt::cubinFor(&cache, k, key(k, "sm_80"));
  EXPECT_EQ(cache.explainMiss(key(k, "sm_90a"), k.name), "arch: sm_80 -> sm_90a");
  KernelSource changed = kernel("out[0] = 3.0f;");
  EXPECT_EQ(cache.explainMiss(key(changed, "sm_80"), changed.name),
            "source: differs from line 2");
  tg::rt::KernelKey newer = key(k);
  newer.nvrtcVersion += 10;
  EXPECT_EQ(cache.explainMiss(newer, k.name),
            "nvrtc: " + std::to_string(key(k).nvrtcVersion) + " -> " +
                std::to_string(newer.nvrtcVersion));
  EXPECT_NE(cache.explainMiss(key(k), "tg_other").find("no entry for kernel 'tg_other'"),
            std::string::npos);
}

TEST_F(DiskCacheTest, ListAndClear) {
  DiskCache cache(dir_.string());
  (void)tg::rt::cubinFor(&cache, kernel(), key(kernel()));
  (void)tg::rt::cubinFor(&cache, kernel("out[0] = 5.0f;"), key(kernel("out[0] = 5.0f;")));
  std::vector<tg::rt::DiskEntryInfo> entries = cache.list();
  ASSERT_EQ(entries.size(), 2u);
  for (const auto& e : entries) {
    EXPECT_TRUE(e.valid);
    EXPECT_EQ(e.kernelName, "tg_test_kernel");
    EXPECT_EQ(e.arch, "sm_80");
    EXPECT_GT(e.bytes, 0u);
  }
  EXPECT_EQ(cache.clear(), 2u);
  EXPECT_TRUE(cache.list().empty());
}

}  // namespace
