//===- Attention.cpp - The problem an attention kernel solves -------------===//
#include "tg/Dialect/Attention.h"

#include <algorithm>

using namespace mlir;

namespace tg {

AttentionShape attentionShape(ir::MatmulOp scores, ir::MatmulOp values) {
  auto s = cast<RankedTensorType>(scores.getType());
  auto o = cast<RankedTensorType>(values.getType());
  auto q = cast<RankedTensorType>(scores.getA().getType());
  AttentionShape a;
  a.rows = s.getShape().end()[-2];
  a.keys = s.getShape().back();
  a.dim = q.getShape().back();
  a.valueDim = o.getShape().back();
  a.batch = s.getNumElements() / std::max<int64_t>(1, a.rows * a.keys);
  return a;
}

int64_t attentionCluster(const AttentionShape& shape, int smVersion, int64_t maxCluster) {
  if (smVersion < 90) return 1;
  const int64_t blocks = (shape.keys + kAttentionKeysPerBlock - 1) / kAttentionKeysPerBlock;
  const int64_t most = maxCluster > 0 ? std::min(maxCluster, kAttentionMaxCluster) : kAttentionMaxCluster;
  return std::clamp<int64_t>(blocks, 1, most);
}

std::string whyNotAttentionKernel(const AttentionShape& shape, int smVersion, int64_t maxCluster) {
  if (shape.rows > kAttentionMaxRows)
    return std::to_string(shape.rows) + " query rows per head; the attention kernel takes at most " +
           std::to_string(kAttentionMaxRows) + " (decode), longer queries run as separate kernels";
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

}  // namespace tg
