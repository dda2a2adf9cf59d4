//===- EmitElementwise.cpp - CUDA C++ for an elementwise tg.fusion --------===//
//
// Generates `struct TgBody` for templates/elementwise.cuh. Inputs used at the kernel's own
// index (and every output) are accessed with 16-byte vectors when aligned; inputs read through
// a broadcast/transpose/reshape are loaded per element at an offset computed from the index.
//
//===----------------------------------------------------------------------===//
#include "IndexExpr.h"
#include "IndexedRead.h"
#include "KernelEmission.h"
#include "SizeArguments.h"
#include "ScalarMath.h"

#include "tg/Dialect/OpDescription.h"
#include "tg/Dialect/LayoutChain.h"
#include "tg/Dialect/SymbolicTypes.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <sstream>

using namespace mlir;

namespace tg::codegen {

namespace {

/// Over dynamic dims, a value's dims split where its static suffix begins: the suffix's dims at
/// element `i` of the kernel, (i / stride) % extent each as a static kernel writes them, and
/// the dims before it together: `outerIndex` (i / inner), below `outerBound`.
struct SuffixSplit {
  std::vector<SizeExpr> sizes;  ///< every dim of the value
  size_t suffix = 0;            ///< the dims before the static suffix
  int64_t innerCount = 1;       ///< elements of the suffix
  DimIndices inner;             ///< the suffix's dims at i
  IndexExpr outerIndex = IndexExpr::constant(0);
};

std::optional<SuffixSplit> splitAtStaticSuffix(Value v, const SymbolicSizes& symbolic, const std::string& sfx) {
  SuffixSplit s;
  s.sizes = symbolic.dims(v);
  s.suffix = s.sizes.size();
  while (s.suffix > 0 && s.sizes[s.suffix - 1].isConstant()) --s.suffix;
  const auto type = cast<RankedTensorType>(v.getType());
  const Shape inner(type.getShape().begin() + static_cast<std::ptrdiff_t>(s.suffix), type.getShape().end());
  for (int64_t e : inner) s.innerCount *= e;
  SizeExpr outer(1);
  for (size_t d = 0; d < s.suffix; ++d) outer = outer * s.sizes[d];
  const std::optional<int64_t> outerBound = symbolic.largest(outer);
  const std::optional<int64_t> countBound = symbolic.largest(outer * SizeExpr(s.innerCount));
  if (!outerBound || !countBound || s.innerCount <= 0) return std::nullopt;
  s.inner = delinearize(IndexExpr::var("i", *countBound + 1), inner);
  s.outerIndex = IndexExpr::var("(i / " + std::to_string(s.innerCount) + sfx + ")", *outerBound + 1);
  return s;
}

/// Over dynamic dims: the dims of `v` (a value with the kernel's element count) at element `i`
/// of the kernel: the static suffix's (SuffixSplit), the one dim before it i / inner, several
/// dims before it each kUnknownIndex.
std::optional<DimIndices> symbolicDims(Value v, const SymbolicSizes& symbolic, const std::string& sfx) {
  std::optional<SuffixSplit> split = splitAtStaticSuffix(v, symbolic, sfx);
  if (!split) return std::nullopt;
  DimIndices idx;
  const auto type = cast<RankedTensorType>(v.getType());
  idx.shape = Shape(type.getShape().begin(), type.getShape().end());
  for (size_t d = 0; d < split->suffix; ++d)
    idx.dims.push_back(split->suffix == 1 ? split->outerIndex : IndexExpr::var(kUnknownIndex, int64_t(1) << 62));
  idx.dims.insert(idx.dims.end(), split->inner.dims.begin(), split->inner.dims.end());
  return idx;
}

/// Over several dynamic dims before the static suffix ([batch, seq, d]): the offset of a read
/// of `v` through one broadcast of a root whose dims that are not 1 are either none of those
/// dims or all of them, in order and of the same sizes, followed by static dims that map into
/// the suffix (a value of one per row [batch, seq, 1], a bias [d]). The dynamic dims then
/// linearize to i / inner, as one dim would. Nothing for any other read.
std::optional<std::string> prefixBroadcastOffset(Value v, const SymbolicSizes& symbolic, const std::string& sfx,
                                                 Value& root) {
  LayoutChain chain = traceLayout(v);
  auto bcast = chain.ops.size() == 1 ? dyn_cast<ir::BroadcastOp>(chain.ops[0]) : ir::BroadcastOp();
  if (!bcast) return std::nullopt;
  root = chain.root;
  std::optional<SuffixSplit> split = splitAtStaticSuffix(v, symbolic, sfx);
  if (!split) return std::nullopt;
  const std::vector<SizeExpr>& sizes = split->sizes;
  const std::vector<SizeExpr> rootSizes = symbolic.dims(root);
  const size_t suffix = split->suffix;
  llvm::ArrayRef<int64_t> dims = bcast.getDims();
  // The root's dims from the last: static ones into the suffix, then (maybe) the dynamic ones.
  IndexExpr offset = IndexExpr::constant(0);
  int64_t stride = 1;
  size_t prefixSeen = 0;  // dynamic dims of the value matched, from the last
  for (size_t k = rootSizes.size(); k-- > 0;) {
    if (rootSizes[k] == SizeExpr(1)) continue;
    const auto to = static_cast<size_t>(dims[k]);
    if (to >= suffix) {
      if (prefixSeen > 0 || !rootSizes[k].isConstant() || rootSizes[k] != sizes[to]) return std::nullopt;
      offset = split->inner.dims[to - suffix] * stride + offset;
      stride *= *rootSizes[k].constant();
      continue;
    }
    // A dynamic dim of the value: all of them, in order, from the last.
    if (to != suffix - 1 - prefixSeen || rootSizes[k] != sizes[to]) return std::nullopt;
    ++prefixSeen;
  }
  if (prefixSeen != 0 && prefixSeen != suffix) return std::nullopt;
  if (prefixSeen == suffix && suffix > 0) offset = split->outerIndex * stride + offset;
  return offset.str(sfx);
}

/// Over dynamic dims: the offset into its root at which element `i` of the kernel reads `v`,
/// a broadcast of a value whose dims are static but for the first (a bias over the rows of
/// [T, d], a value of one per row of [T, 1] over [T, d], a scalar), or nothing when the read
/// needs a run-time extent in its index arithmetic (symbolicDims); reshapes, transposes and
/// slices are taken between static types only.
std::optional<std::string> symbolicMappedOffset(Value v, const SymbolicSizes& symbolic, const std::string& sfx,
                                                Value& root) {
  std::optional<DimIndices> idx = symbolicDims(v, symbolic, sfx);
  if (!idx || !staticIndexable(v)) return std::nullopt;
  DimIndices at = mapToRoot(v, *idx, root);
  const std::string offset = linearize(at).str(sfx);
  if (offset.find(kUnknownIndex) != std::string::npos) return std::nullopt;
  return offset;
}

/// Both kinds of elementwise kernel: with `symbolic`, over dynamic dims (the element count a
/// size argument, every read at the kernel's own index or a splat); else over static shapes.
FailureOr<KernelEmission> emitElementwiseKernel(ir::FusionOp fusion, const std::string& name,
                                                const CodeGenOptions& options, const SymbolicSizes* symbolic) {
  Block& body = fusion.getBody().front();
  auto yield = cast<ir::YieldOp>(body.getTerminator());
  if (yield.getValues().empty()) return fusion.emitOpError("has no results to compute");
  // Over dynamic dims `numel` is an upper bound (the index type's) and the count is numelExpr.
  SizeExpr numelExpr = symbolic ? symbolic->numel(yield.getValues()[0]) : SizeExpr(0);
  std::optional<int64_t> largest = symbolic ? symbolic->largest(numelExpr) : std::optional<int64_t>(0);
  if (!largest) return fusion.emitOpError("has an element count that overflows 64 bits in its symbols' ranges");
  const int64_t numel = symbolic ? *largest : numelOf(yield.getValues()[0]);
  auto sameCount = [&](Value v) { return symbolic ? symbolic->numel(v) == numelExpr : numelOf(v) == numel; };
  for (Value v : yield.getValues())
    if (!sameCount(v)) return fusion.emitOpError("results have different element counts");
  std::string sfx;
  const std::string index = indexType(numel + 64, sfx);

  // Which inputs are read at the kernel's own index (vectorizable), which through maps.
  const unsigned numInputs = body.getNumArguments();
  std::vector<bool> identity(numInputs, false);
  std::vector<Value> mappedValues;  // layout values (or narrower args) read per element
  llvm::DenseMap<Value, std::string> names;
  auto noteRead = [&](Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (sameCount(arg)) {
        identity[arg.getArgNumber()] = true;
        return;
      }
    }
    LayoutChain chain = traceLayout(v);
    if (!isa<BlockArgument>(chain.root)) return;  // a member (linear chain) or constant
    if (chain.linear && sameCount(chain.root)) {
      identity[cast<BlockArgument>(chain.root).getArgNumber()] = true;
      return;
    }
    if (std::find(mappedValues.begin(), mappedValues.end(), v) == mappedValues.end())
      mappedValues.push_back(v);
  };
  for (Operation& op : body) {
    if (isLayoutOp(&op) || isa<ir::ConstantOp>(op) || isIndexedRead(&op) || isRecomputed(&op))
      continue;  // at their indices
    for (Value v : op.getOperands()) noteRead(v);
  }

