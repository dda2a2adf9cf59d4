//===- EmitGemmEpilogue.cpp - TgBody::store for tensor-core matmul kernels -===//
//
// A gemm tg.fusion holds one tg.matmul and, when the fuser put them there, the elementwise ops
// that consume its result (bias, activation, residual, scale, cast). The epilogue computes
// those ops on each pair of accumulators a thread holds, (m, n) and (m, n + 1): the matmul's
// value is the f32 accumulator (rounded only where it is stored, like every intermediate of a
// fused kernel), other inputs are read at the element's index through their layout chains, and
// every yielded value is stored, a pair at a time. Reads are indexed by the element's batch,
// row and column (b, m, n), not by its linear index: a bias [N] is then read at `n`, the same
// expression for every row a thread holds, so the compiler loads it once per column.
//
// Over dynamic dims (issue 18) the rows M and the batch are run-time values (`rowsM()`, which
// the kernel's body defines from its size arguments); every other value of the epilogue has the
// matmul's shape and is read by (b, m, n) through broadcasts, or through layouts between static
// types, whose index arithmetic needs no run-time extent (staticIndexable); anything else is
// refused.
//
//===----------------------------------------------------------------------===//
#include "GemmEmission.h"
#include "SizeArguments.h"
#include "IndexExpr.h"
#include "ScalarMath.h"

#include "tg/Dialect/OpDescription.h"
#include "tg/Dialect/LayoutChain.h"

#include "llvm/ADT/DenseMap.h"

#include <sstream>

using namespace mlir;

