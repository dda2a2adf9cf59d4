//===- EmitAttentionFlash.cpp - CUDA C++ for a many-row attention tg.fusion ===//
//
// The flash-attention kernel (templates/attention_flash.cuh, sm_90a) for an attention fusion
// with more query rows than the decode kernel takes (tg/Dialect/Attention.h). Generates:
//  - the two wgmma wrappers: q @ k^T (m64 x keys-a-block, both from shared memory, K-major)
//    and p @ v (m64 x D, p from registers, v MN-major: wgmma transposes it);
//  - `struct TgBody`: q(b, m, d) and score(b, m, s, acc) written by PointWriter from the
//    region (q's cone; the score modifier: scale, masks, biases), the batch coordinates of
//    the keys and values, and store2() of the result;
//  - the TMA maps of the keys and values: each a [batches, keys, D] tensor at the window's
//    first element (the map's byte offset: a layer's part of a KV cache needs no view).
// Over dynamic dims (issue 18) the batch, the rows and the keys are size arguments, the maps'
// dims and the grid are evaluated at each run, and q and the modifier read through their
// layouts with run-time extents.
//
//===----------------------------------------------------------------------===//
#include "GemmEmission.h"
#include "PointWriter.h"
#include "ScoreMask.h"
#include "ScalarMath.h"
#include "SizeArguments.h"

#include "tg/Dialect/Attention.h"
#include "tg/Dialect/LayoutChain.h"

#include <limits>
#include <sstream>

using namespace mlir;