  // Over dynamic dims, the run-time extents the reads divide by: declared where kSizeMembers
  // stands once the body is written.
  std::optional<SizeArguments> sizeArgs;
  if (symbolic) sizeArgs.emplace(*symbolic);
  static constexpr const char* kSizeMembers = "/*TG_SIZE_MEMBERS*/\n";
  std::ostringstream os;
  os << "struct TgBody {\n";
  os << "  typedef " << index << " Index;\n";
  if (!symbolic) os << "  static constexpr Index kNumel = " << numel << sfx << ";\n";
  // Vector width: 16 bytes of the narrowest vector-accessed tensor.
  size_t narrowest = 16;
  for (unsigned i = 0; i < numInputs; ++i)
    if (identity[i]) narrowest = std::min(narrowest, dtype_size(dtypeOfValue(body.getArgument(i))));
  for (Value v : yield.getValues()) narrowest = std::min(narrowest, dtype_size(dtypeOfValue(v)));
  const int vec = static_cast<int>(16 / narrowest);
  os << "  static constexpr int kVec = " << vec << ";\n";
  for (unsigned i = 0; i < numInputs; ++i)
    os << "  const " << storageType(dtypeOfValue(body.getArgument(i))) << "* __restrict__ in" << i
       << ";\n";
  for (unsigned j = 0; j < yield.getNumOperands(); ++j)
    os << "  " << storageType(dtypeOfValue(yield.getOperand(j))) << "* __restrict__ out" << j
       << ";\n";

