//===- DiskCacheTest.cpp - The on-disk kernel cache's failure modes (CPU) --===//
//
// The cache stores cubins from NVRTC, so every case runs without a GPU.
//
//===----------------------------------------------------------------------===//
#include "tg/Runtime/DiskCache.h"
#include "tg/Runtime/Nvrtc.h"

#include "BoundedChild.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sys/stat.h>
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

//===----------------------------------------------------------------------===//
// Odd files at an entry's path (issue 13, item 9) and failing stores (item 8)
//===----------------------------------------------------------------------===//

class DiskCacheOddFiles : public DiskCacheTest {
 protected:
  /// The path of `k`'s entry (stored once by a cache that then goes away, file removed).
  fs::path entryPathOf(const KernelSource& k) {
    std::set<fs::path> before = files();
    {
      DiskCache cache(dir_.string());
      (void)tg::rt::cubinFor(&cache, k, key(k));
    }
    for (const fs::path& p : files())
      if (!before.count(p)) {
        fs::remove(p);
        return p;
      }
    ADD_FAILURE() << "no entry was stored";
    return {};
  }
  std::set<fs::path> files() const {
    std::set<fs::path> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir_ / "kernels", ec)) out.insert(e.path());
    return out;
  }
  static bool mentions(const std::vector<std::string>& problems, const std::string& what) {
    for (const std::string& p : problems)
      if (p.find(what) != std::string::npos) return true;
    return false;
  }
};

TEST_F(DiskCacheOddFiles, ADirectoryAtAnEntryPathBlocksOnlyThatEntry) {
  KernelSource a = kernel(), b = kernel("out[0] = 2.0f;");
  fs::path entry = entryPathOf(a);
  fs::create_directory(entry);
  DiskCache cache(dir_.string());
  EXPECT_FALSE(cache.load(key(a), a.name).has_value());
  std::string cubin = tg::rt::cubinFor(&cache, a, key(a));  // compiles; cannot be stored
  EXPECT_FALSE(cubin.empty());
  EXPECT_TRUE(cache.writable()) << "one blocked entry turned the disk cache off";
  (void)tg::rt::cubinFor(&cache, b, key(b));
  EXPECT_TRUE(cache.load(key(b), b.name).has_value()) << "other kernels must still be stored";
  (void)cache.load(key(a), a.name);
  std::vector<std::string> problems = cache.problems();
  EXPECT_TRUE(mentions(problems, entry.string() + ": a directory"))
      << ::testing::PrintToString(problems);
  EXPECT_EQ(problems.size(), 2u) << ::testing::PrintToString(problems);  // read once, store once

  std::vector<tg::rt::DiskEntryInfo> entries = cache.list();
  ASSERT_EQ(entries.size(), 2u);
  for (const auto& e : entries)
    if (e.file == entry.string()) {
      EXPECT_FALSE(e.valid);
      EXPECT_EQ(e.bytes, 0u);
    }
  EXPECT_EQ(cache.clear(), 2u);  // the entry and the empty directory
  EXPECT_TRUE(files().empty());
}

TEST_F(DiskCacheOddFiles, ClearNeverRemovesADirectoryThatHoldsFiles) {
  fs::path entry = dir_ / "kernels" / "0123456789abcdef.tgk";
  fs::create_directories(entry);
  write(entry / "notes.txt", "someone's files");
  DiskCache cache(dir_.string());
  EXPECT_EQ(cache.clear(), 0u);
  EXPECT_TRUE(fs::exists(entry / "notes.txt"));
  EXPECT_TRUE(mentions(cache.problems(), entry.string() + ": a directory"))
      << ::testing::PrintToString(cache.problems());
}

TEST_F(DiskCacheOddFiles, AFifoAtAnEntryPathIsACorruptEntryNotAHang) {
  KernelSource k = kernel();
  fs::path entry = entryPathOf(k);
  ASSERT_EQ(::mkfifo(entry.c_str(), 0600), 0);
  std::string how = tg::test::runInBoundedChild(
      [&] {
        DiskCache cache(dir_.string());
        if (cache.load(key(k), k.name)) return 1;
        if (cache.load(key(k), k.name)) return 1;
        if (cache.problems().size() != 1 || !mentions(cache.problems(), "a FIFO")) return 2;
        (void)cache.explainMiss(key(k, "sm_90a"), k.name);
        std::vector<tg::rt::DiskEntryInfo> entries = cache.list();
        if (entries.size() != 1 || entries[0].valid || entries[0].bytes != 0) return 3;
        (void)tg::rt::cubinFor(&cache, k, key(k));  // the store replaces the FIFO
        return cache.load(key(k), k.name) ? 0 : 4;
      },
      {.seconds = 20});
  EXPECT_EQ(how, "");
  EXPECT_TRUE(fs::is_regular_file(entry));
}

