//===- EmitRow.cpp - CUDA C++ for a row tg.fusion -------------------------===//
//
// Generates `struct TgBody` for templates/row.cuh. A row of R x N is shared by G threads of a
// block (G <= 32: several rows per block) or by a cluster of C blocks; the thread with lane l
// holds the elements n = (k * G * C + l) * V + j, k < K, j < V: K vectors of V elements, read
// with 16-byte accesses (V = 16 bytes of the narrowest row tensor, fewer if N is not a multiple).
// The kernel inputs read at (r, n) in row-major order (the "row inputs") are loaded once into
// registers, converted to f32; every pass then works from them:
//  - per reduction, a pass folds the full ops it needs into an f32 (or i32) accumulator and
//    tg_row_reduce combines the row's threads (shuffles, shared memory, distributed shared
//    memory), so two-pass statistics (softmax's max then sum, layer_norm's mean then centred
//    variance) read HBM once;
//  - ops on one value per row are computed once per row, by every thread of it;
//  - a last pass evaluates and stores the full results, 16 bytes at a time, and lane 0 stores
//    the results of one value per row.
// A vector of the row length broadcast over the rows (a weight or bias: a "column input") is
// read with 16-byte accesses per vector step where a pass needs it; inputs read any other way
// (a transpose) element by element. A costly full value (exp, a division) that a later pass
// needs again is kept in registers (k<i>) while the row is on chip, not computed again.
// planRows() below picks G, C, K and V from the row length; a row too long for a cluster's
// registers is looped over in chunks, its row inputs re-read (from L2) in every pass.
// R and N are compile-time constants; the loops are written over kLength/kRows (and predicate
// the tail), so both can become run-time values: only kItems must stay a compile-time bound.
//
//===----------------------------------------------------------------------===//
#include "IndexExpr.h"
#include "KernelEmission.h"
#include "ScalarMath.h"

#include "tg/Dialect/LayoutChain.h"
#include "tg/Dialect/OpDescription.h"
#include "tg/Dialect/RowDomain.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"

#include <algorithm>
#include <memory>
#include <set>
#include <sstream>

using namespace mlir;

namespace tg::codegen {

namespace {

/// How a row kernel spreads a row over threads (see the file comment).
struct RowPlan {
  int vec = 1;       ///< V: elements per vector access
  int group = 32;    ///< G: threads of one block per row
  int cluster = 1;   ///< C: blocks per row
  int block = 128;   ///< threads per block
  int items = 1;     ///< K: vectors per thread (per chunk when looped)
  bool looped = false;
  bool exact = false;  ///< N == K * V * G * C (or a multiple of the chunk): no tail predicates
};

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t nextPow2(int64_t v) {
  int64_t p = 1;
  while (p < v) p *= 2;
  return p;
}

/// The plan for rows of `length` elements whose narrowest row tensor has `narrowBytes` bytes
/// per element and whose held and kept values take `regsPerElement` registers per element (the
/// arrays live at once). Measured on the H200 (RESULTS.md, `scripts/gpu-run.sh remote rowsweep`):
///  - at most 4 vectors per thread for narrow rows (more threads, more rows in flight);
///  - at most 32 registers of held values per thread, so that several blocks share an SM and
///    one's loads overlap another's arithmetic (ptxas takes about twice that in all); 64 where
///    that lets the row fit one block of up to 512 threads (fewer threads doing more beat a
///    cluster);
///  - wider rows take a cluster of up to 8 blocks (sm_90) of 256 threads, of 512 where 256 do
///    not hold the row, at 32 registers, else 64: 8 * 512 * 64 = 262,144 f32 elements stay on
///    chip;
///  - beyond that, 512 threads loop over the row in chunks.
RowPlan planRows(int64_t length, int narrowBytes, double regsPerElement, bool clusters, const Tuning& tuning) {
  RowPlan p;
  p.vec = std::max(1, 16 / std::max(1, narrowBytes));
  while (p.vec > 1 && length % p.vec != 0) p.vec /= 2;
  // TG_ROW_MAX_GROUP, TG_ROW_CLUSTER_GROUP (128-1024) and TG_ROW_REGISTERS (8-128) override
  // the measured defaults.
  const int64_t maxGroup = tuning.rowMaxGroup > 0 ? std::clamp<int64_t>(nextPow2(tuning.rowMaxGroup), 128, 1024) : 512;
  const int64_t clusterGroup =
      tuning.rowClusterGroup > 0 ? std::clamp<int64_t>(nextPow2(tuning.rowClusterGroup), 128, 1024) : 256;
  constexpr int64_t kMaxCluster = 8;  // the portable cluster size
  const double registers = tuning.rowRegisters > 0 ? std::clamp(tuning.rowRegisters, 8, 128) : 32;
  const double perElement = std::max(regsPerElement, 0.5);
  const auto itemsFor = [&](double budget) {
    return std::max<int64_t>(1, static_cast<int64_t>(budget / (p.vec * perElement)));
  };
  // Threads per row with at most `budget` registers of held values each.
  const auto threadsFor = [&](double budget) {
    int64_t g = std::clamp<int64_t>(nextPow2(ceilDiv(length, 4 * p.vec)), 1, 32);
    if (ceilDiv(length, g * p.vec) > itemsFor(budget)) g = nextPow2(ceilDiv(length, itemsFor(budget) * p.vec));
    return g;
  };
  // One block (at `registers`, then twice that), else a cluster of blocks of clusterGroup
  // threads or more (the same two budgets); false when no cluster holds the row either.
  const auto onChip = [&] {
    for (const double budget : {registers, 2 * registers})
      if (const int64_t g = threadsFor(budget); g <= maxGroup) {
        p.group = static_cast<int>(g);
        return true;
      }
    if (!clusters) return false;
    for (const double budget : {registers, 2 * registers})
      for (int64_t block = clusterGroup, g = threadsFor(budget); block <= std::max(clusterGroup, maxGroup); block *= 2)
        if (g <= block * kMaxCluster) {
          p.group = static_cast<int>(std::min(g, block));
          p.cluster = static_cast<int>(std::max<int64_t>(1, g / block));
          return true;
        }
    return false;
  };
  if (!onChip()) {
    p.group = static_cast<int>(maxGroup);
    p.looped = true;
  }
  p.block = std::max(128, p.group);
  const int64_t lanes = int64_t(p.group) * p.cluster;
  p.items = static_cast<int>(std::max<int64_t>(1, p.looped ? itemsFor(registers) : ceilDiv(length, lanes * p.vec)));
  const int64_t chunk = int64_t(p.items) * p.vec * lanes;  // rows of 0 elements: never exact
  p.exact = p.looped ? length % chunk == 0 : length == chunk;
  return p;
}

/// Writes the body of one row: the names of values in row scope, and per pass the full values.
class RowWriter {
 public:
  /// `symbolic`: the function's sizes when the rows depend on its symbols (R = `rows`, at most
  /// `rowsBound`); null for static rows.
  RowWriter(ir::FusionOp fusion, const RowDomain& d, const std::string& sfx, Precision precision,
            const SymbolicSizes* symbolic, const SizeExpr& rows, int64_t rowsBound)
      : fusion_(fusion), shape_(d.shape.begin(), d.shape.end()), rows_(rowsBound), length_(d.length),
        sfx_(sfx), precision_(precision), symbolic_(symbolic), rowsExpr_(rows), rowType_(d.sizes) {
    const auto kept = static_cast<std::ptrdiff_t>(d.shape.size()) - d.reducedDims;
    keptShape_.assign(shape_.begin(), shape_.begin() + kept);
    reducedShape_.assign(shape_.begin() + kept, shape_.end());
  }

