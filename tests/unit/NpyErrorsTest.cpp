//===- NpyErrorsTest.cpp - .npy errors and odd write targets (tools/tgc/Npy.h) ===//
//
// Every error the reader reports (bad magic, versions, headers, shapes, dtypes, truncated or
// trailing data, pipes) and the writer's (failures leave no file), and the targets a write
// may meet: symlinks, FIFOs, character devices, permissions, file-size limits.
//
//===----------------------------------------------------------------------===//
#include "NpyTestSupport.h"

namespace {

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

class NpyErrors : public NpyTestBase {};

TEST_F(NpyErrors, MissingFileAndDirectory) {
  expectReadError(path("nope.npy"), {"cannot open", "No such file"});
  expectReadError(dir_.string(), {"read error", "Is a directory"});
}

TEST_F(NpyErrors, BadMagic) {
  expectReadError(put("empty.npy", ""), {"not a .npy file", "empty"});
  expectReadError(put("zip.npy", std::string("PK\x03\x04 not numpy at all")),  // 21 bytes
                  {"not a .npy file", "magic"});
  expectReadError(put("short.npy", "\x93NUM"), {"not a .npy file", "magic"});
  expectReadError(put("text.npy", "1.0, 2.0\n"), {"not a .npy file"});
}

TEST_F(NpyErrors, TruncatedPreamble) {
  expectReadError(put("a.npy", "\x93NUMPY\x01"), {"truncated", "version"});
  expectReadError(put("b.npy", std::string("\x93NUMPY\x01\x00\x76", 9)),
                  {"truncated", "header length"});
  // Version 2.0 has a 4-byte length: 2 bytes are not enough.
  expectReadError(put("c.npy", std::string("\x93NUMPY\x02\x00\x76\x00", 10)),
                  {"truncated", "header length"});
}

TEST_F(NpyErrors, UnsupportedVersion) {
  expectReadError(put("v4.npy", makeNpy(header("<f4", "(1,)"), f32Data({1}), 4)),
                  {"unsupported .npy format version 4.0", "1.0, 2.0 and 3.0"});
  std::string v11 = str(kF32);
  v11[7] = '\x01';
  expectReadError(put("v11.npy", v11), {"version 1.1"});
}

TEST_F(NpyErrors, TruncatedHeader) {
  expectReadError(put("t.npy", str(kF32).substr(0, 60)),
                  {"truncated header", "118 header bytes", "only 50"});
  // A lying 4 GiB header length in a tiny file.
  std::string lie = str(kV2);
  lie[8] = lie[9] = lie[10] = lie[11] = '\xff';
  expectReadError(put("lie.npy", lie), {"truncated header", "4294967295"});
}

TEST_F(NpyErrors, HeaderNotADict) {
  expectReadError(put("list.npy", makeNpy("['<f4', False, (2,)]\n", f32Data({1, 2}))),
                  {"malformed header", "not a Python dict literal"});
  expectReadError(put("blank.npy", makeNpy("        \n", "")),
                  {"malformed header", "not a Python dict literal"});
  expectReadError(put("open.npy", makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)",
                                          f32Data({1, 2}))),
                  {"malformed header", "unexpected end"});
  expectReadError(put("junk.npy", makeNpy(header("<f4", "(2,)") + "x", f32Data({1, 2}))),
                  {"malformed header", "after the dict"});
  expectReadError(put("quote.npy", makeNpy("{'descr: '<f4'}\n", "")), {"malformed header"});
  expectReadError(put("call.npy", makeNpy("{'descr': dtype('<f4')}\n", "")),
                  {"malformed header", "unexpected 'dtype'"});
  expectReadError(put("key.npy", makeNpy("{1: '<f4'}\n", "")),
                  {"malformed header", "key 1 is not a string"});
}

