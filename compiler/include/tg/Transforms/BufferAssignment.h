//===- BufferAssignment.h - Where each value lives, as the tg-plan pass decides ===//
//
// The tg-plan pass records, on every op of a planned function, one buffer per result as a
// dictionary attribute (`tg.buffers`), so the dump shows the plan and the code generator reads
// it back from the IR rather than recomputing it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/IR/Attributes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tg {

struct BufferAssignment {
  enum class Kind { Input, Constant, Output, Arena, Alias };
  Kind kind = Kind::Arena;
  int64_t index = -1;   ///< Input: argument number; Output: result number; Alias: see below.
  int64_t offset = 0;   ///< Arena: byte offset.
  int64_t bytes = 0;
  /// Alias: the value aliased is operand 0 of the op (a reshape).

  mlir::Attribute toAttr(mlir::MLIRContext* context) const;
  static std::optional<BufferAssignment> fromAttr(mlir::Attribute attr);
};

/// The attribute name the assignments of an op's results are stored under.
inline constexpr const char* kBuffersAttr = "tg.buffers";
/// The attribute holding a kernel's name, on each tg.fusion.
inline constexpr const char* kKernelNameAttr = "tg.kernel";
/// The attribute holding the arena size, on the function.
inline constexpr const char* kArenaBytesAttr = "tg.arena_bytes";

}  // namespace tg
