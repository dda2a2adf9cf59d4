//===- EmitUpdate.cpp - CUDA C++ for a dynamic_update_slice in place ------===//
//
// tg-assign-buffers gave the result its input's buffer (kInPlaceAttr): the kernel writes the
// update's elements at the start the start tensor holds (checked and clamped like every index
// read on the device) and never reads or writes the rest. The input pointer (in0) aliases the
// result (out0), so neither is declared __restrict__, and in0 is not read. The constant part of
// the written offset (the static offsets) is a view of out0 where it can be (LayoutChain.h).
//
//===----------------------------------------------------------------------===//
#include "IndexedRead.h"
#include "ScalarMath.h"
#include "SizeArguments.h"

#include "tg/Dialect/LayoutChain.h"
#include "tg/Dialect/SymbolicTypes.h"

#include <sstream>

using namespace mlir;

namespace tg::codegen {

FailureOr<KernelEmission> emitInPlaceUpdate(ir::FusionOp fusion, const std::string& name,
                                            const CodeGenOptions& options, const SymbolicSizes* symbolic) {
  ir::DynamicUpdateSliceOp update;
  fusion.getBody().walk([&](ir::DynamicUpdateSliceOp u) { update = u; });
  // Its input is kernel input 0, as is or reshaped (the same bytes in the same order).
  const LayoutChain chain = update ? traceLayout(update.getInput()) : LayoutChain();
  auto input = dyn_cast_or_null<BlockArgument>(chain.root);
  if (!update || !chain.linear || !input || input.getArgNumber() != 0 || fusion.getNumResults() != 1)
    return fusion.emitOpError("an in-place update kernel holds one dynamic_update_slice of its input 0");
  auto xType = cast<RankedTensorType>(update.getInput().getType());
  auto uType = cast<RankedTensorType>(update.getUpdate().getType());
  const Shape xShape(xType.getShape().begin(), xType.getShape().end());
  const Shape uShape(uType.getShape().begin(), uType.getShape().end());
  const auto axis = static_cast<size_t>(update.getAxis());
  // Over dynamic dims the update's sizes are size arguments (the input, a cache, is static):
  // its element count, and the extents its index arithmetic divides by.
  const bool dynamic = symbolic && ir::isSymbolic(uType);
  if (symbolic && ir::isSymbolic(xType))
    return fusion.emitOpError("an in-place update over dynamic dims writes into an input of static shape");
  std::optional<SizeArguments> sizeArgs;
  ExtentsOf extents;
  if (dynamic) {
    sizeArgs.emplace(*symbolic);
    extents = [&](Value v) { return sizeArgs->extentsOf(v); };
  }
  const SizeExpr numelExpr = dynamic ? symbolic->numel(update.getUpdate()) : SizeExpr(uType.getNumElements());
  const std::optional<int64_t> largest = dynamic ? symbolic->largest(numelExpr) : numelExpr.constant();
  if (!largest) return fusion.emitOpError("has an update whose size overflows over the symbols' ranges");
  const int64_t numel = *largest;
  std::string sfx;
  const std::string index = indexType(xType.getNumElements() + 64, sfx);
  const DType dt = dtypeOfValue(update.getResult());

  std::ostringstream os;
  os << "struct TgBody {\n  typedef " << index << " Index;\n";
  if (!dynamic)
    os << "  static constexpr Index kNumel = " << numel << sfx << ";\n"
       << "  static __device__ __forceinline__ constexpr Index numel() { return kNumel; }\n";
  Block& body = fusion.getBody().front();
  for (unsigned i = 0; i < body.getNumArguments(); ++i)
    os << "  const " << storageType(dtypeOfValue(body.getArgument(i))) << (i == 0 ? "* in" : "* __restrict__ in")
       << i << ";\n";
  os << "  " << storageType(dt) << "* out0;\n  int* flag;\n";
  static constexpr const char* kSizeMembers = "/*TG_SIZE_MEMBERS*/\n";
  std::optional<std::vector<Extent>> uExtents;
  if (dynamic) {
    uExtents = sizeArgs->extentsOf(update.getUpdate());
    if (!uExtents) return fusion.emitOpError("has an update whose size overflows over the symbols' ranges");
    os << "  long long numel_;\n" << kSizeMembers
       << "  __device__ __forceinline__ Index numel() const { return (Index)numel_; }\n";
  }
  os << "  __device__ __forceinline__ void one(Index j) const {\n";
  // The start lies in [0, the input's extent - the update's] (the update's a size argument
  // over dynamic dims).
  const int64_t bound = xShape[axis] - (dynamic ? 1 : uShape[axis]);
  const std::string boundText = dynamic && ShapedType::isDynamic(uShape[axis])
                                    ? std::to_string(xShape[axis]) + " - " + (*uExtents)[axis].name
                                    : std::to_string(xShape[axis] - uShape[axis]);
  if (failed(checkedStart(update, update.getStart(), boundText, static_cast<int64_t>(update.getCheck()), "s", sfx, os)))
    return failure();
  os << "    const Index start = (Index)s;\n";
  // Element j of the update, written at its place in the result: the static offsets (a layer
  // of a [layers, heads, positions, dim] cache) add a constant, most of which the launch adds
  // to out0 (a view), so every layer's update is the same kernel.
  const DimIndices at = dynamic ? delinearizeExtents(IndexExpr::var("j", numel), *uExtents)
                                : delinearize(IndexExpr::var("j", numel), uShape);
  DimIndices target;
  target.shape = xShape;
  int64_t staticOffset = 0, stride = 1;
  for (size_t d = xShape.size(); d-- > 0; stride *= xShape[d])
    if (d != axis) staticOffset += update.getOffsets()[d] * stride;
  for (size_t d = 0; d < xShape.size(); ++d)
    target.dims.push_back(d == axis ? at.dims[d] + IndexExpr::var("start", bound + 1) : at.dims[d]);
  const int64_t inView = viewPart(staticOffset, static_cast<int64_t>(dtype_size(dt)));
  FailureOr<std::string> value = readInput(update.getUpdate(), at, sfx, /*raw=*/true, dynamic ? &extents : nullptr);
  if (failed(value)) return update.emitOpError("reads an update the fuser did not put in memory");
  IndexExpr written = linearize(target);
  if (staticOffset != inView) written = written + IndexExpr::constant(staticOffset - inView);
  os << "    out0[" << written.str(sfx) << "] = " << *value << ";\n  }\n};\n";
  std::string bodyText = os.str();
  if (dynamic) bodyText.replace(bodyText.find(kSizeMembers), std::string(kSizeMembers).size(), sizeArgs->members());

  KernelEmission e;
  e.writesCheckFlag = true;
  if (inView) {  // out0: after the inputs; in0, the same memory, is not read
    e.argumentByteOffsets.assign(body.getNumArguments() + 1, 0);
    e.argumentByteOffsets.back() = inView * static_cast<int64_t>(dtype_size(dt));
  }
  e.kernel.name = name;
  e.kernel.summary = "dynamic_update_slice in place: " +
                     (dynamic ? numelExpr.str(symbolic->names) : std::to_string(numel)) + " of " +
                     std::to_string(xType.getNumElements()) + " element(s) written";
  e.kernel.source = kernelHeader(name, e.kernel.summary) + bodyText + updateTemplate();
  const int64_t cap = int64_t(std::max(1, options.smCount)) * 8;
  const int64_t blocks = std::max<int64_t>(1, std::min<int64_t>((numel + 255) / 256, cap));
  if (failed(setGrid(e, fusion, blocks))) return failure();
  if (dynamic) {  // the same rule at each run's count; the count, then the extents
    e.symbolicGrid.push_back({numelExpr, 256, cap, SizeExpr(1), false});
    e.sizes = {numelExpr};
    e.sizes.insert(e.sizes.end(), sizeArgs->exprs().begin(), sizeArgs->exprs().end());
  }
  e.dims.block[0] = 256;
  return e;
}

}  // namespace tg::codegen
