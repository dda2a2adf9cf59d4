//===- EmitCheck.cpp - CUDA C++ for a tg.check kernel ---------------------===//
#include "IndexExpr.h"
#include "KernelEmission.h"
#include "ScalarMath.h"

#include "tg/Dialect/LayoutChain.h"

#include <sstream>

using namespace mlir;

namespace tg::codegen {

FailureOr<KernelEmission> emitCheck(ir::FusionOp fusion, const std::string& name,
                                    const CodeGenOptions& options) {
  ir::CheckOp check;
  fusion.getBody().walk([&](ir::CheckOp c) { check = c; });
  if (!check) return fusion.emitOpError("check kernels hold one tg.check");
  Value cond = check.getCondition();
  auto type = cast<RankedTensorType>(cond.getType());
  const int64_t numel = type.getNumElements();
  std::string sfx;
  const std::string index = indexType(numel + 64, sfx);
  Value root;
  DimIndices idx = mapToRoot(
      cond, delinearize(IndexExpr::var("i", numel), Shape(type.getShape().begin(), type.getShape().end())),
      root);
  std::string value;  // element i of the condition
  if (auto arg = dyn_cast<BlockArgument>(root)) {
    std::ostringstream read;  // (not "in" + ...: GCC 12 warns wrongly of overlapping copies)
    read << "in" << arg.getArgNumber() << "[" << linearize(idx).str(sfx) << "]";
    value = read.str();
  } else if (auto splat = splatValue(root)) {  // tg.check of a constant
    value = splatLiteral(splat, DType::Bool);
  } else {
    return fusion.emitOpError("the checked condition must come from the kernel's inputs");
  }

  std::ostringstream os;
  os << "struct TgBody {\n  typedef " << index << " Index;\n";
  os << "  static constexpr Index kNumel = " << numel << sfx << ";\n";
  os << "  static constexpr int kId = " << check.getId() << ";\n";
  for (unsigned i = 0; i < fusion.getNumOperands(); ++i)
    os << "  const " << storageType(dtypeOfValue(fusion.getBody().getArgument(i))) << "* __restrict__ in"
       << i << ";\n";
  os << "  int* flag;\n";
  os << "  __device__ __forceinline__ bool ok(Index i) const { (void)i; return " << value
     << " != 0; }\n};\n";

  const int64_t blocks =
      std::max<int64_t>(1, std::min<int64_t>((numel + 255) / 256, int64_t(options.smCount) * 4));
  KernelEmission e;
  e.writesCheckFlag = true;
  e.kernel.name = name;
  e.kernel.summary = "check " + std::to_string(check.getId()) + ": all of " +
                     std::to_string(numel) + " element(s) true";
  e.kernel.source = kernelHeader(name, e.kernel.summary) + os.str() + checkTemplate();
  e.dims.grid[0] = static_cast<uint32_t>(blocks);
  e.dims.block[0] = 256;
  return e;
}

}  // namespace tg::codegen
