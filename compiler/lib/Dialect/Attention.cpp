//===- Attention.cpp - The problem an attention kernel solves -------------===//
#include "tg/Dialect/Attention.h"

#include "tg/Dialect/SymbolicTypes.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace mlir;

namespace tg {

namespace {

/// The product of the dims of `v` before its last two (its batch).
SizeExpr batchOf(Value v, std::vector<std::string>& names) {
  const std::vector<SizeExpr> dims = ir::sizesOf(v.getType(), names);
  SizeExpr b(1);
  for (size_t d = 0; d + 2 < dims.size(); ++d) b = b * dims[d];
  return b;
}

/// Over dynamic dims: the shape's sizes at their largest over the symbols' ranges, the key
/// and value batches the scores' batch only where they are the same size (else 1 where they
/// are 1, and -1: not one the kernels take). `dynamic` set.
void largestShape(ir::MatmulOp scores, ir::MatmulOp values, AttentionShape& a) {
  a.dynamic = true;
  std::string error;
  const std::optional<ir::Symbols> symbols = ir::symbolsOf(scores, error);
  std::vector<std::string> names = symbols ? symbols->names : std::vector<std::string>{};
  auto largest = [&](const SizeExpr& e) -> int64_t {
    if (std::optional<int64_t> c = e.constant()) return *c;
    std::optional<int64_t> v = symbols ? ir::largestValue(e, *symbols) : std::nullopt;
    return v ? *v : 0;  // an overflow: an empty problem, which the kernels refuse
  };
  const std::vector<SizeExpr> s = ir::sizesOf(scores.getType(), names);
  a.rows = largest(s.end()[-2]);
  a.keys = largest(s.back());
  const SizeExpr batch = batchOf(scores.getResult(), names);
  a.batch = largest(batch);
  auto batchOfOperand = [&](Value v) -> int64_t {
    const SizeExpr b = batchOf(v, names);
    return b == batch ? a.batch : b == SizeExpr(1) ? 1 : -1;
  };
  a.keyBatch = batchOfOperand(scores.getB());
  a.valueBatch = batchOfOperand(values.getB());
}

}  // namespace

AttentionShape attentionShape(ir::MatmulOp scores, ir::MatmulOp values) {
  auto s = cast<RankedTensorType>(scores.getType());
  auto o = cast<RankedTensorType>(values.getType());
  auto q = cast<RankedTensorType>(scores.getA().getType());
  AttentionShape a;
  auto k = cast<RankedTensorType>(scores.getB().getType()), v = cast<RankedTensorType>(values.getB().getType());
  a.dim = q.getShape().back();
  a.valueDim = o.getShape().back();
  if (llvm::any_of(std::initializer_list<Type>{s, o, q, k, v}, ir::isSymbolic)) {
    largestShape(scores, values, a);
  } else {
    a.rows = s.getShape().end()[-2];
    a.keys = s.getShape().back();
    a.batch = s.getNumElements() / std::max<int64_t>(1, a.rows * a.keys);
    a.keyBatch = k.getNumElements() / std::max<int64_t>(1, a.keys * a.dim);
    a.valueBatch = v.getNumElements() / std::max<int64_t>(1, a.keys * a.valueDim);
  }
  Type e = q.getElementType();
  a.sameTwoByteOperands = (e.isBF16() || e.isF16()) && k.getElementType() == e && v.getElementType() == e &&
                          cast<RankedTensorType>(values.getA().getType()).getElementType() == e;
  Value p = values.getA();
  while (auto c = p.getDefiningOp<ir::CastOp>()) p = c.getInput();
  a.probsOnlyCast = static_cast<bool>(p.getDefiningOp<ir::SoftmaxOp>());
  if (k.getElementType() == v.getElementType())
    a.keyValueBytes = k.getElementType().isF32() ? 4 : k.getElementType().isBF16() || k.getElementType().isF16() ? 2 : 0;
  return a;
}

std::string whyNotSplitAttention(const AttentionShape& shape) {
  const std::string rows = std::to_string(shape.rows) + " query rows per head";
  if (shape.rows == 0 || shape.keys == 0 || shape.dim == 0) return "an empty attention (no rows, keys or dims)";
  if (shape.rows > kAttentionMaxRows) return rows + ": more than the split-key kernel's " + std::to_string(kAttentionMaxRows);
  if (shape.dim != shape.valueDim)
    return rows + " and head dims " + std::to_string(shape.dim) + " and " + std::to_string(shape.valueDim) +
           ": the split-key kernel takes equal head dims";
  if (shape.keyValueBytes == 0) return rows + ": the split-key kernel takes keys and values of one type";
  const int64_t vec = 16 / shape.keyValueBytes, lanes = shape.dim / vec;
  if (shape.dim % vec != 0 || lanes > 32 || (lanes & (lanes - 1)) != 0)
    return rows + " and head dim " + std::to_string(shape.dim) +
           ": the split-key kernel takes rows of a power of two of 16-byte chunks, up to 32";
  if (shape.rows * vec > 64 || 4 * (kSplitAttentionThreads / 32) * shape.rows * (shape.dim + 2) > kAttentionSharedBytes)
    return rows + " of head dim " + std::to_string(shape.dim) +
           ": more than the split-key kernel holds in registers and shared memory";
  if (!shape.probsOnlyCast)
    return rows + ": the split-key kernel takes only casts between the softmax and p @ v (it multiplies "
                  "unnormalised probabilities)";
  return {};
}

AttentionKernel attentionKernel(const AttentionShape& shape) {
  if (shape.rows > kAttentionMaxRows) return AttentionKernel::flash;
  return whyNotSplitAttention(shape).empty() ? AttentionKernel::split : AttentionKernel::decode;
}

int64_t flashAttentionKeysPerBlock(int64_t dim) { return dim > 128 ? 64 : 128; }

namespace {

std::string whyNotFlash(const AttentionShape& shape, int smVersion) {
  const std::string rows = std::to_string(shape.rows) + " query rows per head";
  if (smVersion < 90)
    return rows + ": the attention kernel takes at most " + std::to_string(kAttentionMaxRows) +
           " on this target (the flash-attention kernel needs sm_90a); longer queries run as separate kernels";
  if (shape.dim != shape.valueDim || (shape.dim != 64 && shape.dim != 128 && shape.dim != 256))
    return rows + " and head dims " + std::to_string(shape.dim) + " and " + std::to_string(shape.valueDim) +
           ": the flash-attention kernel takes equal head dims of 64, 128 or 256";
  if (!shape.sameTwoByteOperands)
    return rows + ": the flash-attention kernel takes q, k, v and the probabilities all bf16 or all f16 "
                  "(its products run on wgmma)";
  if (!shape.probsOnlyCast)
    return rows + ": the flash-attention kernel takes only casts between the softmax and p @ v (it "
                  "multiplies unnormalised probabilities)";
  if ((shape.keyBatch != shape.batch && shape.keyBatch != 1) || (shape.valueBatch != shape.batch && shape.valueBatch != 1))
    return rows + ": the keys or values have " + std::to_string(shape.keyBatch) + " / " +
           std::to_string(shape.valueBatch) + " batches for the scores' " + std::to_string(shape.batch);
  if (shape.keys == 0) return "an empty attention (no keys)";
  return {};
}

}  // namespace

int64_t attentionCluster(const AttentionShape& shape, int smVersion, int64_t maxCluster) {
  if (smVersion < 90) return 1;
  const int64_t blocks = (shape.keys + kAttentionKeysPerBlock - 1) / kAttentionKeysPerBlock;
  const int64_t most = maxCluster > 0 ? std::min(maxCluster, kAttentionMaxCluster) : kAttentionMaxCluster;
  return std::clamp<int64_t>(blocks, 1, most);
}

namespace {

std::string whyNotClusterAttention(const AttentionShape& shape, int smVersion, int64_t maxCluster) {
  if (shape.dim > kAttentionMaxDim || shape.valueDim > kAttentionMaxDim)
    return "head dims " + std::to_string(shape.dim) + " and " + std::to_string(shape.valueDim) +
           "; the attention kernel takes at most " + std::to_string(kAttentionMaxDim);
  if (shape.rows == 0 || shape.keys == 0 || shape.dim == 0 || shape.valueDim == 0)
    return "an empty attention (no rows, keys or dims)";
  const int64_t cluster = attentionCluster(shape, smVersion, maxCluster);
  const int64_t share = (shape.keys + cluster - 1) / cluster;
  if (shape.rows * share * 4 > kAttentionScoreBytes)
    return std::to_string(shape.rows) + " x " + std::to_string(shape.keys) + " scores over " +
           std::to_string(cluster) + " block(s) need " + std::to_string(shape.rows * share * 4) +
           " bytes of shared memory a block; the attention kernel holds at most " +
           std::to_string(kAttentionScoreBytes);
  // q, the scores, the partial p @ v and two statistics per row, in f32, in the 48 KiB a block
  // may hold statically.
  const int64_t bytes = 4 * shape.rows * (shape.dim + share + shape.valueDim + 2);
  if (bytes > kAttentionSharedBytes)
    return "q, the scores and p @ v of " + std::to_string(shape.rows) + " rows need " + std::to_string(bytes) +
           " bytes of shared memory a block; the attention kernel holds at most " +
           std::to_string(kAttentionSharedBytes);
  return {};
}

}  // namespace

std::string whyNotAttentionKernel(const AttentionShape& shape, int smVersion, int64_t maxCluster) {
  if (shape.dynamic && attentionKernel(shape) != AttentionKernel::flash)
    return std::to_string(shape.rows) + " query rows per head at most over the symbols' ranges: over dynamic dims "
           "only the flash-attention kernel (more than " + std::to_string(kAttentionMaxRows) +
           " rows) is generated; decode-sized attention stays separate kernels";
  if (shape.dynamic && shape.dim <= 0)
    return "a head dim that depends on the symbols: the attention kernels take it static";
  switch (attentionKernel(shape)) {
    case AttentionKernel::flash: return whyNotFlash(shape, smVersion);
    case AttentionKernel::split: return {};
    case AttentionKernel::decode: break;
  }
  // Neither decode-sized kernel: say why for both.
  std::string why = whyNotClusterAttention(shape, smVersion, maxCluster);
  if (why.empty()) return {};
  return why + " (and " + whyNotSplitAttention(shape) + ")";
}

}  // namespace tg