  /// A value of one per row, in row scope (operands of row ops, row results).
  FailureOr<std::string> rowValue(Value v, std::ostream& os) {
    if (auto it = rowNames_.find(v); it != rowNames_.end()) return it->second;
    LayoutChain chain = traceLayout(v);
    // A splat, or any layout of one (over dynamic dims a splat is one element, broadcast).
    if (auto splat = splatValue(chain.root)) return splatLiteral(splat, dtypeOfValue(v));
    // Reshapes, and broadcasts that only add or expand dims of extent 1 (rows of one element),
    // read the same element r.
    if (chain.root != v && rowNames_.count(chain.root) && !hasTranspose(chain) && sameCount(chain.root, v))
      return rowNames_[chain.root];
    if (isa<BlockArgument>(chain.root)) {
      std::string n = read(v, rowIndex(v), os, "  ");
      rowNames_[v] = n;
      return n;
    }
    return fusion_.emitOpError("a row kernel cannot read a value of one per row it holds");
  }

  /// A full value (shape S) at (r, n), inside a pass; `names` memoizes within the pass.
  FailureOr<std::string> fullValue(Value v, llvm::DenseMap<Value, std::string>& names, std::ostream& os) {
    if (auto it = names.find(v); it != names.end()) return it->second;
    LayoutChain chain = traceLayout(v);
    if (auto splat = splatValue(chain.root)) return splatLiteral(splat, dtypeOfValue(v));
    std::string n;
    if (auto arg = dyn_cast<BlockArgument>(chain.root); arg && isRowMajorRead(chain)) {
      const int h = heldIndex(arg);
      heldLastPass_[static_cast<size_t>(h)] = pass_;
      n = numbered("c", h) + "[k][j]";  // held in registers
    } else if (arg && isColumnRead(v)) {
      n = loadConvert(dtypeOfValue(arg), numbered("col", columnInput(arg)) + "[j]");
    } else if (isa<BlockArgument>(chain.root)) {
      n = read(v, fullIndex(v), os, "        ");
    } else if (rowNames_.count(chain.root) && !hasTranspose(chain)) {
      n = rowNames_[chain.root];  // a row broadcast (the fuser checked it): the row's value
    } else if (chain.linear && chain.root != v) {
      FailureOr<std::string> r = fullValue(chain.root, names, os);
      if (failed(r)) return failure();
      n = *r;
    } else if (Operation* def = v.getDefiningOp(); def && !isLayoutOp(def)) {
      std::optional<ir::OpDescription> d = ir::describeOp(def);
      if (!d || !graph::isElementwise(d->kind))
        return def->emitOpError("cannot be computed per element in a row kernel");
      if (auto it = computed_.find(v); keep_ && it != computed_.end() && it->second.first != pass_) {
        auto [k, fresh] = keptName_.try_emplace(v, numbered("k", static_cast<long long>(keptList_.size())));
        if (fresh) keptList_.push_back({k->second, it->second.second, it->second.first, pass_});
        keptList_[static_cast<size_t>(std::stoi(k->second.substr(1)))].lastPass = pass_;
        n = k->second + "[k][j]";  // (its operands are not needed here)
        names[v] = n;
        return n;
      }
      std::vector<std::string> operands;
      for (Value o : def->getOperands()) {
        FailureOr<std::string> r = fullValue(o, names, os);
        if (failed(r)) return failure();
        operands.push_back(*r);
      }
      if (isa<ir::IotaOp>(def)) operands.push_back(iotaOperand(def, fullIndex(v), sfx_));
      n = numbered("f", counter_++);
      const bool keepable = isCostly(d->kind) && std::string(computeType(dtypeOfValue(v))) == "float";
      if (keepable) computed_[v] = {pass_, n};
      if (d->kind == graph::OpKind::Div && precision_ != Precision::Accurate &&
          dtypeOfValue(v) == DType::F32 && rowNameSet_.count(operands[1])) {
        // By a value of the row: a correctly rounded reciprocal, once per row (the unrolled
        // loop shares it), times each element; 1.5 ulp, within div.full's 2.
        os << "      const float " << n << " = " << operands[0] << " * __frcp_rn(" << operands[1] << ");\n";
      } else {
        os << "      " << elementwiseLine(def, *d, operands, n, precision_);
      }
      if (keepable) os << "/*keep:" << n << "*/\n";
    } else {
      return fusion_.emitOpError("a row kernel reads a value through a layout it cannot index");
    }
    names[v] = n;
    return n;
  }