  const bool checksIndices = writesCheckFlag(fusion);
  if (checksIndices) os << "  int* flag;\n";
  // The element count: a size argument after the pointers (rt::PlanLaunch::sizes), or kNumel.
  if (symbolic) os << "  long long numel_;\n" << kSizeMembers;
  os << "  __device__ __forceinline__ Index numel() const { return " << (symbolic ? "(Index)numel_" : "kNumel")
     << "; }\n";
  // aligned(): every vector-accessed pointer.
  os << "  __device__ __forceinline__ bool aligned() const {\n    return true";
  for (unsigned i = 0; i < numInputs; ++i)
    if (identity[i]) os << " && tg_aligned16(in" << i << ")";
  for (unsigned j = 0; j < yield.getNumOperands(); ++j) os << " && tg_aligned16(out" << j << ")";
  os << ";\n  }\n";

  // compute(): the fused body for one element.
  os << "  __device__ __forceinline__ void compute(Index i";
  for (unsigned i = 0; i < numInputs; ++i)
    if (identity[i])
      os << ", " << computeType(dtypeOfValue(body.getArgument(i))) << " a" << i;
  for (unsigned j = 0; j < yield.getNumOperands(); ++j)
    os << ", " << computeType(dtypeOfValue(yield.getOperand(j))) << "& r" << j;
  os << ") const {\n";
  os << "    (void)i;\n";
  for (unsigned i = 0; i < numInputs; ++i)
    if (identity[i]) names[body.getArgument(i)] = numbered("a", i);
  int counter = 0;
  for (Value v : mappedValues) {
    Value root;
    std::string offset;
    if (symbolic) {
      std::optional<std::string> o = symbolicMappedOffset(v, *symbolic, sfx, root);
      if (!o) o = prefixBroadcastOffset(v, *symbolic, sfx, root);
      if (!o) o = runtimeMappedOffset(v, *sizeArgs, numel, sfx, root);
      if (!o)
        return fusion.emitOpError("reads an input through a layout over dynamic dims that an elementwise kernel "
                                  "does not index yet (a slice whose starts depend on the symbols, or offsets "
                                  "beyond the index type)");
      offset = *o;
    } else {
      DimIndices idx = mapToRoot(v, delinearize(IndexExpr::var("i", numel), Shape(
          cast<RankedTensorType>(v.getType()).getShape().begin(),
          cast<RankedTensorType>(v.getType()).getShape().end())), root);
      offset = linearize(idx).str(sfx);
    }
    auto arg = cast<BlockArgument>(root);
    std::string n = numbered("m", counter++);
    DType dt = dtypeOfValue(v);
    os << "    const " << computeType(dt) << " " << n << " = "
       << loadConvert(dt, numbered("in", arg.getArgNumber()) + "[" + offset + "]")
       << ";\n";
    names[v] = n;
  }
  std::function<std::string(Value)> nameOf = [&](Value v) -> std::string {
    auto it = names.find(v);
    if (it != names.end()) return it->second;
    if (auto splat = splatValue(v)) return splatLiteral(splat, dtypeOfValue(v));
    LayoutChain chain = traceLayout(v);  // a linear chain over an identity input or a member
    if (chain.linear && chain.root != v) return nameOf(chain.root);
    // Any layout of a splat is the splat (over dynamic dims a splat is one element, broadcast);
    // so is one of a size used as a number.
    if (auto splat = splatValue(chain.root)) return splatLiteral(splat, dtypeOfValue(v));
    if (chain.root.getDefiningOp<ir::SizeOp>())
      if (auto at = names.find(chain.root); at != names.end()) return at->second;
    return "/*unresolved*/0";
  };
  for (Operation& op : body) {
    // Recomputed ops are computed by the concat that reads them, at its index.
    if (isLayoutOp(&op) || isRecomputed(&op) || isa<ir::ConstantOp, ir::YieldOp>(op)) continue;
    if (auto size = dyn_cast<ir::SizeOp>(op)) {  // the run's size: a size argument, converted
      std::string error;
      std::optional<std::vector<SizeExpr>> value =
          symbolic ? ir::sizesIn(size.getValue(), *symbolic, "tg.size", error) : std::nullopt;
      std::optional<std::string> text = value && value->size() == 1 ? sizeArgs->text((*value)[0]) : std::nullopt;
      if (!text) return op.emitOpError("is a size the kernel cannot take: ") << (error.empty() ? "it overflows" : error);
      const std::string n = numbered("v", counter++);
      const DType dt = dtypeOfValue(size.getResult());
      os << "    const " << computeType(dt) << " " << n << " = (" << computeType(dt) << ")(" << *text << ");\n";
      names[size.getResult()] = n;
      continue;
    }
    if (isIndexedRead(&op)) {  // over dynamic dims, its index arithmetic with run-time extents
      ExtentsOf extents;
      if (symbolic) extents = [&](Value v) { return sizeArgs->extentsOf(v); };
      FailureOr<std::string> n = indexedElement(&op, IndexExpr::var("i", numel), sfx, counter, os, options.precision,
                                                symbolic ? &extents : nullptr);
      if (failed(n)) return failure();
      names[op.getResult(0)] = *n;
      continue;
    }
    std::optional<ir::OpDescription> d = ir::describeOp(&op);
    if (!d || !graph::isElementwise(d->kind))
      return op.emitOpError("cannot be generated in an elementwise kernel");
    std::vector<std::string> operands;
    for (Value v : op.getOperands()) {
      std::string n = nameOf(v);
      if (n == "/*unresolved*/0") return op.emitOpError("has an operand the emitter cannot read");
      operands.push_back(n);
    }
    if (isa<ir::IotaOp>(op)) {  // at the kernel's own index, over the iota's shape
      auto t = cast<RankedTensorType>(op.getResult(0).getType());
      std::optional<DimIndices> at = symbolic ? symbolicDims(op.getResult(0), *symbolic, sfx)
                                              : delinearize(IndexExpr::var("i", numel), Shape(t.getShape().begin(), t.getShape().end()));
      std::string position = at ? iotaOperand(&op, *at, sfx) : kUnknownIndex;
      if (symbolic && position.find(kUnknownIndex) != std::string::npos)  // with run-time extents
        if (std::optional<std::vector<Extent>> shape = sizeArgs->extentsOf(op.getResult(0)))
          position = iotaOperand(&op, delinearizeExtents(IndexExpr::var("i", numel), *shape), sfx);
      if (position.find(kUnknownIndex) != std::string::npos)
        return op.emitOpError("over dynamic dims, along a dim whose index needs run-time extents, is not generated "
                              "in an elementwise kernel yet");
      operands.push_back(position);
    }
    std::string n = numbered("v", counter++);
    os << elementwiseLine(&op, *d, operands, n, options.precision);
    names[op.getResult(0)] = n;
  }
  for (unsigned j = 0; j < yield.getNumOperands(); ++j) {
    std::string n = nameOf(yield.getOperand(j));
    if (n == "/*unresolved*/0") return fusion.emitOpError("yields a value the emitter cannot read");
    os << "    r" << j << " = " << n << ";\n";
  }
  os << "  }\n";