TEST_F(DiskCacheOddFiles, ASymlinkAtAnEntryPathIsNeverFollowed) {
  KernelSource k = kernel();
  fs::path entry = entryPathOf(k);
  fs::create_symlink("/dev/zero", entry);
  std::string how = tg::test::runInBoundedChild(
      [&] {
        DiskCache cache(dir_.string());
        if (cache.load(key(k), k.name)) return 1;
        if (cache.problems().size() != 1 || !mentions(cache.problems(), "a symbolic link"))
          return 2;
        (void)cache.explainMiss(key(k, "sm_90a"), k.name);
        std::vector<tg::rt::DiskEntryInfo> entries = cache.list();
        if (entries.size() != 1 || entries[0].valid || entries[0].bytes != 0) return 3;
        (void)tg::rt::cubinFor(&cache, k, key(k));  // the store replaces the link
        return cache.load(key(k), k.name) ? 0 : 4;
      },
      {.seconds = 20, .extraAddressSpace = 512ull << 20});
  EXPECT_EQ(how, "");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(entry)));
}

TEST_F(DiskCacheOddFiles, AnEntryAboveTheSizeLimitIsNotRead) {
  KernelSource k = kernel();
  fs::path entry = entryPathOf(k);
  write(entry, "TGKCACHE");
  fs::resize_file(entry, 300ull << 20);  // sparse: costs no disk
  std::string how = tg::test::runInBoundedChild(
      [&] {
        DiskCache cache(dir_.string());
        if (cache.load(key(k), k.name)) return 1;
        if (!mentions(cache.problems(), "larger than")) return 2;
        (void)cache.explainMiss(key(k, "sm_90a"), k.name);
        std::vector<tg::rt::DiskEntryInfo> entries = cache.list();
        return entries.size() == 1 && !entries[0].valid ? 0 : 3;
      },
      {.seconds = 20, .extraAddressSpace = 128ull << 20});
  EXPECT_EQ(how, "");
}

TEST_F(DiskCacheOddFiles, AnEntryCopiedOverAnothersIsReportedOnce) {
  KernelSource a = kernel(), b = kernel("out[0] = 2.0f;");
  DiskCache cache(dir_.string());
  std::string cubinA = tg::rt::cubinFor(&cache, a, key(a));
  fs::path pathA = *files().begin();
  std::string cubinB = tg::rt::cubinFor(&cache, b, key(b));
  std::set<fs::path> both = files();
  ASSERT_EQ(both.size(), 2u);
  both.erase(pathA);
  fs::path pathB = *both.begin();
  fs::copy_file(pathA, pathB, fs::copy_options::overwrite_existing);

  EXPECT_FALSE(cache.load(key(b), b.name).has_value());
  EXPECT_FALSE(cache.load(key(b), b.name).has_value());
  ASSERT_EQ(cache.problems().size(), 1u);
  EXPECT_NE(cache.problems()[0].find(pathB.string() + ": holds the entry of another kernel"),
            std::string::npos)
      << cache.problems()[0];
  bool fromDisk = true;
  EXPECT_EQ(tg::rt::cubinFor(&cache, b, key(b), &fromDisk), cubinB);  // recompiled ...
  EXPECT_FALSE(fromDisk);
  EXPECT_EQ(*cache.load(key(b), b.name), cubinB);  // ... and rewritten
  EXPECT_EQ(*cache.load(key(a), a.name), cubinA);
}

TEST_F(DiskCacheOddFiles, AFileSizeLimitKeepsKernelsInMemoryInsteadOfKilling) {
  KernelSource k = kernel();
  std::string how = tg::test::runInBoundedChild(
      [&] {
        DiskCache cache(dir_.string());
        cache.store(key(k), k.name, std::string(64 * 1024, 'x'));  // the limit is 4 KiB
        std::vector<std::string> problems = cache.problems();
        for (const std::string& p : problems) std::fprintf(stderr, "child: %s\n", p.c_str());
        if (cache.writable() || problems.size() != 1) return 1;
        return mentions(problems, "File too large") && mentions(problems, "memory only") ? 0 : 2;
      },
      {.fileSizeLimit = 4096});
  EXPECT_EQ(how, "");
  EXPECT_TRUE(files().empty()) << "a temporary file was left behind";
}

}  // namespace