namespace tg::codegen {

namespace {

/// Where the keys or values of an attention are: a fusion input, from element `offset`,
/// `batches` consecutive [kS, D] matrices.
struct FlashOperand {
  int input = -1;
  int64_t offset = 0, view = 0, batches = 1;
};

FailureOr<FlashOperand> flashOperand(ir::FusionOp fusion, Value v, DType dtype, int64_t batches, const char* what) {
  FlashOperand o;
  // Over dynamic dims a window's offset is known only between static types.
  const LayoutChain chain = traceLayout(v);
  const bool staticWindow = llvm::none_of(chain.ops, [](Operation* op) {
    return ir::isSymbolic(op->getOperand(0).getType()) || ir::isSymbolic(op->getResult(0).getType());
  });
  if (chain.linear || staticWindow) o.input = operandInput(v, dtype, /*windows=*/true, o.offset, o.view);
  if (o.input < 0)
    return fusion.emitOpError("attention ") << what << " must be contiguous windows of inputs";
  if ((o.offset * static_cast<int64_t>(dtype_size(dtype))) % 16 != 0)
    return fusion.emitOpError("attention ") << what << " start at element " << o.offset
           << " of their input, not at a 16-byte boundary (TMA)";
  o.batches = batches;
  return o;
}

}  // namespace

FailureOr<KernelEmission> emitFlashAttention(ir::FusionOp fusion, ir::MatmulOp scores, ir::MatmulOp values,
                                             ir::SoftmaxOp softmax, const AttentionShape& shape,
                                             const std::string& name, const CodeGenOptions& options,
                                             const SymbolicSizes* symbolic) {
  Block& body = fusion.getBody().front();
  const DType dt = dtypeOfValue(scores.getB());
  if (shape.dynamic && !symbolic) return fusion.emitOpError("has dynamic dims but no symbols to size them");
  // Over dynamic dims the batch, the rows and the keys are sizes of the symbols: size
  // arguments (with every run-time extent the index arithmetic of q and the score modifier
  // divides by), their largest values bound the index type and the launch.
  std::optional<SizeArguments> sizeArgs;
  if (shape.dynamic) sizeArgs.emplace(*symbolic);
  SizeExpr batchSize(shape.batch), rowsSize(shape.rows), keysSize(shape.keys), kBatchSize(1), vBatchSize(1);
  if (shape.dynamic) {
    const std::vector<SizeExpr> dims = symbolic->dims(scores.getResult());
    batchSize = SizeExpr(1);
    for (size_t d = 0; d + 2 < dims.size(); ++d) batchSize = batchSize * dims[d];
    rowsSize = dims.end()[-2];
    keysSize = dims.back();
  }
  if (shape.keyBatch != 1) kBatchSize = batchSize;
  if (shape.valueBatch != 1) vBatchSize = batchSize;
  const int64_t D = shape.dim, bn = flashAttentionKeysPerBlock(D);
  FailureOr<FlashOperand> k = flashOperand(fusion, scores.getB(), dt, shape.keyBatch, "keys");
  FailureOr<FlashOperand> v = flashOperand(fusion, values.getB(), dt, shape.valueBatch, "values");
  if (failed(k) || failed(v)) return failure();
  if (k->input == v->input && k->view != v->view)
    return fusion.emitOpError("attention keys and values read one input through two views");

  std::ostringstream os;
  os << wgmmaWrapper("tg_wgmma_qk", static_cast<int>(bn), dt, /*transA=*/false, /*transB=*/false, /*registerA=*/false);
  os << wgmmaWrapper("tg_wgmma_pv", static_cast<int>(D), dt, /*transA=*/false, /*transB=*/true, /*registerA=*/true);
  std::string sfx;
  // The index type holds every element index of the region's values (the largest counts over
  // dynamic dims).
  auto countOf = [&](Value v) -> int64_t {
    if (!shape.dynamic) return numelOf(v);
    std::optional<int64_t> n = symbolic->largest(symbolic->numel(v));
    return n ? *n : std::numeric_limits<int64_t>::max() / 2;
  };
  int64_t bound = 0;
  fusion.walk([&](Operation* op) {
    for (Value r : op->getResults())
      if (isa<RankedTensorType>(r.getType())) bound = std::max(bound, countOf(r));
  });
  for (BlockArgument arg : body.getArguments()) bound = std::max(bound, countOf(arg));
  const std::string index = indexType(bound + 256, sfx);
  // Consumer warpgroups of 64 rows: 3 for head dim 64 (its softmax weighs more against its
  // products: more of them overlap), else 2 (the registers of 64 x D accumulators).
  const int64_t consumers = D == 64 ? 3 : 2, tileRows = 64 * consumers;
  const int64_t tilesM = (shape.rows + tileRows - 1) / tileRows;
  auto sizeText = [&](const SizeExpr& e) {
    return shape.dynamic && !e.isConstant() ? e.str(symbolic->names) : std::to_string(*e.constant());
  };
  os << "struct TgBody {\n";
  os << "  typedef " << index << " EIndex;\n";
  static constexpr const char* kSizeMembers = "/*TG_SIZE_MEMBERS*/\n";
  if (shape.dynamic) {
    os << gemmBodyPointers(fusion) << kSizeMembers;
    const std::optional<std::string> batchText = sizeArgs->text(batchSize), rowsText = sizeArgs->text(rowsSize),
                                     keysText = sizeArgs->text(keysSize);
    if (!batchText || !rowsText || !keysText)
      return fusion.emitOpError("has an attention whose sizes overflow over the symbols' ranges");
    os << "  __device__ __forceinline__ long long batches() const { return " << *batchText << "; }\n"
       << "  __device__ __forceinline__ long long rows() const { return " << *rowsText << "; }\n"
       << "  __device__ __forceinline__ long long keys() const { return " << *keysText << "; }\n"
       << "  __device__ __forceinline__ long long tilesM() const { return (rows() + " << tileRows - 1 << "ll) / "
       << tileRows << "ll; }\n";
  } else {
    os << "  static constexpr long long kBatch = " << shape.batch << "ll, kM = " << shape.rows << "ll, kS = "
       << shape.keys << "ll, kTilesM = " << tilesM << "ll;\n";
    os << gemmBodyPointers(fusion);
    os << "  static __device__ __forceinline__ constexpr long long batches() { return kBatch; }\n"
       << "  static __device__ __forceinline__ constexpr long long rows() { return kM; }\n"
       << "  static __device__ __forceinline__ constexpr long long keys() { return kS; }\n"
       << "  static __device__ __forceinline__ constexpr long long tilesM() { return kTilesM; }\n";
  }
  // Index arithmetic over the region's values: their extents (size arguments where dynamic).
  ExtentsOf extents;
  if (shape.dynamic) extents = [&](Value v) { return sizeArgs->extentsOf(v); };
  auto elementAt = [&](Value v, const char* row, const char* col) -> std::optional<DimIndices> {
    if (!shape.dynamic) return elementOf(shapeOf(v), row, col);
    std::optional<std::vector<Extent>> e = sizeArgs->extentsOf(v);
    if (!e) return std::nullopt;
    return elementOfExtents(*e, row, col);
  };
  os << "  static __device__ __forceinline__ long long kBatchOf(long long b) { return "
     << (k->batches == 1 ? "0" : "b") << "; }\n";
  os << "  static __device__ __forceinline__ long long vBatchOf(long long b) { return "
     << (v->batches == 1 ? "0" : "b") << "; }\n";
  {
    std::ostringstream fn;
    PointWriter w(fn, sfx, options.precision, extents);
    std::optional<DimIndices> at = elementAt(scores.getA(), "m", "d");
    if (!at) return fusion.emitOpError("has an attention whose sizes overflow over the symbols' ranges");
    FailureOr<std::string> q = w.at(scores.getA(), *at);
    if (failed(q)) return failure();
    os << "  __device__ __forceinline__ float q(EIndex b, EIndex m, EIndex d) const {\n    (void)b, (void)m, (void)d;\n"
       << fn.str() << "    return (float)" << *q << ";\n  }\n";
  }
  // score(): the modifier; unmasked(): the same where no mask removes the score (the masks'
  // kept branches), for blocks blockMask() finds entirely visible.
  const ScoreMasks masks = findScoreMasks(softmax.getInput());
  DimTexts maskDims = staticDimTexts();
  if (shape.dynamic)
    maskDims = [&](Value v) -> std::optional<std::vector<std::string>> {
      std::vector<std::string> out;
      for (const SizeExpr& e : symbolic->dims(v)) {
        std::optional<std::string> t = sizeArgs->text(e);
        if (!t) return std::nullopt;
        out.push_back(*t);
      }
      return out;
    };
  for (bool unmasked : {false, true}) {
    std::ostringstream fn;
    PointWriter w(fn, sfx, options.precision, extents);
    w.bind(scores.getResult(), "acc");
    if (unmasked)
      for (const ScoreMasks::Mask& mask : masks.masks) w.substitute(mask.select, mask.kept);
    std::optional<DimIndices> at = elementAt(scores.getResult(), "m", "s");
    if (!at) return fusion.emitOpError("has an attention whose sizes overflow over the symbols' ranges");
    FailureOr<std::string> s = w.at(softmax.getInput(), *at);
    if (failed(s)) return failure();
    os << "  __device__ __forceinline__ float " << (unmasked ? "unmasked" : "score")
       << "(EIndex b, EIndex m, EIndex s, float acc) const {\n"
       << "    (void)b, (void)m, (void)s;\n" << fn.str() << "    return (float)" << *s << ";\n  }\n";
  }
  os << "  __device__ __forceinline__ void blockMask(long long b, long long mLo, long long mHi, long long sLo, "
        "long long sHi, bool& mayVisible, bool& mayMasked) const {\n"
     << "    (void)b, (void)mLo, (void)mHi, (void)sLo, (void)sHi;\n"
     << blockMaskBody(masks, scores.getResult(), maskDims) << "  }\n";
  const DType outType = dtypeOfValue(fusion.getResult(0));
  os << "  __device__ __forceinline__ void store2(long long b, long long m, long long d, float v0, float v1) const {\n"
     << "    tg_store_pair(out0 + (b * rows() + m) * " << D << "ll + d, " << storeConvert(outType, "v0") << ", "
     << storeConvert(outType, "v1") << ");\n  }\n";
  os << "};\n";
  std::string bodyText = os.str();
  if (shape.dynamic) bodyText.replace(bodyText.find(kSizeMembers), std::string(kSizeMembers).size(), sizeArgs->members());

  KernelEmission e;
  if (k->view || v->view) {
    e.argumentByteOffsets.assign(fusion.getNumOperands() + fusion.getNumResults(), 0);
    e.argumentByteOffsets[k->input] = k->view * static_cast<int64_t>(dtype_size(dt));
    e.argumentByteOffsets[v->input] = v->view * static_cast<int64_t>(dtype_size(dt));
  }
  // Keys in boxes of 64 columns x a block's keys; values in 64 x 64 boxes (read transposed).
  rt::TensorMapSpec km = wgmmaOperandMap(dt, k->batches, shape.keys, D, 64, static_cast<uint32_t>(bn));
  rt::TensorMapSpec vm = wgmmaOperandMap(dt, v->batches, shape.keys, D, 64, 64);
  km.byteOffset = static_cast<uint64_t>(k->offset) * dtype_size(dt);
  vm.byteOffset = static_cast<uint64_t>(v->offset) * dtype_size(dt);
  e.tensorMaps.push_back({k->input, km});
  if (shape.dynamic) makeSymbolic(e.tensorMaps.back(), kBatchSize, keysSize, D, 2);
  e.tensorMaps.push_back({v->input, vm});
  if (shape.dynamic) makeSymbolic(e.tensorMaps.back(), vBatchSize, keysSize, D, 2);

  // Stages: as many as the 227 KiB allow, at most 4 (3 for head dim 128, 2 for 256).
  const int64_t qBytes = tileRows * D * 2, stageBytes = 2 * bn * D * 2;
  const int64_t stages = std::clamp<int64_t>((232448 - 1024 - 64 - qBytes) / stageBytes, 2, 4);
  std::ostringstream summary;
  summary << "flash attention (wgmma + TMA, " << tileRows << " x " << bn << " tiles, " << stages << " stages"
          << (masks.masks.empty() ? "" : ", " + std::to_string(masks.masks.size()) + " mask(s) skipping key blocks")
          << "): " << sizeText(batchSize) << " x softmax([" << sizeText(rowsSize) << " x " << D << "] @ [" << D
          << " x " << sizeText(keysSize) << "]) @ [" << sizeText(keysSize) << " x " << D << "]";
  const int tileGroup = options.tuning.attentionTileGroup > 0 ? options.tuning.attentionTileGroup
                        : masks.masks.empty()                 ? 1
                                                              : 8;
  std::ostringstream defines;
  defines << "#define TG_D " << D << "\n#define TG_BN " << bn << "\n#define TG_STAGES " << stages
          << (options.tuning.attentionPingpong >= 0
                  ? "\n#define TG_PINGPONG " + std::to_string(options.tuning.attentionPingpong)
                  : std::string())
          << "\n#define TG_TILE_GROUP " << tileGroup << "\n#define TG_CONSUMERS " << consumers << "\n#define TG_RANK_K 3\n#define TG_RANK_V 3\n#define TG_F16 " << (dt == DType::F16 ? 1 : 0) << "\n";
  e.kernel.name = name;
  e.kernel.summary = summary.str();
  e.kernel.source = kernelHeader(name, summary.str()) + defines.str() + tmaTemplate() + bodyText + attentionFlashTemplate();
  if (failed(setGrid(e, fusion, tilesM * shape.batch))) return failure();
  if (shape.dynamic) {  // one CTA per tile of rows of each batch: ceil(rows / tileRows) x batch
    e.symbolicGrid.push_back({rowsSize, tileRows, (int64_t(1) << 31) - 1, batchSize, false});
    e.sizes = sizeArgs->exprs();
  }
  e.dims.block[0] = static_cast<uint32_t>(128 * (consumers + 1));
  e.dims.sharedBytes = static_cast<uint32_t>(qBytes + stages * stageBytes + 1024 + 24 * stages);
  return e;
}

}  // namespace tg::codegen