TEST_F(NpyErrors, MissingDuplicateOrExtraKeys) {
  const std::string data = f32Data({1, 2});
  expectReadError(put("d.npy", makeNpy("{'fortran_order': False, 'shape': (2,), }\n", data)),
                  {"'descr' key is missing"});
  expectReadError(put("f.npy", makeNpy("{'descr': '<f4', 'shape': (2,), }\n", data)),
                  {"'fortran_order' key is missing"});
  expectReadError(put("s.npy", makeNpy("{'descr': '<f4', 'fortran_order': False}\n", data)),
                  {"'shape' key is missing"});
  expectReadError(put("x.npy", makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), "
                                       "'extra': 1}\n", data)),
                  {"unexpected key 'extra'"});
  expectReadError(put("dup.npy", makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), "
                                         "'shape': (2,)}\n", data)),
                  {"duplicate key 'shape'"});
}

TEST_F(NpyErrors, ShapeNotATupleOfNonNegativeInts) {
  for (const char* shape : {"[2]", "2", "(2)", "(2, -1)", "(2, '3')", "((2,),)", "None",
                            "(True,)"}) {
    SCOPED_TRACE(shape);
    expectReadError(put("s.npy", makeNpy(header("<f4", shape), f32Data({1, 2}))),
                    {std::string("'shape' is ") + shape, "not a tuple of non-negative integers"});
  }
  expectReadError(put("f.npy", makeNpy(header("<f4", "(2.0,)"), f32Data({1, 2}))),
                  {"malformed header", "not an integer"});
  expectReadError(put("big.npy", makeNpy(header("<f4", "(99999999999999999999,)"), "")),
                  {"malformed header", "integer out of range"});
  expectReadError(put("huge.npy", makeNpy(header("<f4", "(4611686018427387904, 4)"), "")),
                  {"too large"});
}

TEST_F(NpyErrors, FortranOrder) {
  expectReadError(put("fortran.npy", kFortran),
                  {"Fortran", "column-major", "np.ascontiguousarray"});
  expectReadError(put("fo.npy", makeNpy(header("<f4", "(2,)", "0"), f32Data({1, 2}))),
                  {"'fortran_order' is 0, not True or False"});
}

TEST_F(NpyErrors, UnsupportedDTypes) {
  expectReadError(put("be.npy", kBigEndian), {"big-endian", "'>f4'", ".astype('<f4')"});
  expectReadError(put("f8.npy", makeNpy(header("<f8", "(1,)"), std::string(8, '\0'))),
                  {"'<f8'", "float64", ".astype(np.float32)"});
  expectReadError(put("i8.npy", makeNpy(header("<i8", "(1,)"), std::string(8, '\0'))),
                  {"'<i8'", "int64", ".astype(np.int32)"});
  for (const char* descr : {"|u1", "<u4", "<i2", "|i1", "<c8", "|V4", "<U3", "|O", "=f4", "f4"}) {
    SCOPED_TRACE(descr);
    expectReadError(put("u.npy", makeNpy(header(descr, "(1,)"), std::string(4, '\0'))),
                    {std::string("unsupported dtype '") + descr + "'", "'<f4'", "'|V2'"});
  }
  expectReadError(put("rec.npy", makeNpy("{'descr': [('a', '<f4')], 'fortran_order': False, "
                                         "'shape': (1,), }\n", f32Data({1}))),
                  {"structured dtypes are not supported", "[('a', '<f4')]"});
}

TEST_F(NpyErrors, DataShorterThanTheShape) {
  expectReadError(put("short.npy", str(kF32).substr(0, kF32.size() - 4)),
                  {"truncated data", "shape [2, 3] of f32 needs 24 data bytes", "only 20"});
  expectReadError(put("none.npy", str(kScalar).substr(0, 128)),
                  {"truncated data", "needs 4 data bytes", "only 0"});
  // A huge (but representable) shape must be reported, not allocated.
  expectReadError(put("huge.npy", makeNpy(header("<f4", "(1099511627776,)"), "")),
                  {"truncated data", "needs 4398046511104 data bytes"});
  // Past 2^48 bytes no tg tensor can hold it.
  expectReadError(put("huger.npy", makeNpy(header("<f4", "(1099511627776, 1024)"), "")),
                  {"f32[1099511627776, 1024] takes more than 2^48 bytes"});
}