namespace tg::codegen {

namespace {

/// Over dynamic dims: the indices (b, m, n) of an element of the matmul's result `type`
/// ([batch..., M, N], N static): the batch dims from b (the first without a modulo, the others
/// each kUnknownIndex when dynamic), m and n, bounded by their largest values.
DimIndices symbolicElement(RankedTensorType type, const SymbolicSizes& symbolic, mlir::Value result) {
  const Shape shape(type.getShape().begin(), type.getShape().end());
  const std::vector<SizeExpr> sizes = symbolic.dims(result);
  const size_t rank = shape.size();
  SizeExpr batch(1);
  for (size_t d = 0; d + 2 < rank; ++d) batch = batch * sizes[d];
  const int64_t batchBound = symbolic.largest(batch).value_or(int64_t(1) << 62) + 1;
  DimIndices e;
  e.shape = shape;
  const IndexExpr b = IndexExpr::var("b", batchBound);
  int64_t stride = 1;
  std::vector<IndexExpr> reversed;
  bool known = true;
  for (size_t d = rank - 2; d-- > 0;) {
    if (!known || (d > 0 && ShapedType::isDynamic(shape[d]))) {
      known = false;
      reversed.push_back(IndexExpr::var(kUnknownIndex, int64_t(1) << 62));
      continue;
    }
    reversed.push_back(d == 0 ? b / stride : (b / stride) % shape[d]);
    if (d > 0) stride *= shape[d];
  }
  e.dims.assign(reversed.rbegin(), reversed.rend());
  e.dims.push_back(IndexExpr::var("m", symbolic.largest(sizes[rank - 2]).value_or(int64_t(1) << 62) + 1));
  e.dims.push_back(IndexExpr::var("n", shape.back()));
  return e;
}

/// Whether two tensor types have the same dims (and, over dynamic dims, the same sizes).
bool sameSizes(RankedTensorType a, RankedTensorType b) {
  return a.getShape() == b.getShape() && a.getEncoding() == b.getEncoding();
}

}  // namespace

FailureOr<std::string> emitGemmEpilogue(ir::FusionOp fusion, ir::MatmulOp mm,
                                        const CodeGenOptions& options, const SymbolicSizes* symbolic,
                                        SizeArguments* sizeArgs) {
  Block& body = fusion.getBody().front();
  auto yield = cast<ir::YieldOp>(body.getTerminator());
  auto type = cast<RankedTensorType>(mm.getType());
  const Shape shape(type.getShape().begin(), type.getShape().end());
  // Over dynamic dims, counts are compared as polynomials and bounded by their largest values.
  const SizeExpr numelExpr = symbolic ? symbolic->numel(mm.getResult()) : SizeExpr(type.getNumElements());
  auto sameCount = [&](Value v) { return symbolic ? symbolic->numel(v) == numelExpr : numelOf(v) == type.getNumElements(); };
  const std::optional<int64_t> largest = symbolic ? symbolic->largest(numelExpr) : numelExpr.constant();
  if (!largest) return fusion.emitOpError("has a matmul whose element count overflows over the symbols' ranges");
  const int64_t numel = *largest;
  for (Value v : yield.getValues())
    if (!sameCount(v))
      return fusion.emitOpError("epilogue results must have the matmul's shape");

  std::ostringstream os;
  // Element indices in 32 bits when they fit: the epilogue's index math runs per element while
  // the tensor cores wait.
  std::string sfx;
  const std::string index = indexType(numel + 64, sfx);
  os << "  typedef " << index << " EIndex;\n";
  // The rows M: a constant, or (over dynamic dims) the body's size argument.
  if (!symbolic) os << "  __device__ __forceinline__ long long rowsM() const { return kM; }\n";
  // The element's indices over the matmul's shape [batch..., M, N]: b (the batch dims, flat),
  // m, n, and i, the linear index they make.
  DimIndices element;
  if (symbolic) {
    element = symbolicElement(type, *symbolic, mm.getResult());
  } else {
    const int64_t rows = shape[shape.size() - 2], cols = shape.back();
    const int64_t batches = numel / std::max<int64_t>(1, rows * cols);
    element = delinearize(IndexExpr::var("b", batches), Shape(shape.begin(), shape.end() - 2));
    element.dims.push_back(IndexExpr::var("m", rows));
    element.dims.push_back(IndexExpr::var("n", cols));
    element.shape = shape;
  }
  element.linear = std::make_shared<IndexExpr>(IndexExpr::var("i", numel));
  // compute(i, b, m, n, acc, r...): the fused ops for one element, into the results.
  os << "  __device__ __forceinline__ void compute(EIndex i, EIndex b, EIndex m, EIndex n, float acc";
  for (unsigned j = 0; j < yield.getNumOperands(); ++j)
    os << ", " << computeType(dtypeOfValue(yield.getOperand(j))) << "& r" << j;
  os << ") const {\n    (void)i, (void)b, (void)m, (void)n;\n";
  llvm::DenseMap<Value, std::string> names;
  names[mm.getResult()] = "acc";
  int counter = 0;
  std::function<FailureOr<std::string>(Value)> nameOf = [&](Value v) -> FailureOr<std::string> {
    if (auto it = names.find(v); it != names.end()) return it->second;
    if (auto splat = splatValue(v)) return splatLiteral(splat, dtypeOfValue(v));
    LayoutChain chain = traceLayout(v);
    if (chain.linear && chain.root != v && sameCount(chain.root)) {
      FailureOr<std::string> n = nameOf(chain.root);
      if (succeeded(n)) names[v] = *n;
      return n;
    }
    if (!isa<BlockArgument>(chain.root)) return failure();
    // An input read at this element's index through its layout chain: from (b, m, n) when the
    // value has the matmul's shape, else from the linear index.
    Value root;
    auto vt = cast<RankedTensorType>(v.getType());
    const Shape vShape(vt.getShape().begin(), vt.getShape().end());
    std::string offset;
    if (symbolic && (!sameSizes(vt, type) || !staticIndexable(v))) {
      // Element i of a value of the matmul's count (a residual [B, S, d] over the matmul's
      // [B * S, d]), read through its layout chain with run-time extents.
      if (!sizeArgs || !sameCount(v)) return failure();
      std::optional<std::string> at = runtimeMappedOffset(v, *sizeArgs, numel, sfx, root);
      if (!at || root != chain.root) return failure();
      offset = *at;
    } else {
      DimIndices idx = mapToRoot(
          v, vShape == shape ? element : delinearize(IndexExpr::var("i", numel), vShape), root);
      offset = linearize(idx).str(sfx);
    }
    if (offset.find(kUnknownIndex) != std::string::npos) return failure();
    const DType dt = dtypeOfValue(v);
    std::string n = "e";  // (not "e" + ...: GCC 12 warns wrongly of overlapping copies there)
    n += std::to_string(counter++);
    os << "    const " << computeType(dt) << " " << n << " = "
       << loadConvert(dt, "in" + std::to_string(cast<BlockArgument>(root).getArgNumber()) + "[" +
                              offset + "]")
       << ";\n";
    names[v] = n;
    return n;
  };
  // Every other member shares the matmul's iteration space (the fuser guarantees it); members
  // that do not depend on the matmul (a residual scaled first) are computed here too.
  for (Operation& op : body) {
    if (&op == mm.getOperation() || isLayoutOp(&op) || isa<ir::ConstantOp, ir::YieldOp>(op))
      continue;
    std::optional<ir::OpDescription> d = ir::describeOp(&op);
    if (!d || !graph::isElementwise(d->kind))
      return op.emitOpError("cannot be generated in a matmul epilogue");
    std::vector<std::string> operands;
    for (Value v : op.getOperands()) {
      FailureOr<std::string> n = nameOf(v);
      if (failed(n))
        return op.emitOpError("has an operand the matmul epilogue cannot read")
               << (symbolic ? " over dynamic dims (values of the matmul's element count through layouts)" : "");
      operands.push_back(*n);
    }
    if (isa<ir::IotaOp>(op)) {  // at this element: (b, m, n) over the matmul's shape, else i
      auto t = cast<RankedTensorType>(op.getResult(0).getType());
      const Shape s(t.getShape().begin(), t.getShape().end());
      if (symbolic && !sameSizes(t, type)) return op.emitOpError("has a shape the matmul epilogue cannot index over dynamic dims");
      operands.push_back(iotaOperand(&op, s == shape ? element : delinearize(IndexExpr::var("i", numel), s), sfx));
      if (operands.back().find(kUnknownIndex) != std::string::npos)
        return op.emitOpError("needs a run-time extent to index over dynamic dims");
    }
    std::string n = "v" + std::to_string(counter++);
    os << elementwiseLine(&op, *d, operands, n, options.precision);
    names[op.getResult(0)] = n;
  }
  for (unsigned j = 0; j < yield.getNumOperands(); ++j) {
    FailureOr<std::string> n = nameOf(yield.getOperand(j));
    if (failed(n)) return fusion.emitOpError("yields a value the matmul epilogue cannot read");
    os << "    r" << j << " = " << *n << ";\n";
  }
  os << "  }\n";

  // store(b, m, n, v0, v1): elements (m, n) and (m, n + 1) of batch b (n is even), inside the
  // bounds; with an even row length the pair is one aligned vector store per result.
  const unsigned results = yield.getNumOperands();
  auto resultType = [&](unsigned j) { return dtypeOfValue(yield.getOperand(j)); };
  os << "  __device__ __forceinline__ void store(long long b, long long m, long long n, float v0,"
        " float v1) const {\n"
     << "    if (m >= rowsM() || n >= kN) return;\n"
     << "    if (kN % 2 != 0) {  // odd rows: the pair is not aligned\n"
     << "      store(b, m, n, v0);\n"
     << "      if (n + 1 < kN) store(b, m, n + 1, v1);\n"
     << "      return;\n"
     << "    }\n"
     << "    const EIndex i = ((EIndex)b * (EIndex)rowsM() + (EIndex)m) * (EIndex)kN + (EIndex)n;\n";
  for (unsigned j = 0; j < results; ++j)
    os << "    " << computeType(resultType(j)) << " x" << j << ", y" << j << ";\n";
  os << "    compute(i, (EIndex)b, (EIndex)m, (EIndex)n, v0";
  for (unsigned j = 0; j < results; ++j) os << ", x" << j;
  os << ");\n    compute(i + 1, (EIndex)b, (EIndex)m, (EIndex)n + 1, v1";
  for (unsigned j = 0; j < results; ++j) os << ", y" << j;
  os << ");\n";
  for (unsigned j = 0; j < results; ++j)
    os << "    tg_store_pair(out" << j << " + i, " << storeConvert(resultType(j), "x" + std::to_string(j))
       << ", " << storeConvert(resultType(j), "y" + std::to_string(j)) << ");\n";
  os << "  }\n";
  // pair<kCheck>(b, m, n, v0, v1): the single 2-byte result of elements (m, n) and (m, n + 1),
  // packed in 32 bits for a shared-memory staged store (zeros outside the bounds: TMA clips
  // them). pair<false> is for tiles wholly inside the bounds: no branch per element, so the
  // epilogue's loads of a chunk can all be in flight at once.
  if (results == 1 && dtype_size(resultType(0)) == 2) {
    const DType rt = resultType(0);
    std::ostringstream pack;
    if (rt == DType::BF16 || rt == DType::F16)
      pack << (rt == DType::BF16 ? "tg_pack_bf16x2" : "tg_pack_f16x2") << "(x0, y0)";
    else
      pack << "tg_pack_pair(" << storeConvert(rt, "x0") << ", " << storeConvert(rt, "y0") << ")";
    os << "  template <bool kCheck = true>\n"
       << "  __device__ __forceinline__ unsigned pair(long long b, long long m, long long n, float v0,"
          " float v1) const {\n"
       << "    if (kCheck && (m >= rowsM() || n >= kN)) return 0u;\n"
       << "    const EIndex i = ((EIndex)b * (EIndex)rowsM() + (EIndex)m) * (EIndex)kN + (EIndex)n;\n"
       << "    " << computeType(rt) << " x0, y0 = 0;\n"
       << "    compute(i, (EIndex)b, (EIndex)m, (EIndex)n, v0, x0);\n"
       << "    if (!kCheck || n + 1 < kN) compute(i + 1, (EIndex)b, (EIndex)m, (EIndex)n + 1, v1, y0);\n"
       << "    return " << pack.str() << ";\n  }\n";
  }
  // store(b, m, n, v): one element (the CUDA-core path).
  os << "  __device__ __forceinline__ void store(long long b, long long m, long long n, float v) const {\n"
     << "    const EIndex i = ((EIndex)b * (EIndex)rowsM() + (EIndex)m) * (EIndex)kN + (EIndex)n;\n";
  for (unsigned j = 0; j < results; ++j)
    os << "    " << computeType(resultType(j)) << " x" << j << ";\n";
  os << "    compute(i, (EIndex)b, (EIndex)m, (EIndex)n, v";
  for (unsigned j = 0; j < results; ++j) os << ", x" << j;
  os << ");\n";
  for (unsigned j = 0; j < results; ++j)
    os << "    out" << j << "[i] = " << storeConvert(resultType(j), "x" + std::to_string(j)) << ";\n";
  os << "  }\n";
  return os.str();
}

}  // namespace tg::codegen
