//===- CheckSites.h - Where each tg::check is, and the host's failures ----===//
//
// tg::check registers its site (message, source line) once and gets an id (>= 1). A check the
// CPU evaluates (eagerly or in the reference interpreter) records its failure here; one the
// GPU evaluates writes its id into the device flag (tg/Runtime/CheckFlag.h). The host raises
// either at the next point where it synchronizes anyway. No CUDA, no MLIR: the interpreter
// and the frontend both use it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Support/Error.h"

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace tg {

struct CheckFailure {
  std::string message;
  SourceLoc loc;
};

class CheckSites {
 public:
  static CheckSites& instance();

  /// The id of the check site (message, loc); the same site always gets the same id (>= 1).
  int64_t add(const std::string& message, const SourceLoc& loc);
  /// Records that check `id` failed on the host (the first failure is kept).
  void fail(int64_t id);
  /// The id of the first host failure since the last call (0: none), and clears it.
  int64_t takeHostFailure();
  /// What check `id` says and where it is.
  CheckFailure describe(int64_t id);

 private:
  std::mutex mutex_;
  std::vector<CheckFailure> sites_;  // id - 1
  int64_t hostFailure_ = 0;
};

}  // namespace tg
