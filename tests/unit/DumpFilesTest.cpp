//===- DumpFilesTest.cpp - TG_DUMP / `tgc dump --out-dir` files under failure ===//
//
// compiler::directorySink writes each artifact through tg::writeFileAtomically. A dump that
// cannot be written must never throw or kill a user's program (TG_DUMP): it is reported on
// stderr once. These cases need no GPU.
//
//===----------------------------------------------------------------------===//
#include "tg/Compiler/Driver.h"

#include "BoundedChild.h"
#include "ScratchDir.h"

#include <tg/tg.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

class DumpFiles : public tg::test::ScratchDirTest {
 protected:
  /// Every file in `d` as "name size", sorted.
  std::vector<std::string> sizes(const fs::path& d) const {
    std::vector<std::string> out;
    for (const std::string& name : listing(d))
      out.push_back(name + " " + std::to_string(fs::is_regular_file(d / name)
                                                    ? fs::file_size(d / name)
                                                    : 0));
    return out;
  }
};

TEST_F(DumpFiles, AFileSizeLimitFailsOneFileAndKillsNothing) {
  fs::path out = dir_ / "dump";
  std::string how = tg::test::runInBoundedChild(
      [&] {
        tg::compiler::ArtifactSink sink = tg::compiler::directorySink(out.string(), "t");
        sink({"traced", "0-traced.mlir", "small\n"});
        sink({"cuda", "k.cu", std::string(64 * 1024, 'x')});  // above the 4 KiB limit
        sink({"plan", "plan.txt", "also small\n"});
        return 0;
      },
      {.fileSizeLimit = 4096});
  EXPECT_EQ(how, "");
  // The small files are there; the large one is not, and neither is a temporary or empty file.
  EXPECT_EQ(sizes(out), (std::vector<std::string>{"t.0-traced.mlir 6", "t.plan.txt 11"}));
}

TEST_F(DumpFiles, TgDumpInAProgramReportsOnceAndRuns) {
  fs::path err = dir_ / "stderr.txt";
  fs::path dump = dir_ / "dump";
  std::string how = tg::test::runInBoundedChild(
      [&] {
        int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || ::dup2(fd, 2) < 0) return 10;
        ::setenv("TG_DUMP", dump.c_str(), 1);
        auto f = tg::jit([](const tg::Tensor& x) { return tg::exp(x) * 2.0f + x; });
        auto g = tg::jit([](const tg::Tensor& x) { return tg::relu(x) - 1.0f; });
        std::vector<float> y = f(tg::full({4}, 0.0f)).to_vector();
        std::vector<float> z = g(tg::full({4}, 3.0f)).to_vector();
        return y == std::vector<float>(4, 2.0f) && z == std::vector<float>(4, 2.0f) ? 0 : 1;
      },
      {.fileSizeLimit = 2048});  // each CUDA source and PTX is larger: those dumps fail
  EXPECT_EQ(how, "");
  std::string text = slurp(err);
  size_t reports = 0;
  for (size_t at = 0; (at = text.find("tg: cannot write dump files to " + dump.string(), at)) !=
                      std::string::npos;
       ++at)
    ++reports;
  EXPECT_EQ(reports, 1u) << text;  // once, not once per file or per function
  for (const std::string& f : listing(dump)) EXPECT_EQ(f.find(".tmp"), std::string::npos) << f;
}

}  // namespace