/// Reads `contents` through a pipe (/proc/self/fd/N of its read end, fed by a thread), as
/// `tgc run --input /dev/stdin` does: a pipe has no size to check before allocating.
HostTensor readThroughPipe(const std::string& contents) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  std::thread writer([&] {
    for (size_t done = 0; done < contents.size();) {
      ssize_t n = ::write(fds[1], contents.data() + done, contents.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    ::close(fds[1]);
  });
  struct Joiner {
    std::thread& t;
    int fd;
    ~Joiner() {
      ::close(fd);  // a reader that stops early must not leave the writer blocked
      t.join();
    }
  } joiner{writer, fds[0]};
  return readNpy("/proc/self/fd/" + std::to_string(fds[0]));
}

TEST_F(NpyErrors, PipesAreReadAsTheDataArrives) {
  // The header announces 2^40 f32 elements (4 TiB): allocating that up front was an uncaught
  // std::bad_alloc. The reader grows its buffer with the bytes that arrive.
  std::string lying = makeNpy(header("<f4", "(1099511627776,)"), std::string(1000, '\0'));
  try {
    readThroughPipe(lying);
    ADD_FAILURE() << "no error for a truncated pipe";
  } catch (const tg::Error& e) {
    EXPECT_NE(e.message().find("truncated data: shape [1099511627776] of f32 needs "
                               "4398046511104 data bytes but only 1000 follow"),
              std::string::npos)
        << e.message();
  }
  // A good file through a pipe: the same tensor as from the file, also past the first 1 MiB
  // step of the buffer.
  std::vector<float> values(3 << 18);  // 3 MiB
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 0.5f;
  std::string data(values.size() * 4, '\0');
  std::memcpy(data.data(), values.data(), data.size());
  HostTensor t = readThroughPipe(makeNpy(header("<f4", "(786432,)"), data));
  EXPECT_EQ(t.shape(), (Shape{786432}));
  EXPECT_EQ(elements<float>(t), values);
}

TEST_F(NpyErrors, TrailingBytes) {
  expectReadError(put("extra.npy", str(kF32) + "xyz"),
                  {"3 unexpected bytes after the data", "needs 24 data bytes"});
  expectReadError(put("extra0.npy", str(kEmpty) + std::string(1, '\0')),
                  {"1 unexpected bytes after the data"});
}

TEST_F(NpyErrors, WriteFailuresLeaveNoFile) {
  HostTensor t = HostTensor::fromFloats(DType::F32, {2}, std::vector<float>{1, 2});
  std::string missingDir = path("no/such/dir/out.npy");
  expectError([&] { writeNpy(missingDir, t); }, missingDir,
              {"cannot create the temporary file", "No such file"});

  // The target is a directory: refused before any temporary file exists.
  fs::create_directory(path("sub"));
  std::string sub = path("sub");
  expectError([&] { writeNpy(sub, t); }, sub, {"is a directory"});
  EXPECT_EQ(listing(), std::vector<std::string>{"sub"});

  // A failed write leaves an existing file as it was.
  std::string keep = put("keep.npy", "old contents");
  expectError([&] { writeNpy(keep, HostTensor()); }, keep, {"undefined tensor"});
  EXPECT_EQ(slurp(keep), "old contents");
  EXPECT_EQ(listing(), (std::vector<std::string>{"keep.npy", "sub"}));
}

//===----------------------------------------------------------------------===//
// Odd targets and failing writes: symlinks, FIFOs, devices, file-size limits
//===----------------------------------------------------------------------===//

class NpyWriteTargets : public NpyTestBase {
 protected:
  HostTensor small() const {
    return HostTensor::fromFloats(DType::F32, {3}, std::vector<float>{1, 2, 3});
  }
  /// What writeNpy writes for `t` into a regular file.
  std::string bytesFor(const HostTensor& t) {
    std::string p = path("reference.npy");
    writeNpy(p, t);
    std::string bytes = slurp(p);
    fs::remove(p);
    return bytes;
  }
};

TEST_F(NpyWriteTargets, ASymlinkIsFollowedAndItsTargetReplaced) {
  std::string target = put("real.npy", "old contents");
  std::string link = path("link.npy");
  fs::create_symlink("real.npy", link);
  writeNpy(link, small());
  EXPECT_TRUE(fs::is_symlink(link)) << "the link itself was replaced";
  EXPECT_EQ(fs::read_symlink(link), "real.npy");
  EXPECT_EQ(elements<float>(readNpy(target)), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(listing(), (std::vector<std::string>{"link.npy", "real.npy"}));
}

TEST_F(NpyWriteTargets, ADanglingSymlinkIsRefused) {
  std::string link = path("dangling.npy");
  fs::create_symlink("nowhere.npy", link);
  expectError([&] { writeNpy(link, small()); }, link, {"dangling symbolic link"});
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(listing(), std::vector<std::string>{"dangling.npy"});
}

TEST_F(NpyWriteTargets, AFifoIsWrittenIntoNotReplaced) {
  std::string expected = bytesFor(small());
  std::string fifo = path("pipe.npy");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);  // so that the writer's open returns
  ASSERT_GE(reader, 0) << std::strerror(errno);
  writeNpy(fifo, small());
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = ::read(reader, buf, sizeof buf)) > 0;)
    got.append(buf, static_cast<size_t>(n));
  ::close(reader);
  EXPECT_TRUE(fs::is_fifo(fifo)) << "the FIFO was replaced by a file";
  EXPECT_EQ(got, expected);
  EXPECT_EQ(listing(), std::vector<std::string>{"pipe.npy"});
}