  /// The index operand of a tg.iota of one value per row, at row r.
  std::string iotaAtRow(Operation* iota) const { return iotaOperand(iota, rowIndex(iota->getResult(0)), sfx_); }

  void nameRow(Value v, const std::string& n) {
    rowNames_[v] = n;
    rowNameSet_.insert(n);
  }
  std::string fresh(const char* prefix) { return numbered(prefix, counter_++); }

  /// The row inputs held in registers, in order of first use: c<i> holds in<held()[i]>.
  const std::vector<unsigned>& held() const { return held_; }
  /// Every column input (a vector of the row length broadcast over the rows), read with
  /// 16-byte accesses where a pass uses it.
  const std::set<unsigned>& columns() const { return columns_; }
  /// A pass begins: no column input loaded yet.
  void beginPass() {
    passColumns_.clear();
    ++pass_;
  }
  /// With `keep`, a costly full value (exp, a division, ...) that a later pass needs again is
  /// kept in registers (k<i>[k][j]) instead of computed again: softmax's exp(x - max) of the
  /// sum pass is the output pass's numerator.
  void allowKeeping(bool keep) { keep_ = keep; }
  /// A kept value: its array, its name in the pass that computes it, that pass and the last
  /// that reads it.
  struct Kept {
    std::string array, value;
    int firstPass = 0, lastPass = 0;
  };
  const std::vector<Kept>& kept() const { return keptList_; }
  /// The most arrays of the row (held inputs, kept values) live at once. Held inputs are
  /// loaded before the first pass and live to their last use, kept values from the pass that
  /// computes them to the last that reads them. Within a pass, an array read for the last time
  /// and one computed there go element by element (the same (k, j)), so they can share
  /// registers: a pass holds the arrays live across it plus the larger of the two groups.
  int peakLiveArrays() const {
    int peak = 0;
    for (int p = 1; p <= pass_; ++p) {
      int across = 0, dying = 0, born = 0;
      for (int last : heldLastPass_) (last > p ? across : dying) += last >= p;
      for (const Kept& k : keptList_) {
        if (k.firstPass < p && k.lastPass > p) ++across;
        else if (k.firstPass < p && k.lastPass == p) ++dying;
        else if (k.firstPass == p) ++born;
      }
      peak = std::max(peak, across + std::max(dying, born));
    }
    return peak;
  }
  /// Per vector step k of the pass: 16-byte loads of the column inputs it reads (col<arg>).
  std::string passColumnLoads(Block& body) const {
    std::string t;
    for (unsigned arg : passColumns_) {
      const std::string col = numbered("col", arg);
      t += std::string("      ") + storageType(dtypeOfValue(body.getArgument(arg))) + " " + col + "[kVec];\n" +
           "      tg_row_load(" + numbered("in", arg) + ", n0, kLength, " + col + ", vec);\n";
    }
    return t;
  }

