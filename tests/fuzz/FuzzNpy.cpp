//===- FuzzNpy.cpp - libFuzzer target: the .npy reader of `tgc run` -------===//
//
// Every input is a file's bytes, read twice: from a regular file (memfd: the size is checked
// before allocating) and from a stream without a size (fmemopen, the path of a pipe). Both
// must agree, and every failure must be a tg::Error. A crash, another exception, a hang or an
// allocation past what the input holds (libFuzzer's -malloc_limit_mb) is a bug.
//
//===----------------------------------------------------------------------===//
#include "tgc/Npy.h"

#include "tg/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include <sys/mman.h>
#include <unistd.h>

namespace {

using tg::ref::HostTensor;

struct Outcome {
  std::optional<HostTensor> tensor;
  std::string error;
};

Outcome readFrom(std::FILE* file, const std::string& name) {
  Outcome o;
  try {
    o.tensor = tg::tools::readNpy(file, name);
  } catch (const tg::Error& e) {
    o.error = e.message();
  }
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A stream without a size.
  std::FILE* stream = fmemopen(const_cast<uint8_t*>(size ? data : reinterpret_cast<const uint8_t*>("")),
                               size ? size : 1, "rb");
  if (!stream) return 0;
  if (size == 0) std::fgetc(stream);  // fmemopen needs a non-empty buffer: consume the byte
  Outcome streamed = readFrom(stream, "stream");
  std::fclose(stream);

  // A regular file.
  int fd = memfd_create("fuzz.npy", 0);
  if (fd < 0) return 0;
  if (size && ::write(fd, data, size) != static_cast<ssize_t>(size)) std::abort();
  ::lseek(fd, 0, SEEK_SET);
  std::FILE* file = fdopen(fd, "rb");
  Outcome regular = readFrom(file, "stream");
  std::fclose(file);

  // Both paths read the same bytes the same way (messages may differ only in how much data
  // they saw: a regular file's size is known before reading).
  if (streamed.tensor.has_value() != regular.tensor.has_value()) std::abort();
  if (streamed.tensor) {
    const HostTensor &a = *streamed.tensor, &b = *regular.tensor;
    if (a.dtype() != b.dtype() || a.shape() != b.shape() || a.nbytes() != b.nbytes() ||
        (a.nbytes() && std::memcmp(a.data(), b.data(), a.nbytes()) != 0))
      std::abort();
  }
  return 0;
}
