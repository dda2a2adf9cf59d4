//===- IndexingOps.cpp - gather, dynamic_slice, dynamic_update_slice ------===//
//
// Each op registers a check site (message and the user's line) for indices out of range: the
// kernel that reads the index writes the site into the check flag (the reference records it on
// the host), and the failure is raised at the next sync point like a failed tg::check.
//
//===----------------------------------------------------------------------===//
#include "tg/Frontend/Dispatch.h"
#include "tg/Support/CheckSites.h"

namespace tg {

using detail::apply;
using detail::fail;
using graph::OpKind;

namespace {

void requireDefined(std::initializer_list<const Tensor*> tensors, std::string_view op, const Loc& loc) {
  for (const Tensor* t : tensors)
    if (!t->defined()) fail(op, "operand is an undefined tensor", loc);
}

int64_t site(const std::string& message, const Loc& loc) {
  return CheckSites::instance().add(message, SourceLoc::from(loc));
}

std::string range(int64_t first, int64_t last) {
  std::string s = "[";  // (appended: GCC 12 warns wrongly of overlapping copies in "[" + ...)
  s += std::to_string(first);
  s += ", ";
  s += std::to_string(last);
  s += "]";
  return s;
}

}  // namespace

Tensor gather(const Tensor& x, int64_t axis, const Tensor& indices, Loc loc) {
  requireDefined({&x, &indices}, "gather", loc);
  graph::OpAttrs attrs;
  attrs.axis = detail::axisOf(x, axis, "gather", loc);
  attrs.checkId = site("gather: an index is outside " + range(0, x.shape()[attrs.axis] - 1) + " (axis " +
                           std::to_string(attrs.axis) + " of " + format_shape(x.shape()) + ")",
                       loc);
  return apply(OpKind::Gather, attrs, {x, indices}, loc);
}

Tensor index_select(const Tensor& x, int64_t axis, const Tensor& indices, Loc loc) {
  requireDefined({&x, &indices}, "index_select", loc);
  if (indices.rank() != 1)
    fail("index_select", "the indices must be 1-D, got " + format_shape(indices.shape()) + " (gather takes any shape)",
         loc);
  return gather(x, axis, indices, loc);
}

Tensor embedding(const Tensor& table, const Tensor& tokens, Loc loc) {
  requireDefined({&table, &tokens}, "embedding", loc);
  if (table.rank() != 2) fail("embedding", "the table must be 2-D [vocab, dim], got " + format_shape(table.shape()), loc);
  return gather(table, 0, tokens, loc);
}

Tensor dynamic_slice(const Tensor& x, int64_t axis, const Tensor& start, int64_t size, Loc loc) {
  requireDefined({&x, &start}, "dynamic_slice", loc);
  graph::OpAttrs attrs;
  attrs.axis = detail::axisOf(x, axis, "dynamic_slice", loc);
  const int64_t extent = x.shape()[attrs.axis];
  if (size < 0 || size > extent)
    fail("dynamic_slice", "size " + std::to_string(size) + " does not fit in axis " + std::to_string(attrs.axis) +
                              " of " + format_shape(x.shape()),
         loc);
  attrs.shape = x.shape();
  attrs.shape[attrs.axis] = size;
  attrs.checkId = site("dynamic_slice: the start is outside " + range(0, extent - size) + " (a window of " +
                           std::to_string(size) + " in axis " + std::to_string(attrs.axis) + " of " +
                           format_shape(x.shape()) + ")",
                       loc);
  return apply(OpKind::DynamicSlice, attrs, {x, start}, loc);
}

Tensor dynamic_update_slice(const Tensor& x, const Tensor& update, int64_t axis, const Tensor& start,
                            std::vector<int64_t> offsets, Loc loc) {
  requireDefined({&x, &update, &start}, "dynamic_update_slice", loc);
  graph::OpAttrs attrs;
  attrs.axis = detail::axisOf(x, axis, "dynamic_update_slice", loc);
  if (offsets.empty()) offsets.assign(static_cast<size_t>(x.rank()), 0);
  if (static_cast<int64_t>(offsets.size()) != x.rank())
    fail("dynamic_update_slice", "needs one offset per dim of " + format_shape(x.shape()) + ", got " +
                                     std::to_string(offsets.size()),
         loc);
  offsets[static_cast<size_t>(attrs.axis)] = 0;
  attrs.starts = std::move(offsets);
  const int64_t room = update.rank() == x.rank() ? x.shape()[attrs.axis] - update.shape()[attrs.axis] : 0;
  attrs.checkId = site("dynamic_update_slice: the start is outside " + range(0, room) + " (an update of " +
                           format_shape(update.shape()) + " along axis " + std::to_string(attrs.axis) + " of " +
                           format_shape(x.shape()) + ")",
                       loc);
  return apply(OpKind::DynamicUpdateSlice, attrs, {x, update, start}, loc);
}

}  // namespace tg