  // one(i): scalar accesses.
  os << "  __device__ __forceinline__ void one(Index i) const {\n";
  for (unsigned j = 0; j < yield.getNumOperands(); ++j)
    os << "    " << computeType(dtypeOfValue(yield.getOperand(j))) << " r" << j << ";\n";
  os << "    compute(i";
  for (unsigned i = 0; i < numInputs; ++i)
    if (identity[i])
      os << ", " << loadConvert(dtypeOfValue(body.getArgument(i)), numbered("in", i) + "[i]");
  for (unsigned j = 0; j < yield.getNumOperands(); ++j) os << ", r" << j;
  os << ");\n";
  for (unsigned j = 0; j < yield.getNumOperands(); ++j)
    os << "    out" << j << "[i] = " << storeConvert(dtypeOfValue(yield.getOperand(j)), numbered("r", j))
       << ";\n";
  os << "  }\n";

  // Regs, load(i, regs), finish(i, regs): one vector step, split so that the template can
  // issue several steps' loads before any math.
  os << "  struct Regs {\n";
  bool anyVectorInput = false;
  for (unsigned i = 0; i < numInputs; ++i)
    if (identity[i]) {
      os << "    " << storageType(dtypeOfValue(body.getArgument(i))) << " x" << i << "[kVec];\n";
      anyVectorInput = true;
    }
  if (!anyVectorInput) os << "    char unused;\n";
  os << "  };\n";
  os << "  __device__ __forceinline__ void load(Index i, Regs& r) const {\n    (void)i; (void)r;\n";
  for (unsigned i = 0; i < numInputs; ++i)
    if (identity[i]) os << "    tg_load_vec(in" << i << " + i, r.x" << i << ");\n";
  os << "  }\n";
  os << "  __device__ __forceinline__ void finish(Index i, const Regs& r) const {\n    (void)r;\n";
  for (unsigned j = 0; j < yield.getNumOperands(); ++j)
    os << "    " << storageType(dtypeOfValue(yield.getOperand(j))) << " y" << j << "[kVec];\n";
  os << "#pragma unroll\n    for (int e = 0; e < kVec; ++e) {\n";
  for (unsigned j = 0; j < yield.getNumOperands(); ++j)
    os << "      " << computeType(dtypeOfValue(yield.getOperand(j))) << " r" << j << ";\n";
  os << "      compute(i + e";
  for (unsigned i = 0; i < numInputs; ++i)
    if (identity[i])
      os << ", " << loadConvert(dtypeOfValue(body.getArgument(i)), "r.x" + std::to_string(i) + "[e]");
  for (unsigned j = 0; j < yield.getNumOperands(); ++j) os << ", r" << j;
  os << ");\n";
  for (unsigned j = 0; j < yield.getNumOperands(); ++j)
    os << "      y" << j << "[e] = " << storeConvert(dtypeOfValue(yield.getOperand(j)), numbered("r", j))
       << ";\n";
  os << "    }\n";
  for (unsigned j = 0; j < yield.getNumOperands(); ++j)
    os << "    tg_store_vec(out" << j << " + i, y" << j << ");\n";
  os << "  }\n};\n";