 private:
  /// Whether `chain` reads its root (a kernel input) at element r * N + n: only reshapes, of
  /// a value with the rows' element count.
  bool isRowMajorRead(const LayoutChain& chain) const {
    return hasCount(chain.root, rowsExpr_ * SizeExpr(length_)) &&
           llvm::all_of(chain.ops, [](Operation* op) { return isa<ir::ReshapeOp>(op); });
  }
  /// Whether `v` (whose layout chain starts at a kernel input) reads element n of it at
  /// (r, n): a vector of the row length broadcast over the rows.
  bool isColumnRead(Value v) const {
    Value root;
    DimIndices at = mapToRoot(v, fullIndex(v), root);
    return numelOf(root) == length_ && linearize(at).str(sfx_) == "n";
  }
  int heldIndex(BlockArgument arg) {
    auto it = llvm::find(held_, arg.getArgNumber());
    if (it != held_.end()) return static_cast<int>(it - held_.begin());
    held_.push_back(arg.getArgNumber());
    heldLastPass_.push_back(pass_);
    return static_cast<int>(held_.size()) - 1;
  }
  unsigned columnInput(BlockArgument arg) {
    passColumns_.insert(arg.getArgNumber());
    columns_.insert(arg.getArgNumber());
    return arg.getArgNumber();
  }
  /// The dims of a value of one per row at row r (row-major over its own shape).
  DimIndices rowIndex(Value v) const {
    if (symbolic_) return symbolicIndex(v, /*full=*/false);
    return delinearize(IndexExpr::var("r", rows_), shapeOf(v));
  }
  /// The dims of a full value at (r, n): the kept dims from r, the reduced ones from n.
  DimIndices fullIndex(Value v) const {
    if (symbolic_) return symbolicIndex(v, /*full=*/true);
    // A value of another shape with the same elements (a reshape of the rows): row-major.
    if (shapeOf(v) != shape_) return delinearize(IndexExpr::var("r", rows_) * length_ + IndexExpr::var("n", length_), shapeOf(v));
    DimIndices kept = delinearize(IndexExpr::var("r", rows_), keptShape_);
    DimIndices red = delinearize(IndexExpr::var("n", length_), reducedShape_);
    DimIndices dims;
    dims.shape = shape_;
    dims.dims = kept.dims;
    dims.dims.insert(dims.dims.end(), red.dims.begin(), red.dims.end());
    return dims;
  }
  /// Over dynamic dims: the dims of `v` at row r (`full`: at (r, n), `v` of S's type). Kept
  /// dims of size 1 index 0; the one other kept dim, when there is one, indexes r; with
  /// several, each is an unknown (kUnknownIndex), which makes any read through it an error.
  DimIndices symbolicIndex(Value v, bool full) const {
    DimIndices out;
    out.shape = shapeOf(v);
    const auto unknown = IndexExpr::var(kUnknownIndex, rows_ + 1);
    const bool ofS = out.shape == shape_ && cast<RankedTensorType>(v.getType()).getEncoding() == rowType_;
    if (full && !ofS) {
      out.dims.assign(out.shape.size(), unknown);
      return out;
    }
    const std::vector<SizeExpr> sizes = symbolic_->dims(v);
    const size_t kept = full ? shape_.size() - reducedShape_.size() : out.shape.size();
    int others = 0;
    for (size_t d = 0; d < kept; ++d) others += sizes[d] != SizeExpr(1);
    for (size_t d = 0; d < kept; ++d)
      out.dims.push_back(sizes[d] == SizeExpr(1) ? IndexExpr::constant(0) : others == 1 ? IndexExpr::var("r", rows_) : unknown);
    if (full) {
      DimIndices red = delinearize(IndexExpr::var("n", length_), reducedShape_);
      out.dims.insert(out.dims.end(), red.dims.begin(), red.dims.end());
    }
    return out;
  }
  bool hasCount(Value v, const SizeExpr& count) const {
    if (!symbolic_) return count.constant() && numelOf(v) == *count.constant();
    return symbolic_->numel(v) == count;
  }
  bool sameCount(Value a, Value b) const {
    return symbolic_ ? symbolic_->numel(a) == symbolic_->numel(b) : numelOf(a) == numelOf(b);
  }

 public:
  /// Whether `v` has R elements (one per row), or R x N (a full value's count).
  bool isPerRow(Value v) const { return hasCount(v, rowsExpr_); }
  bool isFullCount(Value v) const { return hasCount(v, rowsExpr_ * SizeExpr(length_)); }

 private:
  /// Whether the chain moves elements (a transpose or a slice), so that element r of the
  /// value is not element r of its root.
  static bool hasTranspose(const LayoutChain& chain) {
    return llvm::any_of(chain.ops, [](Operation* op) { return isa<ir::TransposeOp, ir::SliceOp>(op); });
  }
  static Shape shapeOf(Value v) {
    auto t = cast<RankedTensorType>(v.getType());
    return Shape(t.getShape().begin(), t.getShape().end());
  }
  /// Loads `v` (whose layout chain starts at a kernel input) at `idx`, as a named local.
  std::string read(Value v, DimIndices idx, std::ostream& os, const char* indent) {
    Value root;
    // Over dynamic dims, a read that needs run-time extents reads at an unknown index: an error.
    if (symbolic_ && !staticIndexable(v)) idx.dims.assign(idx.dims.size(), IndexExpr::var(kUnknownIndex, rows_ + 1));
    DimIndices at = mapToRoot(v, std::move(idx), root);
    const DType dt = dtypeOfValue(v);
    std::string n = numbered("m", counter_++);
    os << indent << "const " << computeType(dt) << " " << n << " = "
       << loadConvert(dt, numbered("in", cast<BlockArgument>(root).getArgNumber()) + "[" +
                              linearize(at).str(sfx_) + "]")
       << ";\n";
    return n;
  }

