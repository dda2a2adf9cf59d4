//===- BufferAssignment.h - Where each value lives, as the tg-assign-buffers pass decides ===//
//
// The tg-assign-buffers pass records, on every op of a planned function, one `#tg.buffer` per result
// (ir::BufferAttr, TgAttrs.td) in an array under `tg.buffers`, the arena's size on the
// function and each kernel's name on its tg.fusion, so the dump shows the plan and the code
// generator reads it back from the IR rather than recomputing it. These are the attributes'
// names, spelled here only.
//
//===----------------------------------------------------------------------===//
#pragma once

namespace tg {

/// The attribute name the assignments of an op's results are stored under (an array of
/// #tg.buffer, one per result).
inline constexpr const char* kBuffersAttr = "tg.buffers";
/// The attribute holding a kernel's name, on each tg.fusion.
inline constexpr const char* kKernelNameAttr = "tg.kernel";
/// On a tg.fusion holding one dynamic_update_slice: a unit attribute when its result takes its
/// input's buffer (operand 0: the kernel writes only the update), and a string saying what was
/// decided and why (the report's `updates`).
inline constexpr const char* kInPlaceAttr = "tg.in_place";
inline constexpr const char* kUpdateNoteAttr = "tg.update";
/// On a function argument: its buffer may be reused for the results (JitOptions::donate).
inline constexpr const char* kDonatedAttr = "tg.donated";
/// The attribute holding the arena size, on the function.
inline constexpr const char* kArenaBytesAttr = "tg.arena_bytes";

}  // namespace tg