TEST_F(NpyWriteTargets, CharacterDevicesAreWrittenIntoNotReplaced) {
  // Private copies of /dev/null and /dev/full (never the real ones: a regression would replace
  // them for the whole machine).
  std::string null = path("null"), full = path("full");
  if (::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    GTEST_SKIP() << "cannot create device nodes here: " << std::strerror(errno);
  ASSERT_EQ(::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)), 0) << std::strerror(errno);
  writeNpy(null, small());
  EXPECT_TRUE(fs::is_character_file(null));
  expectError([&] { writeNpy(full, small()); }, full, {"write error", "No space left on device"});
  EXPECT_TRUE(fs::is_character_file(full));
  EXPECT_EQ(listing(), (std::vector<std::string>{"full", "null"}));
}

TEST_F(NpyWriteTargets, AReplacedFileKeepsItsPermissions) {
  std::string p = put("x.npy", "old contents");
  fs::permissions(p, fs::perms::owner_read | fs::perms::owner_write);
  writeNpy(p, small());
  EXPECT_EQ(fs::status(p).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(elements<float>(readNpy(p)), (std::vector<float>{1, 2, 3}));
}

TEST_F(NpyWriteTargets, AFileSizeLimitIsAnErrorNotASignal) {
  // Under `ulimit -f`, write(2) past the limit raises SIGXFSZ, which kills by default.
  std::string out = put("out.npy", "old contents");
  HostTensor big(DType::F32, {4096});  // 16 KiB of data, the limit is 4 KiB
  std::string how = tg::test::runInBoundedChild(
      [&] {
        try {
          writeNpy(out, big);
          return 1;
        } catch (const tg::Error& e) {
          std::fprintf(stderr, "child: %s\n", e.message().c_str());
          return e.message().rfind(out + ": write error", 0) == 0 &&
                         e.message().find("File too large") != std::string::npos
                     ? 0
                     : 2;
        }
      },
      {.fileSizeLimit = 4096});
  EXPECT_EQ(how, "");
  EXPECT_EQ(slurp(out), "old contents");
  EXPECT_EQ(listing(), std::vector<std::string>{"out.npy"}) << "a temporary file was left";
}

}  // namespace