  // Vector steps per thread whose loads are issued together: 32 bytes per input for 4-byte
  // types, 64 for 16-bit ones (measured best on an H200, benchmarks/RESULTS.md). The threads
  // per block, the steps and the cache operator (tg_ld16 in prelude.cuh) are tuning knobs
  // (Tuning.h: TG_BLOCK, TG_UNROLL, TG_CACHE_HINT).
  const Tuning& tuning = options.tuning;
  const int block = tuning.elementwiseBlock > 0 ? std::clamp(tuning.elementwiseBlock / 32 * 32, 32, 1024) : 256;
  const int cacheHint = std::clamp(tuning.cacheHint, 0, 2);
  const int unroll = tuning.elementwiseUnroll > 0 ? tuning.elementwiseUnroll : narrowest >= 4 ? 2 : 4;
  int64_t steps = (numel + int64_t(vec) * unroll - 1) / (int64_t(vec) * unroll);
  // Blocks per SM. 0 (the default) sizes the grid to cover the data in one pass: many short
  // blocks keep loads in flight while others compute, measured 4-11% faster on an H200 than
  // grid-stride loops over 4, 8 or 16 resident blocks per SM (benchmarks/RESULTS.md).
  // Tuning::blocksPerSm > 0 (TG_BLOCKS_PER_SM) caps the grid at that many blocks per SM
  // (grid-stride).
  const int64_t perSm = tuning.blocksPerSm;
  int64_t blocks = (steps + block - 1) / block;
  if (perSm > 0) blocks = std::min<int64_t>(blocks, int64_t(options.smCount) * perSm);
  // The loop strides by the grid, so a grid capped at CUDA's limit still covers the data.
  blocks = std::clamp<int64_t>(blocks, 1, (int64_t(1) << 31) - 1);
  std::ostringstream summary;
  int ops = 0;
  for (Operation& op : body)
    if (!isLayoutOp(&op) && !isa<ir::ConstantOp, ir::YieldOp>(op)) ++ops;
  summary << "elementwise: " << ops << " op(s), " << numInputs << " input(s), "
          << yield.getNumOperands() << " output(s), "
          << (symbolic ? numelExpr.str(symbolic->names) : std::to_string(numel)) << " elements, vector width "
          << vec;
  KernelEmission e;
  std::string text = os.str();
  if (symbolic) {  // the same grid, from the element count at each call
    blocks = 1;
    e.symbolicGrid.push_back({numelExpr, int64_t(vec) * unroll * block,
                              perSm > 0 ? int64_t(options.smCount) * perSm : (int64_t(1) << 31) - 1});
    e.sizes.push_back(numelExpr);
    e.sizes.insert(e.sizes.end(), sizeArgs->exprs().begin(), sizeArgs->exprs().end());
    text.replace(text.find(kSizeMembers), std::string_view(kSizeMembers).size(), sizeArgs->members());
  }
  e.writesCheckFlag = checksIndices;
  e.kernel.name = name;
  e.kernel.summary = summary.str();
  e.kernel.source = kernelHeader(name, summary.str(),
                                 cacheHint ? "#define TG_CACHE_HINT " + std::to_string(cacheHint) + "\n" : "") +
                    "#define TG_BLOCK " +
                    std::to_string(block) + "\n#define TG_UNROLL " + std::to_string(unroll) +
                    "\n" + text + elementwiseTemplate();
  e.dims.grid[0] = static_cast<uint32_t>(blocks);
  e.dims.block[0] = block;
  return e;
}

}  // namespace

FailureOr<KernelEmission> emitElementwise(ir::FusionOp fusion, const std::string& name,
                                          const CodeGenOptions& options) {
  return emitElementwiseKernel(fusion, name, options, nullptr);
}

FailureOr<KernelEmission> emitSymbolicElementwise(ir::FusionOp fusion, const std::string& name,
                                                  const CodeGenOptions& options, const SymbolicSizes& sizes) {
  return emitElementwiseKernel(fusion, name, options, &sizes);
}

}  // namespace tg::codegen
