//===- EmitReduction.cpp - CUDA C++ for a reduction tg.fusion -------------===//
//
// Generates `struct TgBody` for templates/reduction.cuh: one warp per output (or one block,
// or several blocks combined by the last, for few, long reductions), f32 accumulation for
// floats (i32 wraps), the input read through any layout chain inside the region. Reductions
// over dims followed by kept ones (columns) use templates/columns.cuh instead, with the same
// TgBody: adjacent outputs per warp, so that each row's loads are coalesced.
//
//===----------------------------------------------------------------------===//
#include "IndexExpr.h"
#include "KernelEmission.h"
#include "ScalarMath.h"

#include "tg/Dialect/OpDescription.h"
#include "tg/Dialect/LayoutChain.h"
#include "tg/Dialect/RowDomain.h"

#include <algorithm>
#include <sstream>

using namespace mlir;

namespace tg::codegen {

FailureOr<KernelEmission> emitReduction(ir::FusionOp fusion, const std::string& name,
                                        const CodeGenOptions& options) {
  Operation* reduce = nullptr;
  fusion.getBody().walk([&](Operation* op) {
    if (isReductionOp(op)) reduce = op;
  });
  if (!reduce || fusion.getNumResults() != 1 ||
      cast<ir::YieldOp>(fusion.getBody().front().getTerminator()).getOperand(0) !=
          reduce->getResult(0))
    return fusion.emitOpError("reduction kernels hold exactly one reduction, yielded");
  std::optional<ir::OpDescription> d = ir::describeOp(reduce);
  Value input = reduce->getOperand(0);
  auto inType = cast<RankedTensorType>(input.getType());
  Shape inShape(inType.getShape().begin(), inType.getShape().end());
  const DType dtype = dtypeOfValue(input);

  Shape keptShape, reducedShape;
  for (size_t dim = 0; dim < inShape.size(); ++dim) {
    bool reduced = std::find(d->attrs.axes.begin(), d->attrs.axes.end(), (int64_t)dim) !=
                   d->attrs.axes.end();
    (reduced ? reducedShape : keptShape).push_back(inShape[dim]);
  }
  const int64_t outputs = shape_numel(keptShape), reducedCount = shape_numel(reducedShape);
  std::string sfx;
  const std::string index =
      indexType(std::max<int64_t>(shape_numel(inShape), std::max(outputs, reducedCount)) + 64, sfx);

  const ReductionCode code = reductionCode(d->kind, dtype);
  // What load(o, r) returns: the input read through its layout chain at the input's dims from
  // (o, r) (kept dims from the output index, reduced from r), or a splat's value. Nothing is
  // read when no element is reduced (a sum over an empty axis: every output is init()).
  std::string loaded = "init()";
  if (reducedCount > 0) {
    DimIndices kept = delinearize(IndexExpr::var("o", outputs), keptShape);
    DimIndices red = delinearize(IndexExpr::var("r", reducedCount), reducedShape);
    DimIndices dims;
    dims.shape = inShape;
    size_t k = 0, rr = 0;
    for (size_t dim = 0; dim < inShape.size(); ++dim) {
      bool reduced = std::find(d->attrs.axes.begin(), d->attrs.axes.end(), (int64_t)dim) !=
                     d->attrs.axes.end();
      dims.dims.push_back(reduced ? red.dims[rr++] : kept.dims[k++]);
    }
    Value root;
    DimIndices rootDims = mapToRoot(input, dims, root);
    if (auto arg = dyn_cast<BlockArgument>(root)) {
      std::ostringstream read;  // (not "in" + ...: GCC 12 warns wrongly of overlapping copies)
      read << "in" << arg.getArgNumber() << "[" << linearize(rootDims).str(sfx) << "]";
      loaded = code.element(loadConvert(dtype, read.str()), "r");
    } else if (auto splat = splatValue(root)) {
      // A splat constant the fuser cloned into the region needs no memory at all.
      loaded = code.element(splatLiteral(splat, dtype), "r");
    } else {
      return fusion.emitOpError("reduction input is neither a kernel input nor a splat constant");
    }
  }

  // Columns: reduced dims followed by at least 16 kept elements (`sum(x, {0})`): 32 adjacent
  // outputs per block, coalesced (templates/columns.cuh), the rows split over enough blocks to
  // fill the GPU, at least 64 rows each.
  const std::vector<int64_t>& axes = d->attrs.axes;
  const int64_t rank = static_cast<int64_t>(inShape.size());
  const auto [lo, hi] = std::minmax_element(axes.begin(), axes.end());
  int64_t columns = 1;
  const bool contiguousAxes = !axes.empty() && *hi - *lo + 1 == static_cast<int64_t>(axes.size());
  if (contiguousAxes)
    for (int64_t dim = *hi + 1; dim < rank; ++dim) columns *= inShape[dim];
  const bool columnKernel = contiguousAxes && *hi + 1 < rank && columns >= 16 && outputs > 0 && reducedCount > 0;
  const int64_t tiles = (columns + 31) / 32;

  std::ostringstream os;
  os << "struct TgBody {\n";
  os << "  typedef " << index << " Index;\n  typedef " << code.acc << " Acc;\n";
  os << "  static constexpr Index kOutputs = " << outputs << sfx << ";\n";
  if (columnKernel)
    os << "  static constexpr Index kColumns = " << columns << sfx << ", kTiles = " << tiles << sfx << ";\n";
  os << "  static constexpr Index kReduced = " << reducedCount << sfx << ";\n";
  for (BlockArgument arg : fusion.getBody().front().getArguments())
    os << "  const " << storageType(dtypeOfValue(arg)) << "* __restrict__ in" << arg.getArgNumber()
       << ";\n";
  os << "  " << storageType(dtypeOfValue(reduce->getResult(0))) << "* __restrict__ out0;\n";
  os << "  __device__ __forceinline__ Acc init() const { return " << code.identity << "; }\n";
  os << "  __device__ __forceinline__ Acc combine(Acc a, Acc b) const { return "
     << code.combine("a", "b") << "; }\n";
  os << "  __device__ __forceinline__ Acc load(Index o, Index r) const {\n    (void)o; (void)r;\n"
     << "    return " << loaded << ";\n  }\n";
  os << "  __device__ __forceinline__ void store(Index o, Acc acc) const { out0[o] = "
     << storeConvert(dtypeOfValue(reduce->getResult(0)), code.finish("acc", reducedCount)) << "; }\n};\n";

  if (columnKernel) {
    const int64_t groups = outputs / columns * tiles;
    const int64_t split = std::clamp<int64_t>((int64_t(options.smCount) * 16 + groups - 1) / groups, 1,
                                              std::max<int64_t>(1, reducedCount / 64));
    std::ostringstream summary;
    summary << "reduction: " << reduce->getName().stripDialect().str() << " of columns of "
            << reducedCount << " elements (stride " << columns << ") into " << outputs
            << " output(s), 32 columns per block";
    if (split > 1) summary << ", the rows in " << split << " slices";
    KernelEmission e;
    e.kernel.name = name;
    e.kernel.summary = summary.str();
    e.kernel.source = kernelHeader(name, summary.str()) + "#define TG_SPLIT " + std::to_string(split) +
                      "\n" + os.str() + columnsTemplate();
    if (failed(setGrid(e, fusion, groups * split))) return failure();
    e.dims.block[0] = 256;
    return e;
  }

  // Few long reductions: a block per output, and when that leaves SMs idle, several blocks per
  // output (TG_SPLIT slices, at least 4096 elements each) whose partials the last block to
  // finish combines. Otherwise a warp per output.
  const int block = 256;
  const bool blockPerOutput = reducedCount >= 2048 && outputs < int64_t(options.smCount) * 8;
  const int group = blockPerOutput ? block : 32;
  int64_t split = 1;
  if (blockPerOutput) {
    const int64_t wanted = (int64_t(options.smCount) * 4 + outputs - 1) / outputs;
    split = std::clamp<int64_t>(std::min(wanted, reducedCount / 4096), 1, 1024);
  }
  const int64_t perBlock = block / group;
  int64_t blocks = split > 1 ? outputs * split
                             : std::max<int64_t>(1, std::min<int64_t>((outputs + perBlock - 1) / perBlock,
                                                                      int64_t(options.smCount) * 8));
  std::ostringstream summary;
  summary << "reduction: " << reduce->getName().stripDialect().str() << " of " << reducedCount
          << " elements into each of " << outputs << " output(s), "
          << (blockPerOutput ? "a block" : "a warp") << " per output";
  if (split > 1) summary << " slice, " << split << " slices each";
  KernelEmission e;
  e.kernel.name = name;
  e.kernel.summary = summary.str();
  e.kernel.source = kernelHeader(name, summary.str()) + "#define TG_BLOCK " +
                    std::to_string(block) + "\n#define TG_GROUP " + std::to_string(group) +
                    "\n#define TG_SPLIT " + std::to_string(split) + "\n" +
                    os.str() + reductionTemplate();
  e.dims.grid[0] = static_cast<uint32_t>(blocks);
  e.dims.block[0] = block;
  return e;
}

}  // namespace tg::codegen