  ir::FusionOp fusion_;
  Shape shape_;
  int64_t rows_, length_;  // (rows_: at most that many over dynamic dims)
  Shape keptShape_, reducedShape_;
  std::string sfx_;
  Precision precision_;
  const SymbolicSizes* symbolic_;
  SizeExpr rowsExpr_;
  Attribute rowType_;  // S's #tg.sizes over dynamic dims
  llvm::DenseMap<Value, std::string> rowNames_;
  static bool isCostly(graph::OpKind k) {
    using graph::OpKind;
    return k == OpKind::Exp || k == OpKind::Log || k == OpKind::Tanh || k == OpKind::Sigmoid ||
           k == OpKind::Gelu || k == OpKind::Sqrt || k == OpKind::Rsqrt || k == OpKind::Pow ||
           k == OpKind::Div || k == OpKind::Sin || k == OpKind::Cos || k == OpKind::Erf ||
           k == OpKind::Exp2 || k == OpKind::Log2 || k == OpKind::Silu;
  }

  bool keep_ = false;
  int pass_ = 0;
  llvm::DenseMap<Value, std::pair<int, std::string>> computed_;  // costly values: pass, name
  llvm::DenseMap<Value, std::string> keptName_;
  std::vector<Kept> keptList_;
  std::vector<int> heldLastPass_;  // by held index
  std::vector<unsigned> held_;
  std::set<unsigned> columns_, passColumns_;
  std::set<std::string> rowNameSet_;
  int counter_ = 0;
};

bool is16BitFloat(DType dt) { return dt == DType::BF16 || dt == DType::F16; }

/// The value whose f32 result is stored for full output `v` of dtype `dt`: where `dt` is
/// 16-bit, tg_row_store_16 rounds it, two at a time, and a cast to `dt` from f32 (or the other
/// 16-bit float) is that rounding, so the cast's operand is stored instead (the same bits, but
/// NaN: the canonical one).
Value storedValue(Value v, DType dt) {
  Operation* def = v.getDefiningOp();
  std::optional<ir::OpDescription> d = def ? ir::describeOp(def) : std::nullopt;
  if (is16BitFloat(dt) && d && d->kind == graph::OpKind::Cast) {
    const DType from = dtypeOfValue(def->getOperand(0));
    if (from == DType::F32 || (is16BitFloat(from) && from != dt)) return def->getOperand(0);
  }
  return v;
}

/// The element loop of a pass: `body` runs for every element (k, j) of the thread's chunk
/// that is inside the row, with `n` its index.
std::string elementLoop(const std::string& body, const std::string& perStep) {
  return "#pragma unroll\n    for (int k = 0; k < kItems; ++k) {\n"
         "      const Index n0 = base + ((Index)k * kLanes + lane) * kVec;\n" + perStep +
         "#pragma unroll\n      for (int j = 0; j < kVec; ++j) {\n"
         "        const Index n = n0 + j;\n"
         "        if (!kExact && n >= kLength) continue;\n" +
         body + "      }\n    }\n";
}

/// A row pass: the row-scope lines before it, its element loop's body and per-step column
/// loads, written against the plan's constants (kItems, kVec, kLanes, kExact, base), and the
/// row-scope lines after it (the group combine).
struct Pass {
  std::string before;   ///< row-scope lines before the pass
  std::string body;     ///< the element loop's body
  std::string perStep;  ///< loads of the column inputs it reads, per vector step
  std::string after;    ///< row-scope lines after it (the group combine)
};

/// The text of a row kernel's row() that does not depend on the plan: the passes, the
/// row-scope lines after the last, and the outputs (full ones in a last pass, a vector per
/// output per step; those of one per row by lane 0).
struct RowText {
  explicit RowText(RowWriter w) : writer(std::move(w)) {}
  RowWriter writer;
  std::vector<Pass> passes;
  std::ostringstream rowScope, outDecl, outElement, outStore, rowOut;
  std::string outputColumns;  ///< the output pass's per-step column loads
  int slots = 0;              ///< reductions (shared-memory slots)
  std::vector<unsigned> fullOutputs;
};

/// Writes the row text of `fusion`; with `keep`, costly full values a later pass needs again
/// are kept in registers (RowWriter::allowKeeping).
FailureOr<std::unique_ptr<RowText>> writeRow(ir::FusionOp fusion, const RowDomain& d, const std::string& sfx,
                                             const CodeGenOptions& options, bool keep, const SymbolicSizes* symbolic,
                                             const SizeExpr& rows, int64_t rowsBound) {
  Block& body = fusion.getBody().front();
  auto yield = cast<ir::YieldOp>(body.getTerminator());
  const int64_t length = d.length;
  auto text =
      std::make_unique<RowText>(RowWriter(fusion, d, sfx, options.precision, symbolic, rows, rowsBound));
  RowWriter& w = text->writer;
  w.allowKeeping(keep);
  std::vector<Pass>& passes = text->passes;
  std::ostringstream &rowScope = text->rowScope, &outDecl = text->outDecl, &outElement = text->outElement,
                     &outStore = text->outStore, &rowOut = text->rowOut;
  int& slots = text->slots;
  std::vector<unsigned>& fullOutputs = text->fullOutputs;
  for (Operation& op : body) {
    if (isLayoutOp(&op) || isa<ir::ConstantOp, ir::YieldOp>(op)) continue;
    std::optional<ir::OpDescription> desc = ir::describeOp(&op);
    if (!desc) return op.emitOpError("cannot be generated in a row kernel");
    if (isReductionOp(&op)) {
      const ReductionCode code = reductionCode(desc->kind, dtypeOfValue(op.getOperand(0)));
      const std::string acc = w.fresh("acc");
      const std::string& type = code.acc;
      const std::string combine = code.functor + "()";
      Pass pass;
      rowScope << "  " << type << " " << acc << " = " << code.identity << ";\n";
      pass.before = rowScope.str();
      rowScope.str("");
      llvm::DenseMap<Value, std::string> names;
      std::ostringstream element;
      w.beginPass();
      FailureOr<std::string> in = w.fullValue(op.getOperand(0), names, element);
      if (failed(in)) return failure();
      pass.perStep = w.passColumnLoads(body);
      element << "        " << acc << " = " << combine << "(" << acc << ", " << code.element(*in, "n") << ");\n";
      pass.body = element.str();
      std::ostringstream after;
      after << "  " << acc << " = tg_row_reduce<" << type << ", " << slots++ << ">(" << acc << ", "
            << combine << ");\n";
      const std::string value = code.finish(acc, length);
      const std::string n = w.fresh("s");
      after << "  const " << computeType(dtypeOfValue(op.getResult(0))) << " " << n << " = " << value << ";\n";
      pass.after = after.str();
      passes.push_back(std::move(pass));
      w.nameRow(op.getResult(0), n);
      continue;
    }
    if (!graph::isElementwise(desc->kind)) return op.emitOpError("cannot be generated in a row kernel");
    if (!w.isPerRow(op.getResult(0))) continue;  // a full op: computed where a pass needs it
    std::vector<std::string> operands;
    for (Value v : op.getOperands()) {
      FailureOr<std::string> r = w.rowValue(v, rowScope);
      if (failed(r)) return failure();
      operands.push_back(*r);
    }
    if (isa<ir::IotaOp>(op)) operands.push_back(w.iotaAtRow(&op));
    const std::string n = w.fresh("w");
    rowScope << "  " << elementwiseLine(&op, *desc, operands, n, options.precision);
    w.nameRow(op.getResult(0), n);
  }

  // Outputs: full ones in a last pass (a vector per output per step), those of one per row by
  // lane 0.
  llvm::DenseMap<Value, std::string> names;
  w.beginPass();
  for (auto [j, v] : llvm::enumerate(yield.getValues())) {
    const DType dt = dtypeOfValue(v);
    if (w.isFullCount(v)) {  // (with N = 1 a row value is stored this way too)
      FailureOr<std::string> r = w.fullValue(storedValue(v, dt), names, outElement);
      if (failed(r)) return failure();
      const std::string y = numbered("y", static_cast<long long>(j));
      const std::string out = "out" + std::to_string(j) + " + r * kLength, n0, kLength, " + y + ", vec);\n";
      if (is16BitFloat(dt)) {
        outDecl << "    float " << y << "[kVec];\n";
        outElement << "        " << y << "[j] = " << *r << ";\n";
        outStore << "    if (live) tg_row_store_16<" << (dt == DType::BF16 ? "true" : "false") << ">(" << out;
      } else {
        outDecl << "    " << storageType(dt) << " " << y << "[kVec];\n";
        outElement << "        " << y << "[j] = " << storeConvert(dt, *r) << ";\n";
        outStore << "    if (live) tg_row_store(" << out;
      }
      fullOutputs.push_back(static_cast<unsigned>(j));
    } else {
      FailureOr<std::string> r = w.rowValue(v, rowOut);
      if (failed(r)) return failure();
      rowOut << "  if (live && lane == 0) out" << j << "[r] = " << storeConvert(dt, *r) << ";\n";
    }
  }

  text->outputColumns = w.passColumnLoads(body);
  return text;
}

/// The plan for the row text `t` of `fusion` (rows of `length`), from the row tensors: the
/// inputs held in registers and the kept values live at once (softmax's exp is born where x
/// dies: one register per element, not two; RESULTS.md 2026-12-02, TG_ROW_LIVENESS), the
/// column inputs and the full outputs.
RowPlan planFor(ir::FusionOp fusion, const RowText& t, int64_t length, const CodeGenOptions& options) {
  Block& body = fusion.getBody().front();
  auto yield = cast<ir::YieldOp>(body.getTerminator());
  const RowWriter& w = t.writer;
  int narrow = 16;
  for (unsigned arg : w.held()) narrow = std::min(narrow, static_cast<int>(dtype_size(dtypeOfValue(body.getArgument(arg)))));
  for (unsigned arg : w.columns()) narrow = std::min(narrow, static_cast<int>(dtype_size(dtypeOfValue(body.getArgument(arg)))));
  for (unsigned j : t.fullOutputs) narrow = std::min(narrow, static_cast<int>(dtype_size(dtypeOfValue(yield.getOperand(j)))));
  const bool clusters = archNumber(options.arch) >= 90;
  return planRows(length, narrow, static_cast<double>(w.peakLiveArrays()), clusters, options.tuning);
}

}  // namespace

FailureOr<KernelEmission> emitRow(ir::FusionOp fusion, const std::string& name, const CodeGenOptions& options,
                                  const SymbolicSizes* symbolic) {
  Block& body = fusion.getBody().front();
  auto yield = cast<ir::YieldOp>(body.getTerminator());
  Operation* first = nullptr;
  for (Operation& op : body)
    if (isReductionOp(&op)) {
      first = &op;
      break;
    }
  if (!first) return fusion.emitOpError("is a row kernel without a reduction");
  const RowDomain d = *rowDomainOf(first);  // the verifier checked every reduction's rows
  if (d.symbolic() != (symbolic != nullptr))
    return fusion.emitOpError(d.symbolic() ? "has rows over dynamic dims, but the function has no tg.symbols"
                                           : "has static rows in a kernel generated for dynamic dims");
  // Over dynamic dims R is a size argument (rows_), at most rowsBound; else a constant.
  std::vector<std::string> names = symbolic ? symbolic->names : std::vector<std::string>{};
  const SizeExpr rowsExpr = rowCount(fusion->getContext(), d, names);
  if (symbolic && names.size() != symbolic->names.size())
    return fusion.emitOpError("has rows whose sizes name symbols the function does not have");
  const std::optional<int64_t> largestRows = symbolic ? symbolic->largest(rowsExpr) : std::optional<int64_t>(d.rows);
  if (!largestRows) return fusion.emitOpError("has a row count that overflows 64 bits in its symbols' ranges");
  const int64_t rows = *largestRows, length = d.length;
  std::string sfx;
  // Row indices run past kRows by at most a grid's worth of rows (the stride loop).
  const std::string index = indexType(rows * length + int64_t(options.smCount) * 32 * 128 + 64, sfx);

  // Values are kept only while the row stays on chip.
  FailureOr<std::unique_ptr<RowText>> written =
      writeRow(fusion, d, sfx, options, /*keep=*/true, symbolic, rowsExpr, rows);
  if (failed(written)) return failure();
  RowPlan plan = planFor(fusion, **written, length, options);
  if (plan.looped && !(*written)->writer.kept().empty()) {
    written = writeRow(fusion, d, sfx, options, /*keep=*/false, symbolic, rowsExpr, rows);
    if (failed(written)) return failure();
    plan = planFor(fusion, **written, length, options);
  }
  RowText& text = **written;
  RowWriter& w = text.writer;
  std::vector<Pass>& passes = text.passes;
  const std::vector<unsigned>& fullOutputs = text.fullOutputs;
  const bool anyFull = !fullOutputs.empty();
  // The pass that computes a kept value stores it; the other markers go.
  const auto resolveKept = [&](std::string text) {
    for (const RowWriter::Kept& k : w.kept()) {
      const std::string& array = k.array;
      const std::string& value = k.value;
      const std::string marker = "/*keep:" + value + "*/\n";
      for (size_t at = text.find(marker); at != std::string::npos; at = text.find(marker))
        text.replace(at, marker.size(), "        " + array + "[k][j] = " + value + ";\n");
    }
    for (size_t at = text.find("/*keep:"); at != std::string::npos; at = text.find("/*keep:"))
      text.erase(at, text.find("*/\n", at) + 3 - at);
    return text;
  };
  for (Pass& p : passes) p.body = resolveKept(p.body);
  const std::string outElementText = resolveKept(text.outElement.str());

  // Loads of the held inputs into registers, converted to f32 (i32): once (the row fits) or
  // in every pass (looped).
  std::ostringstream loads;
  for (auto [i, arg] : llvm::enumerate(w.held())) {
    const DType dt = dtypeOfValue(body.getArgument(arg));
    const std::string c = numbered("c", static_cast<long long>(i));
    loads << "  " << computeType(dt) << " " << c << "[kItems][kVec];\n";
    loads << "#pragma unroll\n  for (int k = 0; k < kItems; ++k) {\n"
          << "    const Index n0 = base + ((Index)k * kLanes + lane) * kVec;\n"
          << "    " << storageType(dt) << " raw[kVec];\n"
          << "    tg_row_load(" << numbered("in", arg) << " + r * kLength, n0, kLength, raw, vec);\n"
          << "#pragma unroll\n    for (int j = 0; j < kVec; ++j) " << c << "[k][j] = "
          << loadConvert(dt, "raw[j]") << ";\n  }\n";
  }

  std::ostringstream row;  // the body of row(r, lane, live, vec)
  const auto passText = [&](const Pass& p) {
    std::ostringstream t;
    if (plan.looped) {
      t << "  for (Index base = 0; base < kLength; base += kChunk) {\n" << loads.str()
        << "  " << elementLoop(p.body, p.perStep) << "  }\n";
    } else {
      t << "  " << elementLoop(p.body, p.perStep);
    }
    return t.str();
  };
  if (!plan.looped) {
    row << "  const Index base = 0;\n" << loads.str();
    for (const RowWriter::Kept& k : w.kept()) row << "  float " << k.array << "[kItems][kVec];\n";
  }
  for (const Pass& p : passes) row << p.before << passText(p) << p.after;
  row << text.rowScope.str();
  if (anyFull) {
    // The output pass stores a vector per output per step: its element loop is written out
    // with the declarations before and the stores after the inner loop.
    std::ostringstream t;
    const std::string inner = "#pragma unroll\n      for (int j = 0; j < kVec; ++j) {\n"
                              "        const Index n = n0 + j;\n"
                              "        if (!kExact && n >= kLength) continue;\n" +
                              outElementText + "      }\n";
    std::string decl = text.outDecl.str(), store = text.outStore.str();
    // Tail elements of a partial vector are never stored; zero them for a defined value.
    std::string zero;
    for (unsigned j : fullOutputs)
      zero += "    if (!kExact) for (int j = 0; j < kVec; ++j) " + numbered("y", j) + "[j] = 0;\n";
    const std::string step = "#pragma unroll\n    for (int k = 0; k < kItems; ++k) {\n"
                             "      const Index n0 = base + ((Index)k * kLanes + lane) * kVec;\n" +
                             text.outputColumns + decl + zero + inner + store + "    }\n";
    if (plan.looped)
      t << "  for (Index base = 0; base < kLength; base += kChunk) {\n" << loads.str() << "  " << step << "  }\n";
    else
      t << "  " << step;
    row << t.str();
  }
  row << text.rowOut.str();

  std::ostringstream os;
  os << "struct TgBody {\n";
  os << "  typedef " << index << " Index;\n";
  if (!symbolic) os << "  static constexpr Index kRows = " << rows << sfx << ";\n";
  os << "  static constexpr Index kLength = " << length << sfx << ";\n";
  os << "  static constexpr int kVec = " << plan.vec << ", kItems = " << plan.items
     << ", kLanes = " << int64_t(plan.group) * plan.cluster << ";\n";
  os << "  static constexpr Index kChunk = (Index)kItems * kVec * kLanes;\n";
  os << "  static constexpr bool kExact = " << (plan.exact ? "true" : "false") << ";\n";
  for (BlockArgument arg : body.getArguments())
    os << "  const " << storageType(dtypeOfValue(arg)) << "* __restrict__ in" << arg.getArgNumber() << ";\n";
  for (auto [j, v] : llvm::enumerate(yield.getValues()))
    os << "  " << storageType(dtypeOfValue(v)) << "* __restrict__ out" << j << ";\n";
  // R: a size argument after the pointers (rt::PlanLaunch::sizes), or kRows.
  if (symbolic) os << "  long long rows_;\n";
  os << "  __device__ __forceinline__ Index rows() const { return " << (symbolic ? "(Index)rows_" : "kRows") << "; }\n";
  os << "  __device__ __forceinline__ bool aligned() const {\n    return true";
  for (unsigned arg : w.held()) os << " && tg_aligned16(in" << arg << ")";
  for (unsigned arg : w.columns()) os << " && tg_aligned16(in" << arg << ")";
  for (unsigned j : fullOutputs) os << " && tg_aligned16(out" << j << ")";
  os << ";\n  }\n";
  // row() is defined after the template, which declares the helpers it calls.
  os << "  __device__ void row(Index r, int lane, bool live, bool vec) const;\n};\n";
  const std::string rowDefinition =
      "__device__ __forceinline__ void TgBody::row(Index r, int lane, bool live, bool vec) const {\n" +
      row.str() + "}\n";

  std::ostringstream summary;
  summary << "row: " << (symbolic ? rowsExpr.str(symbolic->names) : std::to_string(rows)) << " row(s) of "
          << length << " element(s), " << plan.group
          << " thread(s) per row";
  if (plan.cluster > 1) summary << " in each of a cluster of " << plan.cluster << " blocks";
  summary << ", " << plan.items << " vector(s) of " << plan.vec << " per thread";
  if (plan.looped)
    summary << ", looped (row inputs re-read in each of " << passes.size() + (anyFull ? 1 : 0) << " passes)";
  else
    summary << ", the row held in registers";
  KernelEmission e;
  e.kernel.name = name;
  e.kernel.summary = summary.str();
  std::ostringstream defines;
  defines << "#define TG_BLOCK " << plan.block << "\n#define TG_GROUP " << plan.group
          << "\n#define TG_CLUSTER " << plan.cluster << "\n#define TG_SLOTS " << text.slots << "\n";
  e.kernel.source = kernelHeader(name, summary.str()) + defines.str() + os.str() + clusterTemplate() + rowTemplate() + rowDefinition;
  if (e.kernel.source.find(kUnknownIndex) != std::string::npos)
    return fusion.emitOpError("reads a value through a layout over dynamic dims that a row kernel does not index "
                              "yet (rows of one dim that depends on the symbols, broadcasts of static values are)");
  int64_t blocks;
  const int64_t perBlock = plan.block / plan.group;
  if (plan.cluster > 1) {
    blocks = std::max<int64_t>(1, rows) * plan.cluster;  // one cluster per row
  } else {
    blocks = std::max<int64_t>(1, std::min<int64_t>(ceilDiv(rows, perBlock), int64_t(options.smCount) * 32));
  }
  if (symbolic) {  // the same grid, from R at each call
    blocks = plan.cluster;
    if (plan.cluster > 1)
      e.symbolicGrid.push_back({rowsExpr * SizeExpr(plan.cluster), 1, (int64_t(1) << 31) - 1});
    else
      e.symbolicGrid.push_back({rowsExpr, perBlock, int64_t(options.smCount) * 32});
    e.sizes.push_back(rowsExpr);
  }
  if (failed(setGrid(e, fusion, blocks))) return failure();
  e.dims.block[0] = plan.block;
  return e;
}

}  // namespace tg::codegen
